// A closure held in a variable has no body the macro can read: `of:` naming it, or a
// closure literal calling it, is refused with what to write instead.
use diff::prelude::*;

fn main() {
    let f = |x: f64| x * x;
    let _ = gradient!(at: 3.0, of: f);
    let loss = |p: &[f64]| p[0] * p[1];
    let _ = gradient!(at: vec![1.0, 2.0], of: |p: Vec<f64>| loss(&p));
    // Inside no_derivative(..) it is a constant, as anywhere.
    let k = |n: usize| n as f64;
    let _ = gradient!(at: 2.0, of: |x: f64| x * no_derivative(k(3)));
}

fn second_order() {
    let g = |x: f64| x.sin();
    let _ = second_derivative!(at: 1.0, of: g);
}

#[differentiable]
fn square(x: f64) -> f64 {
    x * x
}

#[differentiable]
fn cube(x: f64) -> f64 {
    x * x * x
}

// A function held in a loop's variable, likewise.
fn each_function() {
    for f in [square, cube] {
        let _ = gradient!(at: 2.0, of: |x: f64| f(x));
    }
}
