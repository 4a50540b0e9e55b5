//! A trait whose method is differentiable, implemented for a type holding data only (not
//! Differentiable), as a library lays out what its binaries, tests and examples use.
use diff::prelude::*;

/// A function of parameters `p`, given by a type.
pub trait Objective {
    /// The objective's value at `p`.
    #[differentiable]
    fn value(&self, p: &[f64]) -> f64;
}

/// Weighted squares, `k * sum(p_i^2)`: its weight is data, not a parameter.
pub struct Weighted {
    /// The weight.
    pub k: f64,
}

impl Objective for Weighted {
    #[differentiable]
    fn value(&self, p: &[f64]) -> f64 {
        self.k * p.iter().map(|x| x * x).sum::<f64>()
    }
}
