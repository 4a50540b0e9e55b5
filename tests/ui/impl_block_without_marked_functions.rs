//! `#[differentiable]` on an `impl` block differentiates the functions marked in it: with
//! none marked, the macro says which to mark.
use diff::prelude::*;

#[derive(Clone, Copy, Differentiable)]
struct A {
    v: f64,
}

#[differentiable]
impl A {
    fn double(self) -> f64 {
        self.v * 2.0
    }
}

fn main() {
    let _ = A { v: 1.0 }.double();
}
