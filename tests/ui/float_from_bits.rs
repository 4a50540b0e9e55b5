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
