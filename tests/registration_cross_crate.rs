//! Registering derivatives for functions of another crate (tests/helper-crate, which does
//! not depend on `diff`).
//!
//! Every registered derivative is wrong by a distinctive factor.
#![allow(clippy::assign_op_pattern)]
#[macro_use]
mod common;
use diff::prelude::*;
use diff_registration_helper::{bump, mul, nested};

#[derivative(of = bump)]
fn bump_vjp(x: f64) -> (f64, impl FnOnce(f64) -> f64) {
    // 2x, scaled by 10.
    (bump(x), move |dy| 10.0 * dy * 2.0 * x)
}

#[derivative(of = mul, jvp)]
fn mul_jvp(x: f64, y: f64) -> (f64, impl FnOnce((f64, f64)) -> f64) {
    // (y, x), scaled by (2, 3).
    (mul(x, y), move |(dx, dy)| 2.0 * dx * y + 3.0 * dy * x)
}

#[differentiable]
fn uses_helper(x: f64, y: f64) -> f64 {
    bump(x) + mul(x, y)
}

#[test]
fn function_of_another_crate() {
    let (x, y) = (0.5, 4.0);
    let (gx, gy) = gradient!(at: (x, y), of: uses_helper);
    assert_close!(gx, 20.0 * x + 2.0 * y);
    assert_close!(gy, 3.0 * x);
    assert_close!(gradient!(at: x, of: bump), 20.0 * x);
    assert_close!(first_derivative!(at: x, of: bump), 20.0 * x);
    let df = differential!(at: (x, y), of: uses_helper);
    assert_close!(df((1.0, 0.0)), 20.0 * x + 2.0 * y);
    let df = differential!(at: (x, y), of: uses_helper);
    assert_close!(df((0.0, 1.0)), 3.0 * x);
    let (v, pb) = value_with_pullback!(at: (x, y), of: mul);
    assert_close!(v, x * y);
    let (gx, gy) = pb(1.0);
    assert_close!(gx, 2.0 * y);
    assert_close!(gy, 3.0 * x);
}

mod regs {
    use diff::prelude::*;
    use diff_registration_helper::nested::wave;

    #[derivative(of = wave)]
    pub fn wave_vjp(x: f64) -> (f64, impl FnOnce(f64) -> f64) {
        // cos x, scaled by 5.
        (wave(x), move |dy| 5.0 * dy * x.cos())
    }
}

mod user {
    use super::regs::*;
    use diff::prelude::*;
    use diff_registration_helper::nested::wave;

    #[differentiable]
    pub fn f(x: f64) -> f64 {
        wave(x) * wave(x)
    }
}

#[test]
fn function_of_another_crate_registered_in_another_module() {
    let x = 0.3;
    let expect = 2.0 * x.sin() * 5.0 * x.cos();
    assert_close!(gradient!(at: x, of: user::f), expect);
    assert_close!(first_derivative!(at: x, of: user::f), expect);
    let _ = nested::wave(x);
}
