//! An active value flows through a call of a local closure, which the macro does not
//! look into.
use diff::prelude::*;

#[differentiable]
fn f(x: f64) -> f64 {
    let double = |t: f64| t * 2.0;
    double(x) + 1.0
}

fn main() {}
