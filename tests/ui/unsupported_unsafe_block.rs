//! An `unsafe` block in a differentiable body: the macro names the construct.
use diff::prelude::*;

#[differentiable]
fn f(x: f64) -> f64 {
    let y = unsafe { std::ptr::read(&x) };
    y * x
}

fn main() {}
