use diff::prelude::*;

#[differentiable]
fn scaled_slope(x: f64, k: f64) -> f64 {
    // The inner function reads `k`, a variable of the body: refused.
    first_derivative!(at: x, of: |t| t * t * k)
}

fn main() {
    let _ = gradient!(at: (1.0, 2.0), of: scaled_slope);
}
