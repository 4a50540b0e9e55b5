use diff::prelude::*;
#[differentiable]
fn find_numbered(v: &[f64]) -> f64 {
    match v.iter().filter(|x| **x > 0.0).enumerate().find(|(k, x)| *k > 0 && **x > 0.5) {
        Some((k, x)) => x * x * k as f64,
        None => 0.0,
    }
}
#[differentiable]
fn found_later(v: &[f64]) -> f64 {
    let found = v.iter().filter(|x| **x > 0.0).last();
    match found {
        Some(x) => x.sin(),
        None => 0.0,
    }
}
fn main() {
    let _ = gradient!(at: &[1.0, 2.0][..], of: find_numbered);
    let _ = gradient!(at: &[1.0, 2.0][..], of: found_later);
}
