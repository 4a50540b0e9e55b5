//! `let ... else` binding by `ref` in a differentiable body: the macro names the construct
//! and what to write instead.
use diff::prelude::*;

#[differentiable]
fn f(x: f64) -> f64 {
    let Some(ref y) = Some(x * 2.0) else {
        panic!("none")
    };
    y + x
}

fn main() {}
