//! [`num_traits::Float`] and [`num_traits::FloatConst`] for [`Dual`], each method with
//! its first derivative.
//!
//! The conventions at points where a function is not differentiable are those of the
//! rules in `diff-std`: `abs'(0) = 0`; `min`, `max` and `clamp` pass the derivative of
//! the selected argument (the receiver on ties, the non-NaN one if the other is NaN);
//! `floor ceil round trunc signum` have derivative zero, `fract` one; `hypot` at the
//! origin has partials zero; `powf`: `d/dx x^0 = 0` and `d/de 0^e = 0`.
//!
//! A zero dual part stays zero through a unary function, and through each argument of
//! `powf`, `log`, `atan2` and `hypot`, even where the derivative is infinite or NaN
//! (`sqrt` at 0, `powf` with a constant exponent at a negative base): a constant stays
//! a constant.

use core::num::FpCategory;

use num_traits::{Float, FloatConst};

use crate::Dual;

/// `x` as a `T` (a constant of a derivative formula).
#[inline(always)]
pub(crate) fn cast<T: Float>(x: f64) -> T {
    match T::from(x) {
        Some(t) => t,
        None => panic!("diff: {x} is not representable in the dual number's scalar type"),
    }
}

/// `eps * d()`, zero when `eps` is zero (`d` is then not computed).
#[inline(always)]
fn term<T: Float>(eps: T, d: impl FnOnce() -> T) -> T {
    if eps.is_zero() {
        T::zero()
    } else {
        eps * d()
    }
}

impl<T: Float> Dual<T> {
    /// The result `y` of a unary function of `self` whose derivative is `d()`.
    #[inline(always)]
    fn chain(self, y: T, d: impl FnOnce() -> T) -> Self {
        Dual::new(y, term(self.eps, d))
    }
}

macro_rules! constants {
    ($($f:ident),*) => {$(
        #[inline(always)]
        fn $f() -> Self {
            Dual::constant(T::$f())
        }
    )*};
}

macro_rules! predicates {
    ($($f:ident),*) => {$(
        #[inline(always)]
        fn $f(self) -> bool {
            self.re.$f()
        }
    )*};
}

macro_rules! piecewise_constant {
    ($($f:ident),*) => {$(
        /// Piecewise constant: the dual part is zero.
        #[inline(always)]
        fn $f(self) -> Self {
            Dual::constant(self.re.$f())
        }
    )*};
}

impl<T: Float> Float for Dual<T> {
    constants!(
        nan,
        infinity,
        neg_infinity,
        neg_zero,
        min_value,
        min_positive_value,
        epsilon,
        max_value
    );
    predicates!(
        is_nan,
        is_infinite,
        is_finite,
        is_normal,
        is_subnormal,
        is_sign_positive,
        is_sign_negative
    );
    piecewise_constant!(floor, ceil, round, trunc, signum);

    #[inline(always)]
    fn classify(self) -> FpCategory {
        self.re.classify()
    }
    #[inline(always)]
    fn integer_decode(self) -> (u64, i16, i8) {
        self.re.integer_decode()
    }

    /// `x - x.trunc()`: the derivative is one.
    #[inline(always)]
    fn fract(self) -> Self {
        Dual::new(self.re.fract(), self.eps)
    }
    /// At zero the derivative is zero.
    #[inline(always)]
    fn abs(self) -> Self {
        let x = self.re;
        self.chain(x.abs(), || if x.is_zero() { T::zero() } else { x.signum() })
    }
    #[inline(always)]
    fn copysign(self, sign: Self) -> Self {
        if self.re.is_sign_negative() == sign.re.is_sign_negative() {
            self
        } else {
            -self
        }
    }
    /// `max(self - other, 0)`.
    #[inline(always)]
    fn abs_sub(self, other: Self) -> Self {
        if self.re > other.re {
            self - other
        } else {
            Dual::new(T::zero(), T::zero())
        }
    }
    /// The selected argument: the receiver on ties, the non-NaN one if the other is NaN.
    #[inline(always)]
    fn max(self, other: Self) -> Self {
        if other.re.is_nan() || self.re >= other.re {
            self
        } else {
            other
        }
    }
    /// The selected argument: the receiver on ties, the non-NaN one if the other is NaN.
    #[inline(always)]
    fn min(self, other: Self) -> Self {
        if other.re.is_nan() || self.re <= other.re {
            self
        } else {
            other
        }
    }
    /// The selected argument: `self` when `min <= self <= max`, else the bound.
    #[inline(always)]
    fn clamp(self, min: Self, max: Self) -> Self {
        if self.re < min.re {
            min
        } else if self.re > max.re {
            max
        } else {
            self
        }
    }

    #[inline(always)]
    fn mul_add(self, a: Self, b: Self) -> Self {
        let eps = self.eps.mul_add(a.re, self.re.mul_add(a.eps, b.eps));
        Dual::new(self.re.mul_add(a.re, b.re), eps)
    }
    #[inline(always)]
    fn recip(self) -> Self {
        let y = self.re.recip();
        self.chain(y, || -y * y)
    }
    /// For `n == 0` the derivative is zero, also at zero.
    #[inline(always)]
    fn powi(self, n: i32) -> Self {
        let (x, y) = (self.re, self.re.powi(n));
        self.chain(y, || match n.checked_sub(1) {
            _ if n == 0 => T::zero(),
            Some(m) => cast::<T>(n.into()) * x.powi(m),
            None => cast::<T>(n.into()) * y / x,
        })
    }
    /// `d/dx x^0 = 0` and `d/de 0^e = 0`.
    #[inline(always)]
    fn powf(self, e: Self) -> Self {
        let (x, y) = (self.re, self.re.powf(e.re));
        let zero = T::zero();
        let dx = term(self.eps, || {
            if e.re.is_zero() {
                zero
            } else {
                e.re * x.powf(e.re - T::one())
            }
        });
        let de = term(e.eps, || if x.is_zero() { zero } else { y * x.ln() });
        Dual::new(y, dx + de)
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        let y = self.re.sqrt();
        self.chain(y, || (y + y).recip())
    }
    #[inline(always)]
    fn cbrt(self) -> Self {
        let y = self.re.cbrt();
        self.chain(y, || (cast::<T>(3.0) * y * y).recip())
    }
    /// At the origin the partials are zero.
    #[inline(always)]
    fn hypot(self, other: Self) -> Self {
        let y = self.re.hypot(other.re);
        let r = if y.is_zero() { y } else { y.recip() };
        let eps = term(self.eps, || self.re * r) + term(other.eps, || other.re * r);
        Dual::new(y, eps)
    }

    #[inline(always)]
    fn exp(self) -> Self {
        let y = self.re.exp();
        self.chain(y, || y)
    }
    #[inline(always)]
    fn exp2(self) -> Self {
        let y = self.re.exp2();
        self.chain(y, || y * cast(core::f64::consts::LN_2))
    }
    #[inline(always)]
    fn exp_m1(self) -> Self {
        let y = self.re.exp_m1();
        self.chain(y, || y + T::one())
    }
    #[inline(always)]
    fn ln(self) -> Self {
        let x = self.re;
        self.chain(x.ln(), || x.recip())
    }
    #[inline(always)]
    fn ln_1p(self) -> Self {
        let x = self.re;
        self.chain(x.ln_1p(), || (T::one() + x).recip())
    }
    #[inline(always)]
    fn log(self, base: Self) -> Self {
        let (x, b) = (self.re, base.re);
        let (y, ln_b) = (x.log(b), b.ln());
        let eps = term(self.eps, || (x * ln_b).recip()) + term(base.eps, || -y / (b * ln_b));
        Dual::new(y, eps)
    }
    #[inline(always)]
    fn log2(self) -> Self {
        let x = self.re;
        self.chain(x.log2(), || (x * cast(core::f64::consts::LN_2)).recip())
    }
    #[inline(always)]
    fn log10(self) -> Self {
        let x = self.re;
        self.chain(x.log10(), || (x * cast(core::f64::consts::LN_10)).recip())
    }
    #[inline(always)]
    fn to_degrees(self) -> Self {
        Dual::new(self.re.to_degrees(), self.eps.to_degrees())
    }
    #[inline(always)]
    fn to_radians(self) -> Self {
        Dual::new(self.re.to_radians(), self.eps.to_radians())
    }

    #[inline(always)]
    fn sin(self) -> Self {
        let x = self.re;
        self.chain(x.sin(), || x.cos())
    }
    #[inline(always)]
    fn cos(self) -> Self {
        let x = self.re;
        self.chain(x.cos(), || -x.sin())
    }
    #[inline(always)]
    fn sin_cos(self) -> (Self, Self) {
        let (s, c) = self.re.sin_cos();
        (Dual::new(s, self.eps * c), Dual::new(c, -self.eps * s))
    }
    #[inline(always)]
    fn tan(self) -> Self {
        let y = self.re.tan();
        self.chain(y, || T::one() + y * y)
    }
    #[inline(always)]
    fn asin(self) -> Self {
        let x = self.re;
        self.chain(x.asin(), || {
            ((T::one() - x) * (T::one() + x)).sqrt().recip()
        })
    }
    #[inline(always)]
    fn acos(self) -> Self {
        let x = self.re;
        self.chain(x.acos(), || {
            -((T::one() - x) * (T::one() + x)).sqrt().recip()
        })
    }
    #[inline(always)]
    fn atan(self) -> Self {
        let x = self.re;
        self.chain(x.atan(), || (T::one() + x * x).recip())
    }
    /// At the origin the partials are NaN.
    #[inline(always)]
    fn atan2(self, other: Self) -> Self {
        let (a, b) = (self.re, other.re);
        let r = (a * a + b * b).recip();
        Dual::new(
            a.atan2(b),
            term(self.eps, || b * r) - term(other.eps, || a * r),
        )
    }
    #[inline(always)]
    fn sinh(self) -> Self {
        let x = self.re;
        self.chain(x.sinh(), || x.cosh())
    }
    #[inline(always)]
    fn cosh(self) -> Self {
        let x = self.re;
        self.chain(x.cosh(), || x.sinh())
    }
    #[inline(always)]
    fn tanh(self) -> Self {
        let y = self.re.tanh();
        self.chain(y, || T::one() - y * y)
    }
    #[inline(always)]
    fn asinh(self) -> Self {
        let x = self.re;
        self.chain(x.asinh(), || (x * x + T::one()).sqrt().recip())
    }
    #[inline(always)]
    fn acosh(self) -> Self {
        let x = self.re;
        let d = || ((x - T::one()).sqrt() * (x + T::one()).sqrt()).recip();
        self.chain(x.acosh(), d)
    }
    #[inline(always)]
    fn atanh(self) -> Self {
        let x = self.re;
        self.chain(x.atanh(), || ((T::one() - x) * (T::one() + x)).recip())
    }
}

macro_rules! float_consts {
    ($($c:ident),*) => {$(
        #[inline(always)]
        fn $c() -> Self {
            Dual::constant(T::$c())
        }
    )*};
}

/// The constants, as constants (zero dual part).
impl<T: Float + FloatConst> FloatConst for Dual<T> {
    float_consts!(
        E,
        FRAC_1_PI,
        FRAC_1_SQRT_2,
        FRAC_2_PI,
        FRAC_2_SQRT_PI,
        FRAC_PI_2,
        FRAC_PI_3,
        FRAC_PI_4,
        FRAC_PI_6,
        FRAC_PI_8,
        LN_10,
        LN_2,
        LOG10_E,
        LOG2_E,
        PI,
        SQRT_2,
        TAU,
        LOG10_2,
        LOG2_10
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    type D = Dual<f64>;
    /// A binary method, with its plain-float counterpart.
    type Binary = (&'static str, fn(D, D) -> D, fn(f64, f64) -> f64);

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol * (1.0 + b.abs()) || (a.is_nan() && b.is_nan())
    }

    /// `f` at the variable `x`: the value is `f(x)` of the plain float, the dual part
    /// `df(x)`.
    fn check(name: &str, f: fn(D) -> D, g: fn(f64) -> f64, df: fn(f64) -> f64, x: f64) {
        let y = f(Dual::variable(x));
        assert!(
            close(y.re, g(x), 1e-15),
            "{name}({x}) = {} vs {}",
            y.re,
            g(x)
        );
        assert!(
            close(y.eps, df(x), 1e-12),
            "{name}'({x}) = {} vs {}",
            y.eps,
            df(x)
        );
        let c = f(Dual::constant(x));
        assert_eq!(c.eps, 0.0, "{name} of a constant");
    }

    #[test]
    fn derivatives_against_formulas() {
        let x = 0.3;
        check("sin", D::sin, f64::sin, f64::cos, x);
        check("cos", D::cos, f64::cos, |x| -x.sin(), x);
        check("tan", D::tan, f64::tan, |x| 1.0 / (x.cos() * x.cos()), x);
        check(
            "asin",
            D::asin,
            f64::asin,
            |x| 1.0 / (1.0 - x * x).sqrt(),
            x,
        );
        check(
            "acos",
            D::acos,
            f64::acos,
            |x| -1.0 / (1.0 - x * x).sqrt(),
            x,
        );
        check("atan", D::atan, f64::atan, |x| 1.0 / (1.0 + x * x), x);
        check("sinh", D::sinh, f64::sinh, f64::cosh, x);
        check("cosh", D::cosh, f64::cosh, f64::sinh, x);
        check(
            "tanh",
            D::tanh,
            f64::tanh,
            |x| 1.0 / (x.cosh() * x.cosh()),
            x,
        );
        check(
            "asinh",
            D::asinh,
            f64::asinh,
            |x| 1.0 / (x * x + 1.0).sqrt(),
            x,
        );
        check(
            "acosh",
            D::acosh,
            f64::acosh,
            |x| 1.0 / (x * x - 1.0).sqrt(),
            1.7,
        );
        check("atanh", D::atanh, f64::atanh, |x| 1.0 / (1.0 - x * x), x);
        check("exp", D::exp, f64::exp, f64::exp, x);
        check("exp2", D::exp2, f64::exp2, |x| x.exp2() * 2f64.ln(), x);
        check("exp_m1", D::exp_m1, f64::exp_m1, f64::exp, x);
        check("ln", D::ln, f64::ln, |x| 1.0 / x, x);
        check("ln_1p", D::ln_1p, f64::ln_1p, |x| 1.0 / (1.0 + x), x);
        check("log2", D::log2, f64::log2, |x| 1.0 / (x * 2f64.ln()), x);
        check("log10", D::log10, f64::log10, |x| 1.0 / (x * 10f64.ln()), x);
        check("sqrt", D::sqrt, f64::sqrt, |x| 0.5 / x.sqrt(), x);
        check("cbrt", D::cbrt, f64::cbrt, |x| x.powf(-2.0 / 3.0) / 3.0, x);
        check("recip", D::recip, f64::recip, |x| -1.0 / (x * x), x);
        check("abs", D::abs, f64::abs, |_| -1.0, -x);
        check("fract", D::fract, f64::fract, |_| 1.0, 2.5);
        check("floor", D::floor, f64::floor, |_| 0.0, 2.5);
        check("ceil", D::ceil, f64::ceil, |_| 0.0, 2.5);
        check("round", D::round, f64::round, |_| 0.0, 2.4);
        check("trunc", D::trunc, f64::trunc, |_| 0.0, -2.5);
        check("signum", D::signum, f64::signum, |_| 0.0, -2.5);
        check(
            "to_degrees",
            D::to_degrees,
            f64::to_degrees,
            |_| 180.0 / core::f64::consts::PI,
            x,
        );
        check(
            "to_radians",
            D::to_radians,
            f64::to_radians,
            |_| core::f64::consts::PI / 180.0,
            x,
        );
        check("powi", |d| d.powi(3), |x| x.powi(3), |x| 3.0 * x * x, x);
        check(
            "powf",
            |d| d.powf(Dual::constant(2.5)),
            |x| x.powf(2.5),
            |x| 2.5 * x.powf(1.5),
            x,
        );
        check(
            "powf e",
            |e| D::constant(0.3).powf(e),
            |e| 0.3f64.powf(e),
            |e| 0.3f64.powf(e) * 0.3f64.ln(),
            1.5,
        );
        check(
            "log",
            |d| d.log(D::constant(3.0)),
            |x| x.log(3.0),
            |x| 1.0 / (x * 3f64.ln()),
            x,
        );
        check(
            "atan2",
            |d| d.atan2(D::constant(2.0)),
            |y| y.atan2(2.0),
            |y| 2.0 / (y * y + 4.0),
            x,
        );
        check(
            "hypot",
            |d| d.hypot(D::constant(4.0)),
            |a| a.hypot(4.0),
            |a| a / a.hypot(4.0),
            x,
        );
        let (s, c) = Dual::variable(x).sin_cos();
        assert_eq!(
            (s.re, s.eps, c.re, c.eps),
            (x.sin(), x.cos(), x.cos(), -x.sin())
        );
    }

    /// Every binary method: the dual part is the sum of the partials along each argument,
    /// checked by central differences.
    #[test]
    fn binary_derivatives_against_finite_differences() {
        let fs: [Binary; 9] = [
            ("powf", D::powf, f64::powf),
            ("log", D::log, f64::log),
            ("atan2", D::atan2, f64::atan2),
            ("hypot", D::hypot, f64::hypot),
            ("max", D::max, f64::max),
            ("min", D::min, f64::min),
            ("rem", |a, b| a % b, |a, b| a % b),
            ("div", |a, b| a / b, |a, b| a / b),
            (
                "mul_add",
                |a, b| a.mul_add(b, a * b),
                |a, b| a.mul_add(b, a * b),
            ),
        ];
        let h = 1e-6;
        for (name, f, g) in fs {
            for (a, b) in [(1.3, 2.7), (2.9, 0.8)] {
                let (da, db) = (0.4, -1.1);
                let y = f(Dual::new(a, da), Dual::new(b, db));
                let fd = (g(a + h * da, b + h * db) - g(a - h * da, b - h * db)) / (2.0 * h);
                assert!(close(y.eps, fd, 1e-7), "{name}: {} vs {fd}", y.eps);
                assert_eq!(y.re, g(a, b), "{name}");
            }
        }
    }

    #[test]
    fn conventions_at_kinks() {
        let zero = Dual::variable(0.0);
        assert_eq!(zero.abs().eps, 0.0);
        assert_eq!(zero.powi(0).eps, 0.0);
        assert_eq!(zero.powf(D::constant(0.0)).eps, 0.0);
        assert_eq!(zero.hypot(D::variable(0.0)).eps, 0.0);
        // A constant stays constant where the derivative is infinite or NaN.
        assert_eq!(D::constant(0.0).sqrt().eps, 0.0);
        assert!(D::constant(-2.0).powf(D::variable(2.0)).eps.is_nan());
        let y = D::variable(-2.0).powf(D::constant(2.0));
        assert_eq!((y.re, y.eps), (4.0, -4.0));
        // Ties go to the receiver; NaN is not selected.
        let (a, b) = (D::new(1.0, 1.0), D::new(1.0, 2.0));
        assert_eq!((a.max(b).eps, a.min(b).eps), (1.0, 1.0));
        assert_eq!(D::nan().max(b).eps, 2.0);
        let c = D::new(5.0, 1.0).clamp(D::new(0.0, 2.0), D::new(3.0, 3.0));
        assert_eq!((c.re, c.eps), (3.0, 3.0));
        assert_eq!(D::new(-1.0, 1.0).copysign(D::constant(2.0)).eps, -1.0);
        assert_eq!(D::new(3.0, 1.0).abs_sub(D::new(1.0, 5.0)).eps, -4.0);
    }

    #[test]
    fn predicates_and_constants() {
        assert!(D::nan().is_nan() && D::infinity().is_infinite() && !D::max_value().is_nan());
        assert_eq!(D::epsilon().re, f64::EPSILON);
        assert_eq!(D::min_positive_value().eps, 0.0);
        assert!(D::neg_zero().is_sign_negative());
        assert_eq!(Dual::new(1.0, 1.0).classify(), FpCategory::Normal);
        assert_eq!(D::new(1.0, 3.0).integer_decode(), 1.0f64.integer_decode());
        assert_eq!(<D as FloatConst>::PI().re, core::f64::consts::PI);
        assert_eq!(<Dual<f32> as FloatConst>::TAU().re, core::f32::consts::TAU);
    }

    /// Nested duals: the second derivative of `x³` is `6x`.
    #[test]
    fn nested() {
        let x = Dual::new(Dual::variable(2.0), Dual::constant(1.0));
        let y = x.powi(3);
        assert_eq!((y.re.re, y.eps.re, y.eps.eps), (8.0, 12.0, 12.0));
    }
}
