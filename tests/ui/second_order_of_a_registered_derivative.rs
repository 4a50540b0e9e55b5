//! Second order through a derivative registered for `f64` only: a compile error at the
//! operator, naming the registered function, though first order works.
use diff::prelude::*;

fn softplus(x: f64) -> f64 {
    x.exp().ln_1p()
}

#[derivative(of = softplus)]
fn softplus_vjp(x: f64) -> (f64, impl FnOnce(f64) -> f64) {
    let s = 1.0 / (1.0 + (-x).exp());
    (softplus(x), move |dy| dy * s)
}

#[differentiable]
fn uses_softplus(x: f64) -> f64 {
    softplus(x) * x
}

fn main() {
    let _ = gradient!(at: 0.5, of: uses_softplus);
    let _ = second_derivative!(at: 0.5, of: uses_softplus);
    let _ = hessian!(at: vec![0.5, 1.0], of: |v: Vec<f64>| uses_softplus(v[0]) * v[1]);
}
