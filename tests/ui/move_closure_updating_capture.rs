//! A `move` closure that updates its own copy of a captured variable: inlining the call
//! would update the variable itself, so it is refused.
use diff::prelude::*;

#[differentiable]
fn f(x: f64) -> f64 {
    let mut k = 1.0;
    let mut next = move |t: f64| {
        k += t;
        k
    };
    next(x) + k
}

fn main() {}
