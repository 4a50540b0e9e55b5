//! An active value flows through an `as` cast.
use diff::prelude::*;

#[differentiable]
fn f(x: f64) -> f64 {
    let y = (x * 2.0) as f32;
    y as f64 + 1.0
}

fn main() {}
