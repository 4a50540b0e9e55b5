//! Two registrations of the same mode for the same function in one module.
use diff::prelude::*;

fn h(x: f64) -> f64 {
    x * x
}

#[derivative(of = h)]
fn h_vjp(x: f64) -> (f64, impl FnOnce(f64) -> f64) {
    (h(x), move |dy| 2.0 * x * dy)
}

#[derivative(of = h)]
fn h_vjp_again(x: f64) -> (f64, impl FnOnce(f64) -> f64) {
    (h(x), move |dy| 2.0 * x * dy)
}

fn main() {}
