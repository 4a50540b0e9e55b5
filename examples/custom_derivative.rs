//! A registered derivative: softplus(x) = ln(1 + eˣ) has the derivative 1 / (1 + e⁻ˣ), a
//! form that stays finite for any x (eˣ / (1 + eˣ) is NaN at x = 800).
//! `#[derivative(of = softplus)]` registers that pullback; every differentiable function
//! calling `softplus` uses it, and forward mode is derived from it.
//!
//! Run: `cargo run --release --example custom_derivative`
use diff::prelude::*;

fn softplus(x: f64) -> f64 {
    if x > 30.0 {
        x + (-x).exp().ln_1p()
    } else {
        x.exp().ln_1p()
    }
}

#[derivative(of = softplus)]
fn softplus_vjp(x: f64) -> (f64, impl FnOnce(f64) -> f64) {
    let slope = 1.0 / (1.0 + (-x).exp());
    (softplus(x), move |dy| dy * slope)
}

/// A loss calling the registered function.
#[differentiable]
fn loss(w: f64, x: f64) -> f64 {
    softplus(w * x) - 0.5 * w
}

pub fn main() {
    for x in [-800.0f64, -2.0, 0.0, 2.0, 800.0] {
        let (value, slope) = value_with_gradient!(at: x, of: softplus);
        let forward = first_derivative!(at: x, of: softplus);
        let expected = 1.0 / (1.0 + (-x).exp());
        println!("softplus({x:>6}) = {value:<22} slope {slope:<22} forward {forward}");
        assert!(slope.is_finite() && (slope - expected).abs() < 1e-15);
        assert_eq!(forward, slope);
    }
    let (dw, dx) = gradient!(at: (0.5, 3.0), of: loss);
    let s = 1.0 / (1.0 + (-1.5f64).exp());
    println!(
        "loss gradient: ({dw}, {dx}), by hand ({}, {})",
        3.0 * s - 0.5,
        0.5 * s
    );
    assert!((dw - (3.0 * s - 0.5)).abs() < 1e-12 && (dx - 0.5 * s).abs() < 1e-12);
}
