//! Second order through a method whose derivative is registered (a method of another
//! crate's trait, as black_scholes calls `special::Error::error`): a registration gives
//! first order only, so it is a compile error at the operator naming the method, not a
//! refusal when it runs. First order compiles.
use diff::prelude::*;

pub trait Erf {
    fn erf_of(self) -> f64;
}

impl Erf for f64 {
    fn erf_of(self) -> f64 {
        self.tanh()
    }
}

#[derivative(of = f64::erf_of)]
fn erf_vjp(x: f64) -> (f64, impl FnOnce(f64) -> f64) {
    let y = x.erf_of();
    (y, move |dy| dy * (1.0 - y * y))
}

#[differentiable]
fn cum_norm(x: f64) -> f64 {
    (x * 0.5).erf_of() * 0.5 + 0.5
}

fn main() {
    let _ = gradient!(at: 0.5, of: cum_norm);
    let _ = second_derivative!(at: 0.5, of: cum_norm);
}
