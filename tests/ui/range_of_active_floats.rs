// A `Range<f64>` built of values that carry a derivative: it has no tangent, so the
// derivative of its ends would be lost (kurbo's `subsegment(&self, range: Range<f64>)`).
use diff::prelude::*;
use std::ops::Range;

#[differentiable]
fn by_range(r: Range<f64>) -> f64 {
    r.start * 3.0 + r.end
}

#[differentiable]
fn caller(t0: f64) -> f64 {
    by_range(t0..1.0)
}

fn main() {
    let _ = caller(0.2);
    let _ = first_derivative!(at: 0.2, of: |t: f64| by_range(t..1.0));
}
