//! A registered differential of a two-parameter function taking one tangent.
use diff::prelude::*;

fn h(x: f64, y: f64) -> f64 {
    x * y
}

#[derivative(of = h, jvp)]
fn h_jvp(x: f64, y: f64) -> (f64, impl FnOnce(f64) -> f64) {
    (h(x, y), move |dx| dx * y)
}

fn main() {}
