//! A differentiable function calling, with a derivative, a method of a trait that does not
//! mark it: one error at the call, in the library's words, naming the trait and the mark
//! to add (not rustc's missing generated method).
use diff::prelude::*;

trait Loss {
    fn loss(&self, y: f64, t: f64) -> f64;
}

struct Squared;

impl Loss for Squared {
    fn loss(&self, y: f64, t: f64) -> f64 {
        (y - t) * (y - t)
    }
}

#[differentiable]
fn fit<L: Loss>(l: &L, w: f64, xs: &[f64], ts: &[f64]) -> f64 {
    let mut s = 0.0;
    for (x, t) in xs.iter().zip(ts) {
        s += l.loss(w * x, *t);
    }
    s
}

fn main() {
    let _ = fit(&Squared, 1.0, &[1.0], &[2.0]);
}
