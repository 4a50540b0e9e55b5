//! The README's registration example, checked: a registration in another module,
//! brought in with a glob import, is the one used.
mod regs {
    use diff::prelude::*;
    pub fn softplus(x: f64) -> f64 {
        (1.0 + x.exp()).ln()
    }
    #[derivative(of = softplus)]
    pub fn softplus_vjp(x: f64) -> (f64, impl FnOnce(f64) -> f64) {
        let s = 1.0 / (1.0 + (-x).exp()); // stable for large |x|
        (softplus(x), move |dy| dy * s)
    }
}
use diff::prelude::*;
use regs::*;

#[differentiable]
fn loss(x: f64) -> f64 {
    softplus(x) * 2.0
}

#[test]
fn readme_registration_example() {
    for x in [-3.0f64, 0.0, 2.5, 800.0] {
        let s = 1.0 / (1.0 + (-x).exp());
        assert!((gradient!(at: x, of: loss) - 2.0 * s).abs() < 1e-12);
        assert!((first_derivative!(at: x, of: loss) - 2.0 * s).abs() < 1e-12);
    }
}
