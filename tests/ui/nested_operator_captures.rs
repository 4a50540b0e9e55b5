use diff::prelude::*;

#[differentiable]
fn scaled_slope(x: f64, k: f64) -> f64 {
    let mut calls = 0.0;
    // The inner function changes `calls`, a variable of the body: refused.
    let d = first_derivative!(at: x, of: |t| {
        calls += 1.0;
        t * t * k
    });
    d + calls
}

fn main() {
    let _ = gradient!(at: (1.0, 2.0), of: scaled_slope);
}
