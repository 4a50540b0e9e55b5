//! A registered derivative that returns the pullback alone, not `(value, pullback)`.
use diff::prelude::*;

fn h(x: f64) -> f64 {
    x * x
}

#[derivative(of = h)]
fn h_vjp(x: f64) -> impl FnOnce(f64) -> f64 {
    move |dy| 2.0 * x * dy
}

fn main() {}
