use diff::prelude::*;

/// `ln(1 + e^x)`, computed without overflow.
#[differentiable]
pub fn softplus(x: f64) -> f64 {
    if x > 0.0 {
        x + (-x).exp().ln_1p()
    } else {
        x.exp().ln_1p()
    }
}
