#![allow(clippy::assign_op_pattern)]
use diff::prelude::*;

fn h(x: f64) -> f64 {
    x.sin() * 3.0
}

#[derivative(of = h)]
fn h_vjp(x: f64) -> (f64, impl FnOnce(f64) -> f64) {
    // Deliberately twice the true derivative, to prove the registration is used.
    (h(x), move |dy| dy * 2.0 * 3.0 * x.cos())
}

mod other {
    pub fn g(x: f64, y: f64) -> f64 {
        x * y
    }
}
use other::g;

#[derivative(of = g, jvp)]
fn g_jvp(x: f64, y: f64) -> (f64, impl FnOnce((f64, f64)) -> f64) {
    (g(x, y), move |(dx, dy)| 10.0 * (dx * y + x * dy))
}

#[derivative(of = f64::cbrt)]
fn cbrt_vjp(x: f64) -> (f64, impl FnOnce(f64) -> f64) {
    let y = x.cbrt();
    (y, move |dy| 5.0 * dy / (3.0 * y * y))
}

#[differentiable]
fn uses(x: f64) -> f64 {
    let mut acc = 0.0;
    for _ in 0..3 {
        if x > 0.0 {
            acc += h(x);
        } else {
            acc -= h(x);
        }
    }
    acc + g(x, 2.0) + x.cbrt()
}

#[test]
fn registrations_are_used() {
    let x = 0.7;
    let g_rev = gradient!(at: x, of: uses);
    // h: 3 * 2 * 3cos; g: forward-only registration scaled by 10, derived pullback: 10*2; cbrt: 5x
    let expect = 3.0 * 2.0 * 3.0 * x.cos() + 20.0 + 5.0 / (3.0 * x.cbrt() * x.cbrt());
    assert!((g_rev - expect).abs() < 1e-12, "{g_rev} vs {expect}");
    // Forward mode: h's differential is derived from its pullback (scaled by 2), g's is
    // registered, and cbrt's comes from diff-std's exact rule (only its VJP is registered).
    let g_fwd = first_derivative!(at: x, of: uses);
    let expect_fwd = 3.0 * 2.0 * 3.0 * x.cos() + 20.0 + 1.0 / (3.0 * x.cbrt() * x.cbrt());
    assert!(
        (g_fwd - expect_fwd).abs() < 1e-12,
        "{g_fwd} vs {expect_fwd}"
    );
    assert_eq!(gradient!(at: 1.0, of: h), 6.0 * 1f64.cos());
}

#[differentiable]
fn only_cbrt(x: f64) -> f64 {
    x.cbrt()
}

#[test]
fn cbrt_alone() {
    let x = 0.7f64;
    let a = gradient!(at: x, of: only_cbrt);
    let b = first_derivative!(at: x, of: only_cbrt);
    let c = gradient!(at: x, of: |x| g(x, 2.0));
    let d = gradient!(at: x, of: |x| h(x));
    assert!((a - 5.0 / (3.0 * x.cbrt() * x.cbrt())).abs() < 1e-12);
    assert!((b - 1.0 / (3.0 * x.cbrt() * x.cbrt())).abs() < 1e-12);
    assert_eq!(c, 20.0);
    assert!((d - 6.0 * x.cos()).abs() < 1e-12);
}

#[differentiable]
fn softplus(x: f64) -> f64 {
    (1.0 + x.exp()).ln()
}

#[derivative(of = softplus)]
fn softplus_vjp(x: f64) -> (f64, impl FnOnce(f64) -> f64) {
    // Numerically stable: sigmoid(x), scaled by 3 to prove the registration wins.
    let s = 1.0 / (1.0 + (-x).exp());
    (softplus(x), move |dy| 3.0 * dy * s)
}

#[test]
fn registration_takes_precedence_over_the_body() {
    let x = 0.4f64;
    let s = 1.0 / (1.0 + (-x).exp());
    assert!((gradient!(at: x, of: softplus) - 3.0 * s).abs() < 1e-12);
    assert!((gradient!(at: x, of: |x| 2.0 * softplus(x)) - 6.0 * s).abs() < 1e-12);
}

pub trait MyErf {
    fn my_erf(self) -> f64;
}
impl MyErf for f64 {
    fn my_erf(self) -> f64 {
        self.tanh()
    }
}
#[derivative(of = f64::my_erf)]
fn erf_vjp(x: f64) -> (f64, impl FnOnce(f64) -> f64) {
    let y = x.my_erf();
    (y, move |dy| 2.0 * dy * (1.0 - y * y))
}
#[differentiable]
fn uses_erf(x: f64) -> f64 {
    x.my_erf() * 3.0
}
/// A method of a user trait on `f64`, unknown to diff-std: both modes from one registration.
#[test]
fn user_scalar_method_registration() {
    let x = 0.4f64;
    let e = 6.0 * (1.0 - x.tanh() * x.tanh());
    assert!((gradient!(at: x, of: uses_erf) - e).abs() < 1e-12);
    assert!((first_derivative!(at: x, of: uses_erf) - e).abs() < 1e-12);
}
