//! Quick start: mark a function `#[differentiable]`, ask for its gradient, and check it
//! against the formula worked out by hand.
//!
//! Run: `cargo run --example quickstart`
use diff::prelude::*;

/// f(x, y) = x·y + sin(x), so ∂f/∂x = y + cos(x) and ∂f/∂y = x.
#[differentiable]
fn f(x: f64, y: f64) -> f64 {
    x * y + x.sin()
}

fn main() {
    let (x, y) = (3.0, 4.0);

    // Reverse mode: the value and both partial derivatives in one call.
    let (value, (dx, dy)) = value_with_gradient!(at: (x, y), of: f);
    println!("f({x}, {y}) = {value}");
    println!("gradient  = ({dx}, {dy})");
    println!("by hand   = ({}, {})", y + x.cos(), x);
    assert_eq!(value, f(x, y), "the original function is left as it was");
    assert!((dx - (y + x.cos())).abs() < 1e-12);
    assert!((dy - x).abs() < 1e-12);

    // Forward mode, on a closure literal: d/dt t³ = 3t².
    let slope = first_derivative!(at: 2.0_f64, of: |t| t * t * t);
    println!("d/dt t^3 at t = 2: {slope}");
    assert!((slope - 12.0).abs() < 1e-12);

    println!("ok: both match the formulas");
}
