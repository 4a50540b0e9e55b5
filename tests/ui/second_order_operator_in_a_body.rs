use diff::prelude::*;

#[differentiable]
fn f(x: f64) -> f64 {
    x.sin() * x
}

// Differentiating this body would need a third derivative of `f`.
#[differentiable]
fn curvature(x: f64) -> f64 {
    second_derivative!(at: x, of: f) * x + second_derivative!(at: 1.0, of: f)
}

fn main() {
    let _ = gradient!(at: 1.0, of: curvature);
}
