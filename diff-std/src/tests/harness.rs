//! The checker shared by the table tests.

use diff_core::Dual;
use num_traits::Float;
use std::fmt::Debug;

/// A float type under test, with its tolerance against `f64` finite differences.
pub trait TestFloat: Float + Debug {
    /// Relative tolerance (`|a - b| <= tol * (1 + |b|)`) of a derivative.
    const TOL: f64;
    /// The name, for messages.
    const NAME: &'static str;
}

impl TestFloat for f64 {
    const TOL: f64 = 1e-7;
    const NAME: &'static str = "f64";
}

impl TestFloat for f32 {
    const TOL: f64 = 1e-4;
    const NAME: &'static str = "f32";
}

/// `T` from `f64`.
pub fn of<T: Float>(x: f64) -> T {
    T::from(x).unwrap()
}

/// `f64` from `T`.
pub fn to<T: Float>(x: T) -> f64 {
    x.to_f64().unwrap()
}

/// Whether `a` is within `tol` of `b`, relative to `1 + |b|`.
pub fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + b.abs())
}

/// Central finite difference of `f` at `x` in coordinate `i`.
pub fn central<const N: usize>(f: &impl Fn([f64; N]) -> f64, x: [f64; N], i: usize) -> f64 {
    let h = 1e-5 * x[i].abs().max(1.0);
    let (mut lo, mut hi) = (x, x);
    lo[i] -= h;
    hi[i] += h;
    (f(hi) - f(lo)) / (2.0 * h)
}

/// A rule's forward mode under test: `(point, tangents) -> (value, tangent)`.
pub type Jvp<'a, T, const N: usize> = &'a dyn Fn([T; N], [Option<T>; N]) -> (T, Option<T>);

/// The method of [`Dual`] under test: `(point, dual parts) -> result`.
pub type DualMethod<'a, T, const N: usize> = &'a dyn Fn([T; N], [T; N]) -> Dual<T>;

/// One rule under test: its primal in `f64` (for finite differences) and in `T`, its two
/// modes with slots gathered into arrays (`None` = zero), and the method of the same name
/// of the dual number `Dual<T>`.
pub struct Rule<'a, T, const N: usize> {
    pub name: &'a str,
    pub primal64: &'a dyn Fn([f64; N]) -> f64,
    pub primal: &'a dyn Fn([T; N]) -> T,
    pub vjp: &'a dyn Fn([T; N], T) -> (T, [Option<T>; N]),
    pub jvp: Jvp<'a, T, N>,
    pub dual: DualMethod<'a, T, N>,
}

fn same<T: Float>(a: T, b: T) -> bool {
    a == b || (a.is_nan() && b.is_nan())
}

impl<T: TestFloat, const N: usize> Rule<'_, T, N> {
    /// Checks the rule at every point (see the module docs of `tests`).
    pub fn check(&self, points: &[[f64; N]]) {
        for p in points {
            let x: [T; N] = p.map(of);
            let at = format!("{}{:?} in {}", self.name, x, T::NAME);

            // Values: both modes return the primal, bit for bit.
            let value = (self.primal)(x);
            let (v_vjp, grad) = (self.vjp)(x, T::one());
            let (v_jvp, none) = (self.jvp)(x, [None; N]);
            assert!(same(v_vjp, value) && same(v_jvp, value), "value of {at}");
            assert!(
                none.is_none(),
                "{at}: zero tangents must give a zero (None) tangent"
            );

            let grad = grad.map(|g| g.unwrap_or_else(T::zero));
            let (_, scaled) = (self.vjp)(x, of(2.5));
            for i in 0..N {
                // Reverse mode against finite differences.
                let fd = central(&self.primal64, x.map(to), i);
                let g = to(grad[i]);
                assert!(
                    close(g, fd, T::TOL),
                    "{at}: d/dx{i} = {g}, finite differences {fd}"
                );

                // Linearity of the pullback in the seed.
                let s = to(scaled[i].unwrap_or_else(T::zero));
                assert!(
                    close(s, 2.5 * g, 1e-6),
                    "{at}: pullback(2.5) = {s}, 2.5 * pullback(1) = {}",
                    2.5 * g
                );

                // Forward mode on a basis tangent equals the pullback of one, exactly.
                let mut basis = [None; N];
                basis[i] = Some(T::one());
                let d = (self.jvp)(x, basis).1.unwrap_or_else(T::zero);
                assert!(
                    same(d, grad[i]),
                    "{at}: differential(e{i}) = {d:?}, pullback(1).{i} = {:?}",
                    grad[i]
                );
            }

            // Forward mode on a general tangent is <pullback(1), tangent>.
            let t: [T; N] = core::array::from_fn(|i| of(0.5 - 0.75 * i as f64));
            let jvp_t = (self.jvp)(x, t.map(Some)).1.unwrap_or_else(T::zero);
            let d = to(jvp_t);
            let dot: f64 = (0..N).map(|i| to(grad[i]) * to(t[i])).sum();
            assert!(
                close(d, dot, 1e-5),
                "{at}: differential(t) = {d}, <grad, t> = {dot}"
            );

            self.check_dual(x, &at, &grad, t, jvp_t);
        }
    }

    /// `Dual<T>`'s method: the value bit for bit, a constant stays a constant, the dual
    /// part along each basis direction against finite differences and, exactly, against
    /// the rule's pullback, and along `t` exactly the rule's differential.
    fn check_dual(&self, x: [T; N], at: &str, grad: &[T; N], t: [T; N], jvp_t: T) {
        let value = (self.primal)(x);
        let constant = (self.dual)(x, [T::zero(); N]);
        assert!(same(constant.re, value), "Dual value of {at}");
        assert!(
            constant.eps == T::zero(),
            "{at}: a Dual of constants has dual part {:?}",
            constant.eps
        );
        for i in 0..N {
            let mut basis = [T::zero(); N];
            basis[i] = T::one();
            let d = (self.dual)(x, basis);
            assert!(same(d.re, value), "Dual value of {at}");
            let fd = central(&self.primal64, x.map(to), i);
            assert!(
                close(to(d.eps), fd, T::TOL),
                "{at}: Dual d/dx{i} = {:?}, finite differences {fd}",
                d.eps
            );
            assert!(
                same(d.eps, grad[i]),
                "{at}: Dual d/dx{i} = {:?}, pullback(1).{i} = {:?}",
                d.eps,
                grad[i]
            );
        }
        let d = (self.dual)(x, t);
        assert!(
            same(d.eps, jvp_t),
            "{at}: Dual along t = {:?}, differential(t) = {jvp_t:?}",
            d.eps
        );
    }
}
