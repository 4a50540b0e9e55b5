//! Conversions of active values between float types, `x.into()`, `f64::from(x)` and, for a
//! generic `T`, `T::from(x)` / `T::from_f64(x)`: the derivative is the conversion of the
//! tangent, in both modes.
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

/// `T::from(x)` and `T::from_f64(x)` of active values in a generic function: `NumCast` /
/// `FromPrimitive` conversions, whose derivative converts the tangent.
#[differentiable]
fn generic_conversions<T: Float + FromPrimitive>(x: T, c: f64) -> T {
    x * T::from(c).unwrap() + T::from_f64(2.5).unwrap() * x + T::from_f64(c * c).unwrap()
}

#[test]
fn generic_from_of_an_active_value() {
    let (v, (dx, dc)) = value_with_gradient!(at: (2.0, 3.0), of: generic_conversions);
    assert_eq!(v, 2.0 * 3.0 + 2.5 * 2.0 + 9.0);
    assert_close(dx, 3.0 + 2.5, 1e-12, "d/dx");
    assert_close(dc, 2.0 + 2.0 * 3.0, 1e-12, "d/dc");
    let df = differential!(at: (2.0f32, 3.0), of: generic_conversions);
    assert_close(f64::from(df((0.0, 1.0))), 8.0, 1e-6, "forward d/dc, f32");
}

/// `x.to_f64()` of an active value in a generic function (`ToPrimitive`, through the
/// `Float` bound): the conversion's derivative converts the tangent.
#[differentiable]
fn through_to_f64<T: Float>(x: T) -> T {
    let y = x.to_f64().unwrap() * 2.0;
    T::from(y).unwrap() * x
}

#[test]
fn to_f64_of_an_active_value() {
    // 2 x^2
    let (v, d) = value_with_gradient!(at: 1.5, of: through_to_f64);
    assert_eq!(v, through_to_f64(1.5));
    assert_close(d, 6.0, 1e-12, "d/dx");
    assert_close(
        first_derivative!(at: 1.5, of: through_to_f64),
        6.0,
        1e-12,
        "forward",
    );
    let d32 = gradient!(at: 1.5f32, of: through_to_f64);
    assert!((d32 - 6.0).abs() < 1e-5, "f32: {d32}");
}

/// A callee whose differentiated parameters mix `f64` and `f32`: its callers compile and
/// differentiate at first order (second order says why not, at run time).
mod parameters_mixing_f64_and_f32 {
    use super::common::assert_close;
    use diff::prelude::*;

    #[differentiable]
    fn h(x: f64, k: f32) -> f64 {
        x * x * x * f64::from(k)
    }

    #[differentiable]
    fn g(x: f64) -> f64 {
        h(x, 2.0) + x
    }

    #[test]
    fn first_order_through_the_caller() {
        let (v, d) = value_with_gradient!(at: 2.0, of: g);
        assert_close(v, g(2.0), 1e-15, "value");
        assert_close(d, 6.0 * 4.0 + 1.0, 1e-12, "6 x^2 k/... + 1");
        assert_close(first_derivative!(at: 2.0, of: g), 25.0, 1e-12, "forward");
        let (dx, dk) = gradient!(at: (2.0, 2.0_f32), of: h);
        assert_close(dx, 24.0, 1e-12, "dx");
        assert_close(f64::from(dk), 8.0, 1e-6, "dk");
        let refused = std::panic::catch_unwind(|| second_derivative!(at: 2.0, of: g));
        assert!(
            refused.is_err(),
            "second order of a mix of f64 and f32 is refused"
        );
    }
}
