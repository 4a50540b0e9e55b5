use diff::prelude::*;
// A function of the standard library the library has no rule for: one error, at the
// call, naming it.
#[differentiable]
fn larger(x: f64) -> f64 {
    let y = std::cmp::max_by(x, 0.5, f64::total_cmp);
    y * x
}
fn main() {
    let _ = gradient!(at: 0.7, of: larger);
}
