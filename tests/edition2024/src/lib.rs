//! A library of edition 2024 (what `cargo new` creates) with differentiable functions and
//! registered derivatives, used by its tests from another crate (`tests/`), the way a
//! user's crate uses a published one.
use diff::prelude::*;

/// Models, in a module.
pub mod model {
    use diff::prelude::*;

    /// `sum of (p_i - 1)^2`.
    #[differentiable]
    pub fn loss(p: &[f64]) -> f64 {
        let mut s = 0.0;
        for x in p {
            s += (x - 1.0) * (x - 1.0);
        }
        s
    }

    /// `x^3`, generic.
    #[differentiable]
    pub fn cube<T: Float>(x: T) -> T {
        x * x * x
    }
}

pub use model::loss;

/// `ln(1 + e^x)`, never annotated: its derivative is registered below.
pub fn softplus(x: f64) -> f64 {
    (1.0 + x.exp()).ln()
}

/// The registered reverse mode of [`softplus`].
#[derivative(of = softplus)]
pub fn softplus_vjp(x: f64) -> (f64, impl FnOnce(f64) -> f64) {
    let s = 1.0 / (1.0 + (-x).exp());
    (softplus(x), move |dy| dy * s)
}

/// `softplus(x) + x^3`.
#[differentiable]
pub fn combined(x: f64) -> f64 {
    softplus(x) + model::cube(x)
}

/// A trait with differentiable methods, implemented for a model, for other crates'
/// generic functions.
pub mod objectives {
    use diff::prelude::*;

    /// What a model computes at `x`.
    #[differentiable]
    pub trait Objective {
        /// The model's value at `x`.
        #[differentiable]
        fn value(&self, x: f64) -> f64;

        /// `value(x)^2`, provided.
        #[differentiable]
        fn squared(&self, x: f64) -> f64 {
            let v = self.value(x);
            v * v
        }
    }

    /// `a x + b`.
    #[derive(Clone, Debug, Differentiable)]
    pub struct Line {
        pub a: f64,
        pub b: f64,
    }

    impl Objective for Line {
        #[differentiable]
        fn value(&self, x: f64) -> f64 {
            self.a * x + self.b
        }
    }
}
