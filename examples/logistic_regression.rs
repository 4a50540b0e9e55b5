//! Logistic regression on generated data: a `#[derive(Differentiable)]` model, its
//! cross-entropy loss as written (a loop over the examples, a method for the prediction),
//! `value_with_gradient!` for the loss and its gradient (a `ModelTangent`), and
//! `move_by` for the steps. The accuracy on held-out data is reported.
//!
//! Run: `cargo run --release --example logistic_regression`
use diff::prelude::*;

#[derive(Differentiable, Clone, Debug)]
struct Model {
    weights: Vec<f64>,
    bias: f64,
    /// An L2 penalty: a setting, not a parameter.
    #[no_derivative]
    l2: f64,
}

impl Model {
    #[differentiable]
    fn probability(&self, x: &[f64]) -> f64 {
        let mut z = self.bias;
        for (w, xi) in self.weights.iter().zip(x) {
            z += w * xi;
        }
        1.0 / (1.0 + (-z).exp())
    }
}

#[differentiable]
fn loss(model: &Model, xs: &[Vec<f64>], labels: &[f64]) -> f64 {
    let mut total = 0.0;
    for (x, &y) in xs.iter().zip(labels) {
        let p = model.probability(x);
        total -= y * p.ln() + (1.0 - y) * (1.0 - p).ln();
    }
    let penalty: f64 = model.weights.iter().map(|w| w * w).sum();
    total / labels.len() as f64 + model.l2 * penalty
}

/// A small deterministic generator (a linear congruential one), so that runs agree.
struct Lcg(u64);

impl Lcg {
    fn uniform(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Points in the square [-1, 1]², labelled by which side of the line 2x − y = 0.3 they
/// fall on.
fn data(n: usize, rng: &mut Lcg) -> (Vec<Vec<f64>>, Vec<f64>) {
    let xs: Vec<Vec<f64>> = (0..n)
        .map(|_| vec![2.0 * rng.uniform() - 1.0, 2.0 * rng.uniform() - 1.0])
        .collect();
    let labels = xs
        .iter()
        .map(|x| if 2.0 * x[0] - x[1] > 0.3 { 1.0 } else { 0.0 })
        .collect();
    (xs, labels)
}

pub fn main() {
    let mut rng = Lcg(7);
    let (train, train_labels) = data(200, &mut rng);
    let (test, test_labels) = data(200, &mut rng);
    let mut model = Model {
        weights: vec![0.0, 0.0],
        bias: 0.0,
        l2: 1e-4,
    };
    for epoch in 0..=300 {
        let (value, gradient) = value_with_gradient!(at: (&model, &train, &train_labels), of: loss);
        if epoch % 50 == 0 {
            println!("epoch {epoch:>3}: loss {value:.4}");
        }
        model.move_by(&gradient.0.scale(-2.0));
    }
    let correct = test
        .iter()
        .zip(&test_labels)
        .filter(|(x, &y)| (model.probability(x) > 0.5) == (y > 0.5))
        .count();
    let accuracy = correct as f64 / test.len() as f64;
    println!("weights {:.3?}, bias {:.3}", model.weights, model.bias);
    println!("held-out accuracy {:.1}%", 100.0 * accuracy);
    assert!(accuracy > 0.9, "the model separates the classes");
}
