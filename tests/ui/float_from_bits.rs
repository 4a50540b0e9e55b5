//! A float rebuilt from the bits of a value that carries a derivative: puruspe's `ldexp`
//! as written (`x * 2^e` through the exponent's bits). The bits are integers, so the
//! derivative (2^e, not zero) would be lost: refused at `f64::from_bits`.
use diff::prelude::*;

#[differentiable]
pub fn ldexp(x: f64, exp: i32) -> f64 {
    let bits = x.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i32 + exp;
    f64::from_bits((bits & 0x800f_ffff_ffff_ffff) | ((exponent as u64) << 52))
}

fn main() {
    let _ = gradient!(at: 3.0, of: |x: f64| ldexp(x, 3));
}

// libm's layout: the words of a float taken by helpers, the float rebuilt in the body.
fn get_high_word(x: f64) -> u32 {
    (x.to_bits() >> 32) as u32
}
fn get_low_word(x: f64) -> u32 {
    x.to_bits() as u32
}

#[differentiable]
pub fn fabs_by_words(x: f64) -> f64 {
    let hx = get_high_word(x) & 0x7fff_ffff;
    let lx = get_low_word(x);
    f64::from_bits(((hx as u64) << 32) | lx as u64)
}

// The bits given to a helper that rebuilds the float.
fn from_u64(u: u64) -> f64 {
    f64::from_bits(u)
}

#[differentiable]
pub fn squared_through_a_helper(x: f64) -> f64 {
    let t = from_u64(x.to_bits());
    t * t
}
