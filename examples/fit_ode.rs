//! Recovering a damped spring's stiffness and damping from a trajectory: x″ = −k·x − c·x′,
//! integrated by a semi-implicit Euler loop; the loss is the squared distance between the
//! simulated and the observed positions, and `value_with_gradient!` differentiates
//! through the whole integration loop. The fit is gradient descent whose step grows while
//! the loss falls and halves when it rises.
//!
//! Run: `cargo run --release --example fit_ode`
use diff::prelude::*;

const STEPS: usize = 400;
const DT: f64 = 0.01;

/// The positions of the spring started at x = 1 at rest, every 10 steps.
#[differentiable]
fn simulate(k: f64, c: f64) -> Vec<f64> {
    let (mut x, mut v) = (1.0, 0.0);
    let mut observed = Vec::new();
    for i in 0..STEPS {
        v += (-k * x - c * v) * DT;
        x += v * DT;
        if i % 10 == 9 {
            observed.push(x);
        }
    }
    observed
}

#[differentiable]
fn loss(k: f64, c: f64, data: &[f64]) -> f64 {
    let xs = simulate(k, c);
    let mut total = 0.0;
    for (x, d) in xs.iter().zip(data) {
        total += (x - d) * (x - d);
    }
    total
}

pub fn main() {
    let (true_k, true_c) = (4.0, 0.3);
    let data = simulate(true_k, true_c);
    let (mut k, mut c) = (2.5, 1.0);
    let mut value = loss(k, c, &data);
    let mut rate = 0.01;
    for step in 0..=400 {
        let (v, (dk, dc, _)) = value_with_gradient!(at: (k, c, &data), of: loss);
        if v > value {
            rate *= 0.5;
        } else {
            rate *= 1.05;
        }
        value = v;
        if step % 50 == 0 {
            println!("step {step:>4}: loss {v:.3e}, k = {k:.4}, c = {c:.4}");
        }
        k -= rate * dk;
        c -= rate * dc;
    }
    println!("recovered k = {k:.4} (true {true_k}), c = {c:.4} (true {true_c})");
    assert!(
        (k - true_k).abs() < 1e-3 && (c - true_c).abs() < 1e-3,
        "the fit recovers the spring"
    );
}
