//! Edition 2024: `&mut self` methods called on a local from a function taking a slice,
//! differentiable functions inside a function body and from `macro_rules!`.
use diff::prelude::*;

fn close(a: f64, b: f64) {
    assert!((a - b).abs() <= 1e-9 * (1.0 + b.abs()), "{a} vs {b}");
}

#[derive(Clone, Debug, Differentiable)]
struct State {
    x: f64,
    v: f64,
}

impl State {
    #[differentiable]
    fn advance(&mut self, k: f64) {
        self.v -= k * self.x;
        self.x += self.v;
    }
}

/// Two steps of a spring: `x2 = x0 ((1 - k)^2 - k)`.
#[differentiable]
fn run(p: &[f64]) -> f64 {
    let mut s = State { x: p[0], v: 0.0 };
    s.advance(p[1]);
    s.advance(p[1]);
    s.x
}

/// Second order through the struct and its `&mut self` method (the struct's dual twin).
#[test]
fn hessian_through_mut_self_methods() {
    let (x0, k) = (0.3, 0.2);
    let h = hessian!(at: &vec![x0, k], of: run);
    // x2 = x0 (k^2 - 3k + 1).
    let want = [[0.0, 2.0 * k - 3.0], [2.0 * k - 3.0, 2.0 * x0]];
    for i in 0..2 {
        for j in 0..2 {
            close(h[i][j], want[i][j]);
        }
    }
}

#[test]
fn mut_self_methods_on_a_local_from_a_slice_parameter() {
    for (x0, k) in [(1.0, 0.5), (-2.0, 0.1), (0.3, 1.7)] {
        let p = vec![x0, k];
        let (v, g) = value_with_gradient!(at: &p, of: run);
        close(v, x0 * ((1.0 - k) * (1.0 - k) - k));
        close(g[0], (1.0 - k) * (1.0 - k) - k);
        close(g[1], x0 * (-2.0 * (1.0 - k) - 1.0));
    }
}

macro_rules! power {
    ($name:ident, $n:literal) => {
        #[differentiable]
        fn $name(x: f64) -> f64 {
            x.powi($n)
        }
    };
}

#[test]
fn in_a_function_body_and_from_macro_rules() {
    power!(fourth, 4);

    #[differentiable]
    fn both(x: f64) -> f64 {
        fourth(x) + x.sin()
    }

    for x in [-1.5, 0.3, 2.0] {
        let (v, d) = value_with_gradient!(at: x, of: both);
        close(v, x.powi(4) + x.sin());
        close(d, 4.0 * x.powi(3) + x.cos());
        close(
            first_derivative!(at: x, of: both),
            4.0 * x.powi(3) + x.cos(),
        );
    }
}

/// An unmarked `impl` whose associated functions take no receiver and name the type by
/// its one-letter name; a receiver and a parameter whose types are not Differentiable.
#[derive(Clone, Copy, Debug, Differentiable)]
struct V {
    a: f64,
    b: f64,
}

impl V {
    #[differentiable]
    fn new(t: f64) -> V {
        V {
            a: t.sin(),
            b: t * t,
        }
    }

    #[differentiable]
    fn dot(x: &V, y: &V) -> f64 {
        x.a * y.a + x.b * y.b
    }
}

struct Scale {
    by: f64,
}

impl Scale {
    #[differentiable]
    fn apply(&self, v: &[f64], extra: &Scale) -> f64 {
        v.iter().map(|x| self.by * x * x).sum::<f64>() * extra.by
    }
}

#[differentiable]
fn through_impls(t: f64) -> f64 {
    let v = V::new(t);
    V::dot(&v, &v)
}

#[test]
fn unmarked_impls_and_parameters_left_out() {
    let t = 0.7;
    let (v, g) = value_with_gradient!(at: t, of: through_impls);
    close(v, t.sin() * t.sin() + t.powi(4));
    close(g, 2.0 * t.sin() * t.cos() + 4.0 * t * t * t);
    let d = first_derivative!(at: t, of: through_impls);
    close(d, g);
    let (s, e) = (Scale { by: 3.0 }, Scale { by: 0.5 });
    let x = vec![1.0, -2.0];
    let (v, g) = value_with_gradient!(at: &x, of: |v: &[f64]| s.apply(v, &e));
    close(v, 3.0 * (1.0 + 4.0) * 0.5);
    close(g[0], 3.0 * 2.0 * 1.0 * 0.5);
    close(g[1], 3.0 * 2.0 * -2.0 * 0.5);
}

mod vectors {
    use diff::prelude::*;
    use std::ops::{Add, Mul};

    #[derive(Clone, Copy, Debug, Differentiable)]
    pub struct V2 {
        pub x: f64,
        pub y: f64,
    }

    impl Add for V2 {
        type Output = V2;
        #[differentiable]
        fn add(self, o: V2) -> V2 {
            V2 {
                x: self.x + o.x,
                y: self.y + o.y,
            }
        }
    }

    impl Mul<V2> for f64 {
        type Output = V2;
        #[differentiable]
        fn mul(self, v: V2) -> V2 {
            V2 {
                x: self * v.x,
                y: self * v.y,
            }
        }
    }
}

use vectors::V2;

#[differentiable]
fn combined(p: V2, q: V2, k: f64) -> f64 {
    let r = k * p + q;
    r.x * r.y
}

#[test]
fn operators_on_a_struct() {
    let (p, q, k) = (V2 { x: 1.0, y: 2.0 }, V2 { x: -0.5, y: 0.25 }, 3.0);
    let (gp, gq, gk) = gradient!(at: (p, q, k), of: combined);
    let r = V2 {
        x: k * p.x + q.x,
        y: k * p.y + q.y,
    };
    close(gp.x, k * r.y);
    close(gq.y, r.x);
    close(gk, p.x * r.y + p.y * r.x);
}

/// A marked trait implemented by a type that is not Differentiable, used through a
/// generic `T: Cost` with no `Differentiable` bound.
trait Cost {
    #[differentiable]
    fn cost(&self, x: &[f64]) -> f64;
}

struct Data {
    targets: Vec<f64>,
}

impl Cost for Data {
    #[differentiable]
    fn cost(&self, x: &[f64]) -> f64 {
        x.iter()
            .zip(&self.targets)
            .map(|(a, t)| (a - t) * (a - t))
            .sum()
    }
}

fn gradient_of<T: Cost>(c: &T, x: &[f64]) -> (f64, Vec<f64>) {
    value_with_gradient!(at: x, of: |p: &[f64]| c.cost(p))
}

#[test]
fn a_trait_implemented_by_a_type_that_is_not_differentiable() {
    let d = Data {
        targets: vec![1.0, 2.0],
    };
    let (v, g) = gradient_of(&d, &[0.0, 3.0]);
    close(v, d.cost(&[0.0, 3.0]));
    close(g[0], -2.0);
    close(g[1], 2.0);
}
