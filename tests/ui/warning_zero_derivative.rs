// The macro warns where Swift does (here denied, to show the messages): a function whose
// result does not depend on what it differentiates, and a `wrt` parameter it ignores.
#![deny(deprecated)]
use diff::prelude::*;

#[differentiable]
fn constant(x: f64) -> f64 {
    let _ = x;
    3.0
}

#[differentiable(wrt = (x, y))]
fn ignores_y(x: f64, y: f64) -> f64 {
    x * 2.0 + no_derivative(y)
}

fn main() {
    let _ = gradient!(at: 1.0, of: constant);
    let _ = gradient!(at: (1.0, 2.0), of: ignores_y);
}
