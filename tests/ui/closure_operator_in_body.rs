//! `differential!` in a differentiable body: its result is a closure, which the body's
//! derivative cannot be taken through. One error, at the operator, saying what to write
//! instead; none at the call of the closure.
use diff::prelude::*;

#[differentiable]
fn half_sum_sq(x: &[f64]) -> f64 {
    0.5 * x.iter().map(|v| v * v).sum::<f64>()
}

#[differentiable]
fn along(x: Vec<f64>, v: &[f64]) -> f64 {
    let df = differential!(at: &x, of: half_sum_sq);
    df(v.to_vec())
}

fn main() {
    let v = vec![3.0, 2.0, 1.0];
    let _ = gradient!(at: vec![0.0, 1.0, 2.0], of: |p: Vec<f64>| along(p, &v));
}
