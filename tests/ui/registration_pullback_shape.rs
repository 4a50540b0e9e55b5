//! A registered pullback returning two tangents for a function of one parameter.
use diff::prelude::*;

fn h(x: f64) -> f64 {
    x * x
}

#[derivative(of = h)]
fn h_vjp(x: f64) -> (f64, impl FnOnce(f64) -> (f64, f64)) {
    (h(x), move |dy| (2.0 * x * dy, 0.0))
}

fn main() {}
