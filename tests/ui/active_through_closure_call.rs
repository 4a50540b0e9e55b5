//! An active value flows through a call of a closure passed in as a parameter, which the
//! macro cannot look into.
use diff::prelude::*;

#[differentiable]
fn f<F: Fn(f64) -> f64>(x: f64, g: F) -> f64 {
    g(x) + 1.0
}

fn main() {}
