//! Reverse mode of a function whose only registration is a JVP over a non-scalar input:
//! the pullback does not follow from it, and the error asks for a VJP registration.
use diff::prelude::*;

fn norm2(v: Vec<f64>) -> f64 {
    v.iter().map(|x| x * x).sum()
}

#[derivative(of = norm2, jvp)]
fn norm2_jvp(v: Vec<f64>) -> (f64, impl FnOnce(Vec<f64>) -> f64) {
    let y = norm2(v.clone());
    (y, move |dv| {
        v.iter().zip(&dv).map(|(x, d)| 2.0 * x * d).sum()
    })
}

fn main() {
    let _ = gradient!(at: vec![1.0, 2.0], of: norm2);
}
