//! A registration for a method of `f64` whose function has no parameter for the receiver.
use diff::prelude::*;

#[derivative(of = f64::nan)]
fn nan_vjp() -> (f64, impl FnOnce(f64) -> ()) {
    (f64::NAN, |_| ())
}

fn main() {
    // The function itself is still emitted.
    let _ = nan_vjp();
}
