use diff::prelude::*;
#[differentiable]
fn largest_doubled(v: &[f64]) -> f64 {
    let largest = v.iter().max_by(|a, b| a.total_cmp(b));
    largest.map(|m| m * 2.0).unwrap_or(0.0)
}
fn main() {
    let _ = gradient!(at: &[1.0, 2.0][..], of: largest_doubled);
}
