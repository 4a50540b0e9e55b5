//! Registering a derivative for a generic function `fn h<T: Float>(x: T) -> T`.
//!
//! Every registered derivative is wrong by a distinctive factor.
//!
//! Some registrations and generic callers carry `T: Float + InnerProduct`, as users wrote
//! them when the derived modes needed it; those below the second-order section carry
//! `T: Float` alone (the companions ask for `diff::Real`, which the scalars are).
#![allow(clippy::assign_op_pattern)]
#[macro_use]
mod common;
use diff::prelude::*;
use diff::InnerProduct;

fn h<T: Float>(x: T) -> T {
    x * x * x
}

#[derivative(of = h)]
fn h_vjp<T: Float + InnerProduct>(x: T) -> (T, impl FnOnce(T) -> T) {
    // 3x^2, scaled by 2.
    let three = T::from(3.0).unwrap();
    let two = T::from(2.0).unwrap();
    (h(x), move |dy| two * dy * three * x * x)
}

#[differentiable]
fn uses_h<T: Float + InnerProduct>(x: T) -> T {
    h(x) + x
}

#[differentiable]
fn uses_h_f64(x: f64) -> f64 {
    let mut acc = 0.0;
    for _ in 0..3 {
        if x > 0.0 {
            acc = acc + h(x);
        } else {
            acc = acc - h(x);
        }
    }
    acc
}

#[test]
fn generic_function_reverse_mode() {
    let x = 1.5f64;
    assert_eq!(uses_h(x), x * x * x + x);
    assert_eq!(gradient!(at: x, of: h), 6.0 * x * x);
    assert_eq!(gradient!(at: x, of: h::<f64>), 6.0 * x * x);
    assert_eq!(gradient!(at: x, of: uses_h), 6.0 * x * x + 1.0);
    assert_eq!(gradient!(at: x, of: uses_h::<f64>), 6.0 * x * x + 1.0);
    assert_eq!(gradient!(at: x, of: uses_h_f64), 18.0 * x * x);
    assert_eq!(gradient!(at: -x, of: uses_h_f64), -18.0 * x * x);
    let y = 1.5f32;
    assert_eq!(gradient!(at: y, of: uses_h::<f32>), 6.0 * y * y + 1.0);
    let (v, pb) = value_with_pullback!(at: x, of: h);
    assert_eq!(v, x * x * x);
    assert_eq!(pb(0.5), 3.0 * x * x);
}

#[test]
fn generic_function_forward_mode_derived() {
    let x = 1.5f64;
    assert_eq!(first_derivative!(at: x, of: h), 6.0 * x * x);
    assert_eq!(
        first_derivative!(at: x, of: uses_h::<f64>),
        6.0 * x * x + 1.0
    );
    assert_eq!(first_derivative!(at: x, of: uses_h_f64), 18.0 * x * x);
    let y = 1.5f32;
    assert_eq!(
        first_derivative!(at: y, of: uses_h::<f32>),
        6.0 * y * y + 1.0
    );
}

fn g<T: Float>(x: T) -> T {
    x.sin()
}

#[derivative(of = g, jvp)]
fn g_jvp<T: Float + InnerProduct>(x: T) -> (T, impl FnOnce(T) -> T) {
    // cos x, scaled by 10.
    let ten = T::from(10.0).unwrap();
    (g(x), move |dx| ten * dx * x.cos())
}

#[differentiable]
fn uses_g<T: Float + InnerProduct>(x: T) -> T {
    g(x) * x
}

#[test]
fn generic_jvp_registration_in_both_modes() {
    let x = 0.7f64;
    let expect = 10.0 * x.cos() * x + x.sin();
    assert_eq!(uses_g(x), x.sin() * x);
    assert_close!(first_derivative!(at: x, of: uses_g::<f64>), expect);
    assert_close!(gradient!(at: x, of: uses_g::<f64>), expect);
    assert_close!(gradient!(at: x, of: g), 10.0 * x.cos());
    assert_close!(first_derivative!(at: x, of: g::<f64>), 10.0 * x.cos());
}

// ---------------------------------------------------------------------------------------
// Second order through a mode derived from a registration generic over its scalar: the
// pairing that derives it is taken in the scalar type (on dual numbers, not `f64`).

fn weighted<T: Float>(a: T, b: T) -> T {
    a * b.exp()
}

/// Forward mode only, two inputs: the reverse mode is derived, one differential each.
#[derivative(of = weighted, jvp)]
fn weighted_jvp<T: Float>(a: T, b: T) -> (T, impl FnOnce((T, T)) -> T) {
    let e = b.exp();
    (a * e, move |(da, db)| da * e + db * a * e)
}

fn cubed_exp<T: Float>(x: T) -> T {
    x * x * x * x.exp()
}

/// Reverse mode only: forward mode is derived (`dx -> <pullback(1), dx>`).
#[derivative(of = cubed_exp)]
fn cubed_exp_vjp<T: Float>(x: T) -> (T, impl FnOnce(T) -> T) {
    let e = x.exp();
    (x * x * x * e, move |dy| {
        dy * (T::from(3.0).unwrap() * x * x + x * x * x) * e
    })
}

#[differentiable]
fn through_weighted(x: f64, y: f64) -> f64 {
    weighted(y, x)
}

#[differentiable]
fn through_cubed_exp(x: f64) -> f64 {
    cubed_exp(x) * 2.0
}

#[test]
fn second_order_through_derived_modes() {
    let (x, y) = (0.7f64, -0.4f64);
    let e = x.exp();
    // weighted(y, x) = y e^x: hessian in (x, y) is [[y e^x, e^x], [e^x, 0]].
    let h = hessian!(at: (x, y), of: through_weighted);
    let want = [[y * e, e], [e, 0.0]];
    for i in 0..2 {
        for j in 0..2 {
            assert!((h[i][j] - want[i][j]).abs() < 1e-12, "{h:?}");
        }
    }
    let d2 = second_derivative!(at: x, of: |t| weighted(y, t));
    assert!((d2 - y * e).abs() < 1e-12, "{d2}");
    // 2 x^3 e^x: second derivative 2 e^x (x^3 + 6 x^2 + 6 x).
    let want = 2.0 * e * (x * x * x + 6.0 * x * x + 6.0 * x);
    let (v, d1, d2) = value_with_second_derivative!(at: x, of: through_cubed_exp);
    assert_eq!(v, through_cubed_exp(x));
    assert!(
        (d1 - 2.0 * e * (x * x * x + 3.0 * x * x)).abs() < 1e-12,
        "{d1}"
    );
    assert!((d2 - want).abs() < 1e-12, "{d2} {want}");
    // Forward over the derived forward mode.
    let d2 = first_derivative!(at: x, of: |t| first_derivative!(at: t, of: through_cubed_exp));
    assert!((d2 - want).abs() < 1e-12, "{d2} {want}");
    // Forward over reverse.
    let d2 = first_derivative!(at: x, of: |t| gradient!(at: t, of: through_cubed_exp));
    assert!((d2 - want).abs() < 1e-12, "{d2} {want}");
}
