use diff::prelude::*;

#[differentiable(wrt = x)]
fn scaled(x: f64, k: f64) -> f64 {
    x * k
}

// `a * a` carries a derivative, but `scaled` gives none for `k`.
#[differentiable]
fn user(a: f64) -> f64 {
    scaled(a, 2.0) + scaled(1.0, a * a) + scaled(a, no_derivative(a))
}

fn main() {
    let _ = gradient!(at: 1.0, of: user);
}
