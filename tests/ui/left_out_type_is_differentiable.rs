//! A parameter type whose definition in the crate does not make it Differentiable is
//! left out of the derivative; if it is Differentiable after all (here through an impl a
//! `macro_rules!` writes, which the macro cannot read), the build stops instead of
//! losing the derivative.
use diff::prelude::*;

#[derive(Clone, Debug)]
struct Weight {
    w: f64,
}

macro_rules! differentiable_like_f64 {
    ($t:ident) => {
        impl Differentiable for $t {
            type TangentVector = f64;
            fn zero_tangent(&self) -> f64 {
                0.0
            }
            fn move_by(&mut self, d: &f64) {
                self.w += d;
            }
        }
    };
}
differentiable_like_f64!(Weight);

#[differentiable]
fn weighted(x: f64, k: &Weight) -> f64 {
    k.w * x
}

fn main() {
    let k = Weight { w: 2.0 };
    let _ = gradient!(at: 0.5, of: |x| weighted(x, &k));
}
