//! Assigning to a field of a local struct (`p.x = ...`) in a differentiable body.
use diff::prelude::*;

#[derive(Differentiable, Clone, Debug)]
struct Point {
    x: f64,
    y: f64,
}

#[differentiable]
fn f(x: f64, y: f64) -> f64 {
    let mut p = Point { x, y };
    p.x = p.x * 2.0;
    p.x + p.y
}

fn main() {}
