//! `.zip(..)` of an iterator adapted by `step_by` or `map`: refused, naming the adapter
//! and what to write instead.
use diff::prelude::*;

#[differentiable]
fn every_other(x: &[f64]) -> f64 {
    x.iter().zip(x.iter().step_by(2)).map(|(a, b)| a * b).sum()
}

fn main() {}
