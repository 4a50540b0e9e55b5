//! Regressions found by the second round of random-program testing: minimized programs
//! that once failed (wrong derivatives or E0382), checked against closed-form gradients.
// The assignments are written out and the Vec is a Vec on purpose: they are what once failed.
#![allow(clippy::assign_op_pattern, clippy::useless_vec)]

use diff::prelude::*;

#[derive(Differentiable, Clone, Debug)]
struct Pt {
    a: f64,
    b: f64,
}

impl Pt {
    #[differentiable]
    fn scale(&mut self, k: f64) {
        self.a *= k.cos();
        self.b = self.b + k * self.a;
    }

    #[differentiable]
    fn times(&mut self, k: f64) {
        self.a = self.a * k;
    }
}

fn assert_close(got: (f64, f64), want: (f64, f64), what: &str) {
    let ok = |g: f64, w: f64| (g - w).abs() <= 1e-12 * (1.0 + w.abs());
    assert!(
        ok(got.0, want.0) && ok(got.1, want.1),
        "{what}: got {got:?}, want {want:?}"
    );
}

// `&mut self` methods called on a local struct used to leave the struct's tangent as it was
// before the call (gradient (1, 1) for both).

#[differentiable]
fn mut_self_times(x: f64, y: f64) -> f64 {
    let mut p = Pt { a: x, b: y };
    p.times(y);
    p.a + p.b
}

#[differentiable]
fn mut_self_scale(x: f64, y: f64) -> f64 {
    let mut p = Pt { a: x, b: y };
    p.scale(y);
    p.a + p.b
}

#[test]
fn mut_self_method_on_local() {
    let (x, y) = (0.7, 1.3);
    // x*y + y
    let (v, g) = value_with_gradient!(at: (x, y), of: mut_self_times);
    assert_eq!(v, mut_self_times(x, y));
    assert_close(g, (y, x + 1.0), "times reverse");
    let (vd, _) = value_with_differential!(at: (x, y), of: mut_self_times);
    assert_eq!(vd, v);
    let dx = differential!(at: (x, y), of: mut_self_times)((1.0, 0.0));
    let dy = differential!(at: (x, y), of: mut_self_times)((0.0, 1.0));
    assert_close((dx, dy), (y, x + 1.0), "times forward");

    // a = x cos y, b = y + y a: f = x cos y + y + x y cos y
    let (c, s) = (y.cos(), y.sin());
    let want = (c + y * c, -x * s + 1.0 + x * c - x * y * s);
    let (v, g) = value_with_gradient!(at: (x, y), of: mut_self_scale);
    assert_eq!(v, mut_self_scale(x, y));
    assert_close(g, want, "scale reverse");
    let dx = differential!(at: (x, y), of: mut_self_scale)((1.0, 0.0));
    let dy = differential!(at: (x, y), of: mut_self_scale)((0.0, 1.0));
    assert_close((dx, dy), want, "scale forward");
}

// Writes to a field of a local struct or an element of a local Vec inside an `if` or a
// loop body used to fail with E0382 (the aggregate moved into the branch).

#[differentiable]
fn field_write_in_if(x: f64, y: f64) -> f64 {
    let mut p = Pt { a: x, b: y };
    if x > 0.0 {
        p.b = x;
    }
    p.a * p.b
}

#[differentiable]
fn field_write_in_loop(x: f64, y: f64) -> f64 {
    let mut p = Pt { a: x, b: y };
    for _ in 0..2 {
        p.b += x;
    }
    p.a * p.b
}

#[differentiable]
fn vec_write_in_if(x: f64, y: f64) -> f64 {
    let mut w = vec![x, y];
    if x > 0.0 {
        w[1] += x;
    }
    w[0] * w[1]
}

#[test]
fn aggregate_writes_in_branches_and_loops() {
    let (x, y) = (2.0, 3.0);
    // x > 0: x * x
    let (v, g) = value_with_gradient!(at: (x, y), of: field_write_in_if);
    assert_eq!(v, 4.0);
    assert_close(g, (2.0 * x, 0.0), "field in if");
    // x < 0: x * y
    let g = gradient!(at: (-x, y), of: field_write_in_if);
    assert_close(g, (y, -x), "field in if, not taken");
    let dx = differential!(at: (x, y), of: field_write_in_if)((1.0, 0.0));
    assert_close((dx, 0.0), (2.0 * x, 0.0), "field in if forward");

    // x (y + 2x)
    let (v, g) = value_with_gradient!(at: (x, y), of: field_write_in_loop);
    assert_eq!(v, x * (y + 2.0 * x));
    assert_close(g, (y + 4.0 * x, x), "field in loop");
    let dy = differential!(at: (x, y), of: field_write_in_loop)((0.0, 1.0));
    assert_close((dy, 0.0), (x, 0.0), "field in loop forward");

    // x (y + x)
    let (v, g) = value_with_gradient!(at: (x, y), of: vec_write_in_if);
    assert_eq!(v, x * (y + x));
    assert_close(g, (y + 2.0 * x, x), "vec in if");
    let dx = differential!(at: (x, y), of: vec_write_in_if)((1.0, 0.0));
    assert_close((dx, 0.0), (y + 2.0 * x, 0.0), "vec in if forward");
}
