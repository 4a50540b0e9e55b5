//! An active value flows through a call of a function with no derivative.
use diff::prelude::*;

fn helper(x: f64) -> f64 {
    x * x + 1.0
}

#[differentiable]
fn f(x: f64) -> f64 {
    helper(x) * 2.0
}

fn main() {}
