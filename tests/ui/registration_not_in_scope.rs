//! A registration in another module is not used where it is not imported.
use diff::prelude::*;

fn h(x: f64) -> f64 {
    x * x
}

mod regs {
    use super::h;
    use diff::prelude::*;

    #[derivative(of = h)]
    pub fn h_vjp(x: f64) -> (f64, impl FnOnce(f64) -> f64) {
        (h(x), move |dy| 2.0 * x * dy)
    }
}

#[differentiable]
fn f(x: f64) -> f64 {
    h(x) + 1.0
}

fn main() {}
