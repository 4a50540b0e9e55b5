//! An iterator over active values kept in a variable, consumed later: refused once, at
//! the chain's start, with what to write instead (was a type error naming generated
//! methods, `__vjp_iter`, at each method of the chain).
use diff::prelude::*;

#[differentiable]
fn largest_exp(x: &[f64]) -> f64 {
    let largest = x.iter().copied().max_by(f64::total_cmp);
    largest.map_or(0.0, f64::exp)
}

fn main() {
    let _ = largest_exp(&[1.0, 2.0]);
}
