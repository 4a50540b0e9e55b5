//! A small neural network, 1-16-1 with `tanh`, fitted to a sine curve by gradient descent:
//! the network is a `#[derive(Differentiable)]` struct of `Vec`s, its loss a loop over the
//! samples calling a method, and each step `move_by` along the negative gradient.
//!
//! Run: `cargo run --release --example mlp`
use diff::prelude::*;

#[derive(Differentiable, Clone, Debug)]
struct Mlp {
    w1: Vec<f64>,
    b1: Vec<f64>,
    w2: Vec<f64>,
    b2: f64,
}

impl Mlp {
    /// A network with weights from a fixed pseudo-random sequence.
    fn new(hidden: usize) -> Mlp {
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        };
        Mlp {
            w1: (0..hidden).map(|_| 2.0 * next()).collect(),
            b1: (0..hidden).map(|_| next()).collect(),
            w2: (0..hidden).map(|_| 0.5 * next()).collect(),
            b2: 0.0,
        }
    }

    #[differentiable]
    fn predict(&self, x: f64) -> f64 {
        let mut out = self.b2;
        for i in 0..self.w1.len() {
            let h = (self.w1[i] * x + self.b1[i]).tanh();
            out += self.w2[i] * h;
        }
        out
    }
}

#[differentiable]
fn loss(net: &Mlp, xs: &[f64], ys: &[f64]) -> f64 {
    let mut total = 0.0;
    for (&x, &y) in xs.iter().zip(ys) {
        let e = net.predict(x) - y;
        total += e * e;
    }
    total / xs.len() as f64
}

pub fn main() {
    let xs: Vec<f64> = (0..40).map(|i| -3.0 + 6.0 * i as f64 / 39.0).collect();
    let ys: Vec<f64> = xs.iter().map(|x| x.sin()).collect();
    let mut net = Mlp::new(16);
    let steps = if cfg!(debug_assertions) { 1_500 } else { 6_000 };
    let mut first = None;
    let mut last = 0.0;
    for step in 0..=steps {
        let (value, gradient) = value_with_gradient!(at: (&net, &xs, &ys), of: loss);
        first.get_or_insert(value);
        last = value;
        if step % (steps / 6) == 0 {
            println!("step {step:>5}: mean squared error {value:.5}");
        }
        net.move_by(&gradient.0.scale(-0.05));
    }
    println!(
        "sin(1) = {:.4}, network(1) = {:.4}",
        1f64.sin(),
        net.predict(1.0)
    );
    let first = first.unwrap_or(last);
    assert!(
        last < 0.02 && last < first / 10.0,
        "the network fits the curve: {first} -> {last}"
    );
}
