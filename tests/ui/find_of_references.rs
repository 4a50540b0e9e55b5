use diff::prelude::*;
// An `Option` of a reference read twice: it is not written where it is used.
#[differentiable]
fn found_later(v: &[f64]) -> f64 {
    let found = v.iter().filter(|x| **x > 0.0).last();
    let scale = if found.is_some() { 2.0 } else { 1.0 };
    match found {
        Some(x) => x.sin() * scale,
        None => 0.0,
    }
}
fn main() {
    let _ = gradient!(at: &[1.0, 2.0][..], of: found_later);
}
