// A `filter` followed by an adapter that counts the items it kept (`enumerate`) is
// refused at the loop, naming both and what to write instead.
use diff::prelude::*;

#[differentiable]
fn weighted_positives(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (k, v) in x.iter().filter(|v| **v > 0.0).enumerate() {
        s += v * k as f64;
    }
    s
}

fn main() {
    let _ = weighted_positives(&[1.0, 2.0]);
}
