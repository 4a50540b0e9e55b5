//! `#[differentiable]` on a method of `impl Trait for Type` whose trait does not mark the
//! method: one error at the method, naming the two ways out.
use diff::prelude::*;

trait Objective {
    fn value(&self, x: f64) -> f64;
}

struct Model {
    k: f64,
}

impl Objective for Model {
    #[differentiable]
    fn value(&self, x: f64) -> f64 {
        self.k * x * x
    }
}

fn main() {
    let m = Model { k: 2.0 };
    let _ = m.value(1.0);
}
