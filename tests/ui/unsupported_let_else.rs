//! `let ... else` in a differentiable body: the macro names the construct.
use diff::prelude::*;

#[differentiable]
fn f(x: f64) -> f64 {
    let Some(y) = Some(x * 2.0) else {
        panic!("none")
    };
    y + x
}

fn main() {}
