//! Registering a derivative for a generic function `fn h<T: Float>(x: T) -> T`.
//!
//! Every registered derivative is wrong by a distinctive factor.
//!
//! The registrations and the generic callers carry `T: Float + InnerProduct` rather than
//! `T: Float` alone: the companions of the derived mode call `dot_opt`, which needs
//! `InnerProduct`, and `Float` does not imply it (bugs-registration.md, "generic
//! registration needs InnerProduct").
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
