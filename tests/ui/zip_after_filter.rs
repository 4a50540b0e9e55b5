// A `filter` followed by an adapter that pairs the items it kept by their count (`zip`)
// is refused at the loop, naming both and what to write instead.
use diff::prelude::*;

#[differentiable]
fn weighted_positives(x: &[f64], w: &[f64]) -> f64 {
    let mut s = 0.0;
    for (v, k) in x.iter().filter(|v| **v > 0.0).zip(w) {
        s += v * k;
    }
    s
}

fn main() {
    let _ = weighted_positives(&[1.0, 2.0], &[3.0, 4.0]);
}
