//! An `async` block in a differentiable body: the macro names the construct.
use diff::prelude::*;

#[differentiable]
fn f(x: f64) -> f64 {
    let fut = async { x * 2.0 };
    drop(fut);
    x
}

fn main() {}
