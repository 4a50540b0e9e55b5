//! The generated code's own names never capture the user's: a closure reading variables
//! named as the macros' locals are (`s`, `seed`, `linear_map`, `t_1`, ..), a nested
//! operator's closure reading a body variable `t` (whose generated name is the nested
//! expansion's temporaries'), a format string naming locals inline.
mod common;
use common::assert_close;
use diff::prelude::*;

#[derive(Clone, Copy)]
pub struct Scaled {
    pub k: f64,
}

impl Scaled {
    #[differentiable]
    pub fn f(&self, q: &[f64]) -> f64 {
        self.k * q[0] * q[0] * q[1]
    }
}

/// Captured variables named as the generated locals, each of a value that makes a wrong
/// binding visible: the product of them all is 1 only with the user's values.
#[test]
fn captured_names_like_the_generated_ones() {
    let (s, seed, linear_map, d, whole, parts) = (2.0, 3.0, 5.0, 7.0, 11.0, 13.0);
    let (g0, result, t_1, a_x_0, x, dx) = (17.0, 19.0, 23.0, 29.0, 31.0, 37.0);
    let k = s * seed * linear_map / d / whole * parts / g0 / result * t_1 / a_x_0 / x * dx;
    let p = vec![1.5, 2.5];
    let f = |p: &[f64]| p[0] * p[1] * k;
    let (v, g) = value_with_gradient!(at: p.clone(), of: |p: Vec<f64>| p[0] * p[1] * s * seed * linear_map / d / whole * parts / g0 / result * t_1 / a_x_0 / x * dx);
    assert_close(v, f(&p), 1e-12, "value");
    assert_close(g[0], p[1] * k, 1e-12, "reverse");
    assert_close(g[1], p[0] * k, 1e-12, "reverse");
    let (v, df) = value_with_differential!(at: p.clone(), of: |p: Vec<f64>| p[0] * p[1] * s * seed * linear_map / d / whole * parts / g0 / result * t_1 / a_x_0 / x * dx);
    assert_close(v, f(&p), 1e-12, "forward value");
    assert_close(df(vec![1.0, 0.0]), p[1] * k, 1e-12, "forward");
    let h = hessian!(at: p.clone(), of: |p: Vec<f64>| p[0] * p[1] * s * seed * linear_map / d / whole * parts / g0 / result * t_1 / a_x_0 / x * dx);
    assert_close(h[0][1], k, 1e-12, "hessian");
    assert_close(h[0][0], 0.0, 1e-12, "hessian");
    // A nested operator: the inner closure reads `s` and `seed`, as the pullback names
    // its adjoint and its seed.
    let m = Scaled { k: 3.0 };
    let hj = jacobian!(at: p.clone(), of: |q: Vec<f64>| gradient!(at: &q, of: |r: &[f64]| m.f(r) * s * seed));
    let c = 3.0 * s * seed;
    let expected = [[2.0 * c * p[1], 2.0 * c * p[0]], [2.0 * c * p[0], 0.0]];
    for i in 0..2 {
        for j in 0..2 {
            assert_close(
                hj[i][j],
                expected[i][j],
                1e-12,
                "nested jacobian of a gradient",
            );
        }
    }
}

#[differentiable]
fn linear(a: f64, t: f64, v: f64) -> f64 {
    t * v + a * v
}

/// d/dv (t v + a v) = t + a, through a gradient in the body reading the body's `t`.
#[differentiable]
fn pressure(a: f64, t: f64, v: f64) -> f64 {
    gradient!(at: v, of: |vv: f64| linear(a, t, vv))
}

#[test]
fn a_nested_operator_reading_a_body_variable_named_t() {
    let (a, t, v) = (1.0, 3.0, 0.5);
    assert_eq!(pressure(a, t, v), 4.0);
    let (value, g) = value_with_gradient!(at: (a, t, v), of: pressure);
    assert_eq!(value, 4.0);
    assert_eq!(g, (1.0, 1.0, 0.0));
    let (value, d) = value_with_derivative!(at: t, of: |tt: f64| pressure(a, tt, v));
    assert_eq!((value, d), (4.0, 1.0));
}

#[differentiable]
fn logged(x: f64) -> f64 {
    let s = x * x * x;
    let label = format!("cube {s:.3}");
    debug_assert!(s.is_finite(), "{label}: {s}");
    s + label.len() as f64 * 0.0
}

#[test]
fn format_strings_naming_locals_inline() {
    let (v, d) = value_with_derivative!(at: 2.0, of: logged);
    assert_eq!((v, d), (8.0, 12.0));
    assert_eq!(gradient!(at: 2.0, of: logged), 12.0);
    assert_eq!(second_derivative!(at: 2.0, of: logged), 12.0);
}

// ---------------------------------------------------------------------------------------
// `f64::powi(10.0, e)` with another trait's `powi` in scope (special's `Primitive`): the
// literal keeps the type the path names.

pub trait OwnPowi {
    fn powi(self, e: i32) -> Self;
}

impl OwnPowi for f64 {
    fn powi(self, e: i32) -> Self {
        f64::powi(self, e)
    }
}

#[differentiable]
fn tolerance_scaled(x: f64) -> f64 {
    let e = -3;
    let acu = if e > -30 { f64::powi(10.0, e) } else { 1e-30 };
    x * x * acu
}

#[test]
fn a_typed_path_call_of_a_literal() {
    let (v, d) = value_with_derivative!(at: 2.0, of: tolerance_scaled);
    assert_eq!(v, tolerance_scaled(2.0));
    assert_close(d, 4.0 * 1e-3, 1e-15, "d/dx x² 10⁻³");
}
