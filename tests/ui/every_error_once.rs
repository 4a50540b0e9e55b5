//! A function with two refused statements: both are reported, each once, at its span;
//! its callers (an operator, another differentiable function) add no error of their own.
use diff::prelude::*;

#[differentiable]
fn f(x: f64) -> f64 {
    let a = unsafe { core::ptr::read(&x) } * 2.0;
    let Some(ref b) = Some(x) else { return 0.0 };
    a * b + x
}

#[differentiable]
fn g(x: f64) -> f64 {
    f(x) * 3.0
}

fn main() {
    let _ = gradient!(at: 1.0, of: f);
    let _ = gradient!(at: 1.0, of: g);
    let _ = first_derivative!(at: 1.0, of: g);
}
