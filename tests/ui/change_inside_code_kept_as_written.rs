//! A variable of the function changed inside code the macro keeps as written (a closure
//! given to a method it does not differentiate through, a guard):
//! refused at the change, since the derivatives would not follow it. A closure bound
//! with `let` and called is inlined, and may change what it captures.
use diff::prelude::*;

#[differentiable]
fn pushed(xs: &[f64], w: f64) -> f64 {
    let mut out: Vec<f64> = Vec::new();
    let _ = xs.iter().inspect(|&&x| out.push(x * w)).count();
    out.iter().sum()
}

#[differentiable]
fn sorted(xs: &[f64], w: f64) -> f64 {
    let mut v = xs.to_vec();
    let mut acc = 0.0;
    v.sort_by(|a, b| {
        acc += a * w;
        a.partial_cmp(b).unwrap()
    });
    acc + v[0]
}

#[differentiable]
fn guarded(x: f64) -> f64 {
    let mut c = 0.0;
    match x {
        t if {
            c += t * t;
            t > 10.0
        } =>
        {
            t
        }
        t => t * 2.0 + c,
    }
}

#[differentiable]
fn inlined(x: f64) -> f64 {
    let mut acc = x;
    let mut add = |t: f64| acc += t * acc;
    add(1.0);
    add(2.0);
    acc
}

fn main() {}
