//! A plain function changing an active value through `&mut`: an error at the call naming
//! the three ways out, as for a call whose result is used (was rustc's "expected type,
//! found function" on generated code).
use diff::prelude::*;

fn scale(v: &mut f64, k: f64) {
    *v *= k;
}

#[differentiable]
fn scaled(x: f64) -> f64 {
    let mut y = x;
    scale(&mut y, 3.0);
    y
}

fn main() {
    let _ = gradient!(at: 1.0, of: scaled);
}
