// An iterator chain through a method it is not differentiated through is refused at the
// chain, naming the method and what to write instead.
use diff::prelude::*;

#[differentiable]
fn cumulative_squares(x: &[f64]) -> f64 {
    let c: Vec<f64> = x
        .iter()
        .scan(0.0, |acc, &v| {
            *acc += v;
            Some(*acc)
        })
        .collect();
    c.iter().map(|v| v * v).sum()
}

fn main() {
    let _ = cumulative_squares(&[1.0, 2.0]);
}
