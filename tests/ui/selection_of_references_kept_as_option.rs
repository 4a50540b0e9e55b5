use diff::prelude::*;
// An `Option` of a reference read twice: it is not written where it is used.
#[differentiable]
fn largest_doubled(v: &[f64]) -> f64 {
    let largest = v.iter().max_by(|a, b| a.total_cmp(b));
    let k = if largest.is_some() { 2.0 } else { 0.0 };
    largest.map(|m| m * k).unwrap_or(0.0)
}
fn main() {
    let _ = gradient!(at: &[1.0, 2.0][..], of: largest_doubled);
}
