use diff::prelude::*;

/// A normal distribution.
#[derive(Debug, Clone, Copy, Differentiable)]
pub struct Normal {
    mean: f64,
    std_dev: f64,
}

impl Normal {
    /// The distribution of this mean and standard deviation.
    #[differentiable]
    pub fn new_unchecked(mean: f64, std_dev: f64) -> Normal {
        Normal { mean, std_dev }
    }

    /// The log-density at `x`, without its constant.
    #[differentiable]
    pub fn ln_pdf(&self, x: f64) -> f64 {
        let d = (x - self.mean) / self.std_dev;
        -0.5 * d * d - self.std_dev.ln()
    }
}
