//! `#[no_derivative]` fields read and written in differentiable functions, integers inside
//! active aggregates (`(x, 3usize)`, a struct's `usize` field), and tuple structs whose
//! `#[no_derivative]` field shifts the tangent's positions. Both modes, against formulas
//! and finite differences; a `#[no_derivative]` field is a constant for AD: what is stored
//! in it carries no derivative.

mod common;

use common::{assert_close, fd};
use diff::prelude::*;

#[derive(Differentiable, Clone, Debug)]
struct Body {
    mass: f64,
    #[no_derivative]
    count: usize,
    #[no_derivative]
    stiffness: f64,
    #[no_derivative]
    name: String,
    speed: f64,
}

fn body() -> Body {
    Body {
        mass: 2.0,
        count: 3,
        stiffness: 0.5,
        name: "ab".into(),
        speed: 4.0,
    }
}

impl Body {
    /// mass * count + stiffness * speed^2 + len(name).
    #[differentiable]
    fn energy(&self) -> f64 {
        self.mass * self.count as f64
            + self.stiffness * self.speed * self.speed
            + self.name.len() as f64
    }

    /// Integer arithmetic and loops on a `usize` field: sum over i < count of mass * x * (count + 1) * 2.
    #[differentiable]
    fn repeated(&self, x: f64) -> f64 {
        let mut acc = 0.0;
        let k = self.count + 1;
        for _ in 0..self.count {
            acc += self.mass * x * (k * 2) as f64;
        }
        if self.count > 1 {
            acc *= self.stiffness;
        }
        acc
    }
}

#[test]
fn reads_of_no_derivative_fields() {
    let b = body();
    let (v, g) = value_with_gradient!(at: &b, of: Body::energy);
    assert_close(v, 2.0 * 3.0 + 0.5 * 16.0 + 2.0, 1e-12, "value");
    assert_close(g.mass, 3.0, 1e-12, "d/dmass");
    assert_close(g.speed, 2.0 * 0.5 * 4.0, 1e-12, "d/dspeed");
    let d = first_derivative!(at: 4.0, of: |s| Body { speed: s, ..body() }.energy());
    assert_close(d, g.speed, 1e-12, "forward d/dspeed");
}

#[test]
fn integer_arithmetic_on_fields() {
    let b = body();
    let (v, (g, dx)) = value_with_gradient!(at: (&b, 1.5), of: Body::repeated);
    // count = 3, k = 4: 3 * mass * x * 8, times stiffness 0.5.
    assert_close(v, 3.0 * 2.0 * 1.5 * 8.0 * 0.5, 1e-12, "value");
    assert_close(g.mass, 3.0 * 1.5 * 8.0 * 0.5, 1e-12, "d/dmass");
    assert_close(g.speed, 0.0, 0.0, "d/dspeed");
    assert_close(dx, 3.0 * 2.0 * 8.0 * 0.5, 1e-12, "d/dx");
    let fwd = first_derivative!(at: 1.5, of: |x| body().repeated(x));
    assert_close(fwd, dx, 1e-12, "forward d/dx");
}

/// Writes: `b.stiffness = 2x` stores a value whose derivative is dropped (a constant
/// field), `b.count = 3` an integer, `b.speed *= x` a differentiable field.
#[differentiable]
fn rewrite(b: Body, x: f64) -> f64 {
    let mut b = b;
    b.stiffness = x * 2.0;
    b.count = 3;
    b.speed *= x;
    b.mass * b.stiffness + b.speed * b.count as f64
}

#[test]
fn writes_of_no_derivative_fields() {
    let (v, (g, dx)) = value_with_gradient!(at: (body(), 1.5), of: rewrite);
    assert_close(v, 2.0 * 3.0 + 6.0 * 3.0, 1e-12, "value");
    assert_close(g.mass, 3.0, 1e-12, "d/dmass");
    assert_close(g.speed, 1.5 * 3.0, 1e-12, "d/dspeed");
    // Only through `speed`: the stiffness written from x is a constant.
    assert_close(dx, 4.0 * 3.0, 1e-12, "d/dx");
    // Second order too (the struct's dual twin keeps the constant field plain).
    let (v2, d1, d2) = value_with_second_derivative!(at: 1.5, of: |x| rewrite(body(), x));
    assert_close(v2, v, 1e-12, "value, second order");
    assert_close(d1, dx, 1e-12, "d/dx, second order");
    assert_close(d2, 0.0, 0.0, "d2/dx2");
    let fwd = first_derivative!(at: 1.5, of: |x| rewrite(body(), x));
    assert_close(fwd, dx, 1e-12, "forward d/dx");
}

/// A struct literal with `#[no_derivative]` fields, built inside the function.
#[differentiable]
fn build(x: f64) -> f64 {
    let b = Body {
        mass: x,
        count: 2,
        stiffness: 1.5,
        name: String::new(),
        speed: x * x,
    };
    b.mass * b.count as f64 + b.stiffness * b.speed
}

#[test]
fn literals_with_no_derivative_fields() {
    let (v, d) = value_with_gradient!(at: 1.5, of: build);
    assert_close(v, 3.0 + 1.5 * 2.25, 1e-12, "value");
    assert_close(d, fd(build, 1.5), 1e-6, "against finite differences");
    assert_close(first_derivative!(at: 1.5, of: build), d, 1e-12, "forward");
}

/// The `#[no_derivative]` field in the middle shifts the tangent's positions
/// (`ShiftTangent(f64, f64)` holds fields 0 and 2): reads by position must not.
#[derive(Differentiable, Clone, Debug)]
struct Shift(f64, #[no_derivative] f64, f64);

#[differentiable]
fn shifted(s: Shift) -> f64 {
    s.0 * s.1 + s.2 * s.2 * 3.0
}

#[differentiable]
fn shifted_write(s: Shift, x: f64) -> f64 {
    let mut s = s;
    s.2 *= x;
    s.1 = x;
    s.0 * s.1 + s.2
}

#[test]
fn tuple_struct_positions_shift() {
    let g = gradient!(at: Shift(2.0, 5.0, 7.0), of: shifted);
    assert_eq!(g, ShiftTangent(5.0, 42.0));
    let df = differential!(at: Shift(2.0, 5.0, 7.0), of: shifted);
    assert_close(df(ShiftTangent(0.0, 1.0)), 42.0, 1e-12, "forward d/ds.2");
    let (v, (g, dx)) = value_with_gradient!(at: (Shift(2.0, 5.0, 7.0), 3.0), of: shifted_write);
    assert_close(v, 2.0 * 3.0 + 21.0, 1e-12, "value");
    assert_eq!(g, ShiftTangent(3.0, 3.0));
    assert_close(dx, 7.0, 1e-12, "d/dx (s.1 = x is a constant)");
}

/// Tuples mixing active and integer elements.
#[differentiable]
fn mixed(x: f64) -> f64 {
    let t = (x, 3usize);
    let (i, (j, y), z) = (2i32, (t.1, t.0 * x), 1.0);
    y * (i as f64 + j as f64) + t.0 * t.1 as f64 + z
}

#[test]
fn tuples_with_integers() {
    let (v, d) = value_with_gradient!(at: 1.5, of: mixed);
    assert_close(v, 2.25 * 5.0 + 4.5 + 1.0, 1e-12, "value");
    assert_close(d, 2.0 * 1.5 * 5.0 + 3.0, 1e-12, "d/dx");
    assert_close(first_derivative!(at: 1.5, of: mixed), d, 1e-12, "forward");
    assert_close(d, fd(mixed, 1.5), 1e-6, "against finite differences");
}

/// A tuple struct's constructor called in a body (`Shift(a, b, c)` reads like a call).
#[differentiable]
fn constructed(x: f64, y: f64) -> f64 {
    let s = Shift(x * y, 4.0, y);
    shifted(s) + Shift(x, x, x).0
}

#[test]
fn tuple_struct_constructors() {
    let (v, (dx, dy)) = value_with_gradient!(at: (1.5, -2.0), of: constructed);
    // shifted(s) = s.0 * s.1 + 3 s.2^2 = 4xy + 3y^2, plus x.
    assert_close(v, 4.0 * 1.5 * -2.0 + 12.0 + 1.5, 1e-12, "value");
    assert_close(dx, 4.0 * -2.0 + 1.0, 1e-12, "d/dx");
    assert_close(dy, 4.0 * 1.5 + 6.0 * -2.0, 1e-12, "d/dy");
    let fwd = first_derivative!(at: 1.5, of: |x| constructed(x, -2.0));
    assert_close(fwd, dx, 1e-12, "forward d/dx");
    let fwd = first_derivative!(at: 7.0, of: |t| shifted(Shift(2.0, 5.0, t)));
    assert_close(
        fwd,
        42.0,
        1e-12,
        "forward through a constructor in a closure",
    );
}

/// A `#[no_derivative]` field holding an `Option<f64>` (Swift's `Dense` layer with an
/// optional second weight), read by `if let` and by `unwrap_or`.
#[derive(Differentiable, Clone, Debug)]
struct Dense {
    w1: f64,
    #[no_derivative]
    w2: Option<f64>,
}

impl Dense {
    #[differentiable]
    fn call(&self, input: f64) -> f64 {
        if let Some(w2) = self.w2 {
            return input * self.w1 * w2;
        }
        input * self.w1
    }

    #[differentiable]
    fn scaled(&self, input: f64) -> f64 {
        input * input * self.w1 * self.w2.unwrap_or(1.0)
    }
}

#[test]
fn an_optional_constant_field() {
    for (w2, k) in [(Some(5.0), 5.0), (None, 1.0)] {
        let d = Dense { w1: 4.0, w2 };
        let (v, (gd, gx)) =
            value_with_gradient!(at: (d.clone(), 2.0), of: |d: Dense, x: f64| d.call(x));
        assert_eq!(v, d.call(2.0));
        assert_eq!((gd.w1, gx), (2.0 * k, 4.0 * k));
        let (v, dx) = value_with_derivative!(at: 2.0, of: |x| d.call(x));
        assert_eq!((v, dx), (d.call(2.0), 4.0 * k));
        let (v, (gd, gx)) =
            value_with_gradient!(at: (d.clone(), 3.0), of: |d: Dense, x: f64| d.scaled(x));
        assert_eq!(v, d.scaled(3.0));
        assert_eq!((gd.w1, gx), (9.0 * k, 24.0 * k));
        assert_eq!(second_derivative!(at: 3.0, of: |x| d.scaled(x)), 8.0 * k);
    }
}

/// A `#[no_derivative]` integer field given to a differentiable function's integer
/// parameter (CppAD's matrix with its size): an integer, whatever the receiver carries.
mod integer_field_as_an_argument {
    use diff::prelude::*;

    #[differentiable]
    fn first_n(a: &[f64], n: usize) -> f64 {
        a[..n].iter().map(|v| v * v).sum()
    }

    #[derive(Differentiable, Clone, Debug)]
    pub struct Matrix {
        data: Vec<f64>,
        #[no_derivative]
        n: usize,
    }

    impl Matrix {
        #[differentiable]
        fn leading(&self) -> f64 {
            first_n(&self.data, self.n)
        }
    }

    #[test]
    fn passed_on() {
        let m = Matrix {
            data: vec![1.0, 2.0, 3.0],
            n: 2,
        };
        let (v, g): (f64, MatrixTangent) =
            value_with_gradient!(at: m.clone(), of: |m: Matrix| m.leading());
        assert_eq!(v, m.leading());
        assert_eq!(g.data, vec![2.0, 4.0, 0.0]);
        let h = hessian!(at: m.data.clone(), of: |d: Vec<f64>| Matrix { data: d, n: 2 }.leading());
        assert_eq!(
            h,
            vec![
                vec![2.0, 0.0, 0.0],
                vec![0.0, 2.0, 0.0],
                vec![0.0, 0.0, 0.0]
            ]
        );
    }
}
