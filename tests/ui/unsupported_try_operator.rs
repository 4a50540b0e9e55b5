//! The `?` operator in a differentiable body: the macro names the construct.
use diff::prelude::*;

#[differentiable]
fn f(x: f64) -> f64 {
    let y = Some(x * 2.0)?;
    y + x
}

fn main() {}
