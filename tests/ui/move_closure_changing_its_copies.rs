//! A `move` closure given to an iterator method changes its own copies of what it
//! captures; the loop the method becomes would change the variables. Refused (the copy
//! is rarely what was meant: rustc warns that the assigned value is never read).
use diff::prelude::*;

#[differentiable]
fn each(x: f64) -> f64 {
    let xs = vec![x, 2.0 * x];
    let mut s = x;
    xs.iter().for_each(move |v| s += v * v);
    s
}

#[differentiable]
fn mapped(x: f64) -> f64 {
    let xs = vec![x, 2.0 * x];
    let mut a = x;
    let s: f64 = xs.iter().map(move |v| { a += 1.0; v * a }).sum();
    s + a
}

#[differentiable]
fn folded(x: f64) -> f64 {
    let xs = vec![x, 2.0 * x];
    let mut a = x;
    let s: f64 = xs.iter().fold(0.0, move |acc, v| { a += 1.0; acc + v * a });
    s + a
}

fn main() {}
