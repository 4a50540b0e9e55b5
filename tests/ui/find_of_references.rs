use diff::prelude::*;
#[differentiable]
fn found_later(v: &[f64]) -> f64 {
    let found = v.iter().filter(|x| **x > 0.0).last();
    match found {
        Some(x) => x.sin(),
        None => 0.0,
    }
}
fn main() {
    let _ = gradient!(at: &[1.0, 2.0][..], of: found_later);
}
