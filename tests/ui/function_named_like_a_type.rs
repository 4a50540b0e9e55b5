//! A free differentiable function named like a primitive type: its derivatives travel
//! with its name (a carrier type of the same name), which would hide the type.
use diff::prelude::*;

#[differentiable]
fn f64(x: f64) -> f64 {
    x * x
}

fn main() {
    let _ = f64(2.0);
}
