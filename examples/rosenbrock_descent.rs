//! Gradient descent on the Rosenbrock function, f(x) = Σ 100 (x[i+1] − x[i]²)² + (1 − x[i])²,
//! whose minimum is at (1, ..., 1). The gradient comes from `gradient!` on the function as
//! written, loop included; the loss is printed every few thousand steps.
//!
//! Run: `cargo run --release --example rosenbrock_descent`
use diff::prelude::*;

#[differentiable]
fn rosenbrock(x: &[f64]) -> f64 {
    let mut sum = 0.0;
    for i in 0..x.len() - 1 {
        let a = x[i + 1] - x[i] * x[i];
        let b = 1.0 - x[i];
        sum += 100.0 * a * a + b * b;
    }
    sum
}

pub fn main() {
    let mut x = vec![-1.2, 1.0, -0.5, 0.8];
    let rate = 1e-3;
    for step in 0..=40_000 {
        let (loss, grad) = value_with_gradient!(at: &x, of: rosenbrock);
        if step % 5_000 == 0 {
            println!("step {step:>6}: loss {loss:.3e}");
        }
        for (xi, gi) in x.iter_mut().zip(&grad) {
            *xi -= rate * gi;
        }
    }
    let loss = rosenbrock(&x);
    println!("x = {x:.4?}, loss {loss:.2e}");
    assert!(
        loss < 1e-6,
        "gradient descent reaches the minimum (1, ..., 1)"
    );
}
