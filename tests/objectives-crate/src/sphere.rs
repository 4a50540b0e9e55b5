use diff::prelude::*;

/// The sum of squares.
#[differentiable]
pub fn sphere(x: &[f64]) -> f64 {
    x.iter().map(|v| v * v).sum()
}
