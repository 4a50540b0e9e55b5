//! `wrt` names a parameter whose type carries no derivative.
use diff::prelude::*;

#[differentiable(wrt = (n))]
fn f(x: f64, n: usize) -> f64 {
    x * n as f64
}

fn main() {}
