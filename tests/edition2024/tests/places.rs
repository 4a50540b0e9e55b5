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
