use crate::dist::Discrete;
use diff::prelude::*;

/// A Poisson distribution.
#[derive(Debug, Clone, Copy, Differentiable)]
pub struct Poisson {
    /// Its rate.
    pub lambda: f64,
}

#[differentiable]
impl Discrete for Poisson {
    fn ln_pmf(&self, x: f64) -> f64 {
        -self.lambda + x * self.lambda.ln()
    }
}
