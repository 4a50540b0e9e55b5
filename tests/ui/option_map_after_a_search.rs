//! `.map(..)` on the `Option` a search returns is not an array's `map`: the chain is
//! refused at the search, with what to write instead (was a type error in generated code).
use diff::prelude::*;

#[differentiable]
fn first_large(x: &[f64]) -> f64 {
    x.iter().position(|&v| v > 1.0).map(|i| x[i]).unwrap_or(0.0)
}

fn main() {
    let _ = first_large(&[1.0, 2.0]);
}
