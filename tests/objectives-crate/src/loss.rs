//! Losses, re-exported by name at the crate's root.
use diff::prelude::*;

/// Huber's loss of a residual `r` with threshold `delta`.
#[differentiable]
pub fn huber(r: f64, delta: f64) -> f64 {
    if r.abs() <= delta {
        0.5 * r * r
    } else {
        delta * (r.abs() - 0.5 * delta)
    }
}

/// The mean of squares.
#[differentiable]
pub fn mean_square(r: &[f64]) -> f64 {
    r.iter().map(|v| v * v).sum::<f64>() / r.len() as f64
}
