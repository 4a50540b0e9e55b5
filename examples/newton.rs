//! Newton's method twice: a root of f(x) = x³ − 2x − 5 with `value_with_derivative!`
//! (x ← x − f/f′), and a minimum of g(x) = x⁴ − 3x³ + 2 with
//! `value_with_second_derivative!` (x ← x − g′/g″).
//!
//! Run: `cargo run --release --example newton`
use diff::prelude::*;

#[differentiable]
fn f(x: f64) -> f64 {
    x * x * x - 2.0 * x - 5.0
}

/// Generic over its scalar, so that its second derivative can run on dual numbers.
#[differentiable]
fn g<T: Float>(x: T) -> T {
    let three = T::from(3.0).unwrap();
    x.powi(4) - three * x.powi(3) + T::from(2.0).unwrap()
}

pub fn main() {
    let mut x = 2.0;
    for step in 1..=6 {
        let (fx, slope) = value_with_derivative!(at: x, of: f);
        x -= fx / slope;
        println!("root, step {step}: x = {x:.15}, f(x) = {:.2e}", f(x));
    }
    assert!(f(x).abs() < 1e-12, "Newton's method converges to the root");

    let mut y = 3.0;
    for step in 1..=8 {
        let (_, d1, d2) = value_with_second_derivative!(at: y, of: g);
        y -= d1 / d2;
        println!("minimum, step {step}: x = {y:.15}, g(x) = {:.6}", g(y));
    }
    // g′(x) = 4x³ − 9x² = x²(4x − 9): the minimum is at x = 9/4.
    assert!((y - 2.25).abs() < 1e-12, "Newton's method converges to 9/4");
    assert!(second_derivative!(at: y, of: g) > 0.0, "a minimum");
}
