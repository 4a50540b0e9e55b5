use diff::prelude::*;
#[differentiable]
fn findit(v: &[f64]) -> f64 {
    match v.iter().find(|x| **x > 1.0) {
        Some(x) => x * x,
        None => 0.0,
    }
}
fn main() {
    let _ = gradient!(at: &[1.0, 2.0][..], of: findit);
}
