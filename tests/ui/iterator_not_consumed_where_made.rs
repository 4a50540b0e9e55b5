//! An iterator over active values kept in a variable and consumed other than as one
//! chain: refused once, at the chain's start, with what to write instead (was a type
//! error naming generated methods, `__vjp_iter`, at each method of the chain).
use diff::prelude::*;

#[differentiable]
fn first_two(x: &[f64]) -> f64 {
    let mut items = x.iter().copied();
    let a = items.next().unwrap_or(0.0);
    let b = items.next().unwrap_or(1.0);
    a * b
}

fn main() {
    let _ = first_two(&[1.0, 2.0]);
}
