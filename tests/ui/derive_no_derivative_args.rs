//! `#[no_derivative]` is a bare marker on a field.
use diff::prelude::*;

#[derive(Differentiable)]
struct Model {
    w: f64,
    #[no_derivative(always)]
    step: usize,
}

fn main() {}
