//! A parameter whose type is not Differentiable: the error names the type and the ways out.
use diff::prelude::*;

#[derive(Clone, Copy)]
enum Act {
    Tanh,
    Relu,
}

#[differentiable]
fn layer(x: f64, act: Act) -> f64 {
    match act {
        Act::Tanh => x.tanh(),
        Act::Relu => x.max(0.0),
    }
}

fn main() {
    let _ = gradient!(at: 0.5, of: |x| layer(x, Act::Relu));
}
