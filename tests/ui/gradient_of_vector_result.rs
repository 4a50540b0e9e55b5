// `gradient!` of a function whose result is not a scalar: the error says so and names
// `jacobian!` and `pullback!`.
use diff::prelude::*;

#[differentiable]
fn both(x: f64) -> Vec<f64> {
    vec![x, x * x]
}

fn main() {
    let _ = gradient!(at: 1.0, of: both);
}
