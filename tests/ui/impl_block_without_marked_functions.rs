//! `#[differentiable]` on an `impl` block differentiates the functions marked in it, or
//! with none marked, those whose result can carry a derivative: with neither, the macro
//! says which to mark.
use diff::prelude::*;

#[derive(Clone, Copy, Differentiable)]
struct A {
    v: f64,
}

#[differentiable]
impl A {
    fn is_positive(&self) -> bool {
        self.v > 0.0
    }

    fn describe(&self) -> String {
        format!("A({})", self.v)
    }
}

fn main() {
    let a = A { v: 1.0 };
    let _ = (a.is_positive(), a.describe());
}
