//! A derivative registered in reverse mode only, for a function of a vector whose
//! differential does not follow from it: its callers compile and run in reverse mode;
//! forward mode of a caller is a compile error at the operator naming the function and
//! the registration to add.
use diff::prelude::*;

fn squares(x: Vec<f64>) -> Vec<f64> {
    x.iter().map(|v| v * v).collect()
}

#[derivative(of = squares)]
fn squares_vjp(x: Vec<f64>) -> (Vec<f64>, impl FnOnce(Vec<f64>) -> Vec<f64>) {
    let y = squares(x.clone());
    (y, move |dy: Vec<f64>| dy.iter().zip(&x).map(|(d, v)| 2.0 * d * v).collect())
}

#[differentiable]
fn total(x: Vec<f64>) -> f64 {
    squares(x).iter().sum()
}

fn main() {
    let _ = gradient!(at: vec![1.0, 2.0], of: total);
    let _ = first_derivative!(at: 1.0, of: |t: f64| total(vec![t, 2.0 * t]));
    let _ = jacobian!(at: vec![1.0, 2.0], of: squares);
}
