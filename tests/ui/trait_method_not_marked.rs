//! An implementation of a differentiable trait method that is not marked stops the build
//! at the implementation, under `cargo check` too.
use diff::prelude::*;

trait Shape {
    #[differentiable]
    fn area(&self, s: f64) -> f64;
}

#[derive(Differentiable, Clone)]
struct Square {
    k: f64,
}

impl Shape for Square {
    fn area(&self, s: f64) -> f64 {
        self.k * s * s
    }
}

fn main() {}
