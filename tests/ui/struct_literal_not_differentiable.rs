//! A value that carries a derivative stored in a struct literal of a type that is not
//! Differentiable: the derivative would be lost, so it is refused at the literal.
use diff::prelude::*;

pub struct Contract {
    pub strike: f64,
    pub maturity: f64,
}

#[differentiable]
fn payoff(spot: f64, c: &Contract) -> f64 {
    (c.strike - spot).max(0.0) * c.maturity
}

#[differentiable]
fn put(spot: f64, strike: f64, t: f64) -> f64 {
    let c = Contract { strike, maturity: t };
    payoff(spot, &c)
}

fn main() {
    let _ = gradient!(at: (90.0, 100.0, 1.0), of: put);
}
