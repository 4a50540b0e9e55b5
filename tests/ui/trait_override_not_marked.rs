//! An implementation that overrides a provided differentiable method without marking it
//! would keep the provided body's derivative: it stops the build at the override.
use diff::prelude::*;

#[differentiable]
trait Objective {
    #[differentiable]
    fn value(&self, x: f64) -> f64;
    #[differentiable]
    fn doubled(&self, x: f64) -> f64 {
        2.0 * self.value(x)
    }
}

#[derive(Differentiable, Clone)]
struct Model {
    k: f64,
}

impl Objective for Model {
    #[differentiable]
    fn value(&self, x: f64) -> f64 {
        self.k * x * x
    }
    fn doubled(&self, x: f64) -> f64 {
        x.sin()
    }
}

fn main() {}
