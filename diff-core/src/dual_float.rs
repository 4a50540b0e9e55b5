//! [`num_traits::Float`] for [`Dual`], and its arithmetic operators, built from the rule
//! table (`float_rules.rs`): each method evaluates the table's forward pass on the values
//! `re` and takes the dual part `Σ eps_i · partial_i` along the arguments' dual parts.
//! Nothing here writes a derivative by hand, so `Dual` follows diff-std's rules,
//! including their conventions at points where a function is not differentiable.
//!
//! A zero dual part contributes nothing even where its partial is infinite or NaN
//! (`sqrt` at 0, `powf` with a constant exponent at a negative base): a constant stays a
//! constant. A zero dual part against a finite partial is still multiplied, so that the
//! dual part of a nested dual number (`Dual<Dual<f64>>`, whose `is_zero` looks at the
//! value only) keeps its own dual part.
//!
//! [`num_traits::FloatConst`] gives constants.

use core::num::FpCategory;
use core::ops::{Add, Div, Mul, Neg, Rem, Sub};

use num_traits::{Float, FloatConst};

use crate::float_rules::NotCaptured;
use crate::float_rules::{cast, rem_quotient};
use crate::Dual;

/// `Σ eps_i · partial_i`, where a zero `eps_i` contributes nothing against a partial that
/// is not finite.
#[inline(always)]
fn dual_part<T: Float, const N: usize>(eps: [T; N], partials: [T; N]) -> T {
    let term = |i: usize| {
        if eps[i].is_zero() && !partials[i].is_finite() {
            T::zero()
        } else {
            eps[i] * partials[i]
        }
    };
    (1..N).fold(term(0), |sum, i| sum + term(i))
}

/// The dual part of the selected argument (see the table's selection form: the others'
/// are not multiplied by zero).
#[inline(always)]
fn dual_selected<T: Float, const N: usize>(eps: [T; N], selected: [bool; N]) -> T {
    (0..N)
        .filter(|&i| selected[i])
        .fold(T::zero(), |sum, i| sum + eps[i])
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

/// Builds [`OnScalar`], the `Float` methods of `Dual` and its operators from the table
/// (`crate::float_rules!(dual)`).
macro_rules! dual {
    // The number of float parameters of a rule.
    (@count $($param:ident)*) => { 0 $(+ dual!(@one $param))* };
    (@one $param:ident) => { 1 };

    // Shadows the parameters before the partials are evaluated.
    (@shadow $($param:ident)*) => {
        $(
            #[allow(unused_variables)]
            let $param = NotCaptured;
        )*
    };

    (@part $eps:ident zero) => {{
        let _ = $eps;
        Self::zero()
    }};
    (@part $eps:ident ($($d:expr),+)) => { dual_part($eps, [$($d),+]) };
    (@part $eps:ident [$($d:expr),+]) => { dual_selected($eps, [$($d),+]) };

    // A `Float` method; the operators are not.
    (@float [$($doc:literal)*] add $($rest:tt)*) => {};
    (@float [$($doc:literal)*] sub $($rest:tt)*) => {};
    (@float [$($doc:literal)*] mul $($rest:tt)*) => {};
    (@float [$($doc:literal)*] div $($rest:tt)*) => {};
    (@float [$($doc:literal)*] neg $($rest:tt)*) => {};
    (@float [$($doc:literal)*] rem $($rest:tt)*) => {};
    (@float [$($doc:literal)*] $name:ident $jvp:ident
        ($x:ident $(, $p:ident)* $(; $c:ident : $cty:ty)*)
    ) => {
        $(#[doc = $doc])*
        #[inline(always)]
        fn $name(self $(, $p: Self)* $(, $c: $cty)*) -> Self {
            let (re, eps) =
                <T as OnScalar>::$jvp(self.re $(, $p.re)* $(, $c)*, [self.eps $(, $p.eps)*]);
            Dual::new(re, eps)
        }
    };

    // An operator; the `Float` methods are not.
    (@operator [$($doc:literal)*] add $jvp:ident $params:tt) => {
        dual!(@binary [$($doc)*] Add add $jvp);
    };
    (@operator [$($doc:literal)*] sub $jvp:ident $params:tt) => {
        dual!(@binary [$($doc)*] Sub sub $jvp);
    };
    (@operator [$($doc:literal)*] mul $jvp:ident $params:tt) => {
        dual!(@binary [$($doc)*] Mul mul $jvp);
    };
    (@operator [$($doc:literal)*] div $jvp:ident $params:tt) => {
        dual!(@binary [$($doc)*] Div div $jvp);
    };
    (@operator [$($doc:literal)*] rem $jvp:ident $params:tt) => {
        dual!(@binary [$($doc)*] Rem rem $jvp);
    };
    (@operator [$($doc:literal)*] neg $jvp:ident $params:tt) => {
        impl<T: Float> Neg for Dual<T> {
            type Output = Self;
            $(#[doc = $doc])*
            #[inline(always)]
            fn neg(self) -> Self {
                let (re, eps) = <T as OnScalar>::$jvp(self.re, [self.eps]);
                Dual::new(re, eps)
            }
        }
    };
    (@operator $($rest:tt)*) => {};

    (@binary [$($doc:literal)*] $trait:ident $method:ident $jvp:ident) => {
        impl<T: Float> $trait for Dual<T> {
            type Output = Self;
            $(#[doc = $doc])*
            #[inline(always)]
            fn $method(self, rhs: Self) -> Self {
                let (re, eps) = <T as OnScalar>::$jvp(self.re, rhs.re, [self.eps, rhs.eps]);
                Dual::new(re, eps)
            }
        }
    };

    ($(
        $(#[doc = $doc:literal])*
        ($vjp:ident, $jvp:ident) $name:ident ($x:ident $(, $p:ident)* $(; $c:ident : $cty:ty)*)
            -> $y:ident = $value:expr $(, $s:ident = $se:expr)* => $partials:tt;
    )*) => {
        /// The rules on the scalar type of a dual number: `x.__jvp_NAME(args.., eps)` is
        /// the value of `NAME` at `x, args..` and its derivative along `eps` (one entry per
        /// float parameter, the receiver first).
        trait OnScalar: Float {
            $(
                #[inline(always)]
                fn $jvp(
                    self
                    $(, $p: Self)*
                    $(, $c: $cty)*,
                    eps: [Self; dual!(@count $x $($p)*)],
                ) -> (Self, Self) {
                    let $x = self;
                    let $y = $value;
                    $(let $s = $se;)*
                    dual!(@shadow $x $($p)* $($c)*);
                    ($y, dual!(@part eps $partials))
                }
            )*
        }

        impl<T: Float> OnScalar for T {}

        impl<T: Float> Float for Dual<T> {
            $(dual!(@float [$($doc)*] $name $jvp ($x $(, $p)* $(; $c : $cty)*));)*

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

            #[inline(always)]
            fn classify(self) -> FpCategory {
                self.re.classify()
            }
            #[inline(always)]
            fn integer_decode(self) -> (u64, i16, i8) {
                self.re.integer_decode()
            }

            // Compositions of the table's operations.

            #[inline(always)]
            fn sin_cos(self) -> (Self, Self) {
                (self.sin(), self.cos())
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
        }

        $(dual!(@operator [$($doc)*] $name $jvp ($x $(, $p)*));)*
    };
}

crate::float_rules!(dual);

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

    /// Nested duals where a first derivative is zero: `d²/dx² sin(x²) = 2 cos(x²) -
    /// 4x² sin(x²)`, which is 2 at 0, where the inner dual part of `x²` has value zero.
    #[test]
    fn nested_through_a_zero_first_derivative() {
        for x in [0.0, 0.7] {
            let v = Dual::new(Dual::variable(x), Dual::constant(1.0));
            let y = (v * v).sin();
            let (s, c) = (x * x).sin_cos();
            assert!(close(y.eps.re, 2.0 * x * c, 1e-15));
            assert!(close(y.eps.eps, 2.0 * c - 4.0 * x * x * s, 1e-15));
        }
    }
}
