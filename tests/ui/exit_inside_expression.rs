//! An early `return` deep inside an expression whose value is used: refused, because the
//! statements after it would otherwise run on the returned path.
use diff::prelude::*;

#[differentiable]
fn f(x: f64) -> f64 {
    let y = (if x > 0.0 { return x } else { x * 2.0 }) * 3.0;
    y + 1.0
}

fn main() {}
