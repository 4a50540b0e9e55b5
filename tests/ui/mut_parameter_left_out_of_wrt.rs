use diff::prelude::*;

// `out` receives a value computed from `x`, but only `x` is differentiated: the
// derivative of what `out` holds after the call would be lost.
#[differentiable(wrt = x)]
fn side(x: f64, out: &mut f64) -> f64 {
    *out = x * 2.0;
    x * x
}

fn main() {
    let mut o = 0.0;
    let _ = side(1.0, &mut o);
}
