//! A differentiable function returning a `Result`: refused at its result, saying what to
//! return instead.
use diff::prelude::*;

#[derive(Debug)]
pub struct BadRate;

#[differentiable]
fn checked_ln(rate: f64) -> Result<f64, BadRate> {
    if rate > 0.0 {
        Ok(rate.ln())
    } else {
        Err(BadRate)
    }
}

fn main() {
    let _ = checked_ln(1.0);
}
