//! A registration naming a function that does not exist.
use diff::prelude::*;

#[derivative(of = no_such_function)]
fn h_vjp(x: f64) -> (f64, impl FnOnce(f64) -> f64) {
    (x * x, move |dy| 2.0 * x * dy)
}

fn main() {}
