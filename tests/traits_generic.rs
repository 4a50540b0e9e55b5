//! Traits generic over their scalar types, as numeric crates write them (statrs'
//! `Continuous<K, T>` and `ContinuousCDF<K: Float, T: Float>`), implemented for `f64`:
//! methods marked in the trait, in the implementation, or on an `impl` block, called on
//! the type and through a generic `D: Trait<f64, f64>`; first and second order against
//! the formulas.
mod common;
use common::{assert_close, fd};
use diff::prelude::*;

/// Without bounds, as statrs declares it.
pub trait Continuous<K, T> {
    #[differentiable]
    fn pdf(&self, x: K) -> T;
    #[differentiable]
    fn ln_pdf(&self, x: K) -> T;
}

/// With `Float` bounds.
pub trait ContinuousCdf<K: Float, T: Float> {
    #[differentiable]
    fn cdf(&self, x: K) -> T;
}

/// Not marked: the implementation's `impl` block is.
pub trait Mean<T> {
    fn mean(&self) -> T;
}

#[derive(Differentiable, Clone, Copy, Debug)]
pub struct Exp {
    rate: f64,
}

impl Continuous<f64, f64> for Exp {
    #[differentiable]
    fn pdf(&self, x: f64) -> f64 {
        self.rate * (-self.rate * x).exp()
    }
    #[differentiable]
    fn ln_pdf(&self, x: f64) -> f64 {
        self.rate.ln() - self.rate * x
    }
}

impl ContinuousCdf<f64, f64> for Exp {
    #[differentiable]
    fn cdf(&self, x: f64) -> f64 {
        1.0 - (-self.rate * x).exp()
    }
}

#[differentiable]
impl Mean<f64> for Exp {
    fn mean(&self) -> f64 {
        1.0 / self.rate
    }
}

/// A negative log-likelihood through the trait, generic over the distribution.
#[differentiable]
fn nll<D: Continuous<f64, f64> + Differentiable>(d: &D, xs: &[f64]) -> f64 {
    let mut s = 0.0;
    for &x in xs {
        s -= d.ln_pdf(x);
    }
    s
}

#[differentiable]
fn exp_nll(rate: f64, xs: &[f64]) -> f64 {
    let d = Exp { rate };
    let mut s = 0.0;
    for &x in xs {
        s -= d.ln_pdf(x);
    }
    s
}

#[test]
fn methods_of_a_generic_trait_implemented_for_f64() {
    let d = Exp { rate: 2.0 };
    let x = 0.5;
    let (v, g) = value_with_gradient!(at: x, of: |x: f64| d.pdf(x));
    assert_close(v, d.pdf(x), 1e-15, "check");
    assert_close(g, -4.0 * (-1.0f64).exp(), 1e-12, "check");
    assert_close(
        first_derivative!(at: x, of: |x: f64| d.pdf(x)),
        g,
        1e-12,
        "check",
    );
    let gc = gradient!(at: x, of: |x: f64| d.cdf(x));
    assert_close(gc, d.pdf(x), 1e-12, "check");
    // With respect to the distribution itself.
    let t: ExpTangent = gradient!(at: d, of: |d: Exp| d.pdf(0.5));
    let want = fd(|r| Exp { rate: r }.pdf(0.5), 2.0);
    assert_close(t.rate, want, 1e-6, "check");
    // The marked `impl Mean<f64> for Exp` block: a method of `Exp`.
    let m: ExpTangent = gradient!(at: d, of: |d: Exp| d.mean());
    assert_close(m.rate, -0.25, 1e-12, "check");
}

#[test]
fn through_a_generic_bound_and_in_second_order() {
    let xs = [0.3, 1.2, 0.7];
    let d = Exp { rate: 1.5 };
    let t: ExpTangent = gradient!(at: d, of: |d: Exp| nll(&d, &xs));
    let sum: f64 = xs.iter().sum();
    // d/dr (-(n ln r - r sum)) = -n/r + sum
    assert_close(t.rate, -3.0 / 1.5 + sum, 1e-12, "check");
    assert_close(nll(&d, &xs), exp_nll(1.5, &xs), 1e-15, "check");
    // First order through a distribution built in the body.
    let (v, d1) = value_with_gradient!(at: 1.5, of: |r: f64| exp_nll(r, &xs));
    assert_close(v, exp_nll(1.5, &xs), 1e-15, "check");
    assert_close(d1, -3.0 / 1.5 + sum, 1e-12, "check");
    // Second order through the trait's method on a constant receiver: x ln p(x) =
    // x ln r - r x^2, whose derivatives are ln r - 2 r x and -2 r.
    let (v, d1, d2) = value_with_second_derivative!(at: 0.5, of: |x: f64| x * d.ln_pdf(x));
    assert_close(v, 0.5 * d.ln_pdf(0.5), 1e-15, "check");
    assert_close(d1, 1.5f64.ln() - 2.0 * 1.5 * 0.5, 1e-12, "check");
    assert_close(d2, -3.0, 1e-12, "check");
    // The pdf's second derivative in x: r^3 e^{-r x}.
    let h = second_derivative!(at: 0.5, of: |x: f64| d.pdf(x));
    assert_close(h, 1.5f64.powi(3) * (-0.75f64).exp(), 1e-12, "check");
}

/// A generic trait implemented generically.
pub trait Scaled<T> {
    #[differentiable(wrt = (x))]
    fn scaled(&self, x: T) -> T;
}

#[derive(Clone, Copy, Debug)]
pub struct Gain<F> {
    k: F,
}

impl<F: Float> Scaled<F> for Gain<F> {
    #[differentiable(wrt = (x))]
    fn scaled(&self, x: F) -> F {
        self.k * x * x
    }
}

#[differentiable]
fn through_scaled<D: Scaled<f64>>(d: &D, x: f64) -> f64 {
    d.scaled(x) + x
}

#[test]
fn a_generic_trait_implemented_generically() {
    let g = Gain { k: 3.0 };
    let (v, d) = value_with_gradient!(at: 2.0, of: |x: f64| g.scaled(x));
    assert_close(v, 12.0, 1e-15, "value");
    assert_close(d, 12.0, 1e-12, "6 x");
    let e = gradient!(at: 2.0, of: |x: f64| through_scaled(&g, x));
    assert_close(e, 13.0, 1e-12, "6 x + 1");
    let f = first_derivative!(at: 2.0, of: |x: f64| through_scaled(&g, x));
    assert_close(f, 13.0, 1e-12, "forward");
}
