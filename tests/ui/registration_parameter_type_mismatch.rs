//! A registered derivative whose parameter type is not the original's.
use diff::prelude::*;

fn h(x: f64) -> f64 {
    x * x
}

#[derivative(of = h)]
fn h_vjp(x: f32) -> (f32, impl FnOnce(f32) -> f32) {
    (x * x, move |dy| 2.0 * x * dy)
}

fn main() {}
