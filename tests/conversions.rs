//! Conversions of active values between float types, `x.into()` and `f64::from(x)`: the
//! derivative is the conversion of the tangent, in both modes.
mod common;
use common::assert_close;
use diff::prelude::*;

#[differentiable]
fn widened_by_into(x: f32) -> f64 {
    let y: f64 = x.into();
    y * y.sin()
}

#[differentiable]
fn widened_by_from(x: f32, w: f64) -> f64 {
    f64::from(x) * w + f64::from(x * x)
}

#[differentiable]
fn damped(y: f64) -> f64 {
    (-y).exp()
}

#[differentiable]
fn widened_as_an_argument(x: f32) -> f64 {
    damped(x.into())
}

#[test]
fn into_and_from() {
    let x = 1.25f32;
    let xf = f64::from(x);
    let (v, g) = value_with_gradient!(at: x, of: widened_by_into);
    assert_eq!(v, widened_by_into(x));
    // y sin y with y = x: sin y + y cos y
    let expected = xf.sin() + xf * xf.cos();
    assert_close(f64::from(g), expected, 1e-6, "d/dx x sin x through into");
    let d = first_derivative!(at: x, of: widened_by_into);
    assert_close(d, expected, 1e-12, "forward, into");

    let (dx, dw) = gradient!(at: (x, 0.5), of: widened_by_from);
    assert_close(f64::from(dx), 0.5 + 2.0 * xf, 1e-6, "d/dx, from");
    assert_close(dw, xf, 1e-12, "d/dw, from");
    let d = first_derivative!(at: x, of: |x| widened_by_from(x, 0.5));
    assert_close(d, 0.5 + 2.0 * xf, 1e-6, "forward, from");

    let g = gradient!(at: x, of: widened_as_an_argument);
    assert_close(f64::from(g), -(-xf).exp(), 1e-6, "into as an argument");
    let d = first_derivative!(at: x, of: widened_as_an_argument);
    assert_close(d, -(-xf).exp(), 1e-12, "forward, into as an argument");
}
