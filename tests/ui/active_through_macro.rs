//! An active value flows through a macro call that produces a value.
use diff::prelude::*;

macro_rules! twice {
    ($e:expr) => {
        $e * 2.0
    };
}

#[differentiable]
fn f(x: f64) -> f64 {
    let y = twice!(x);
    y + x
}

fn main() {}
