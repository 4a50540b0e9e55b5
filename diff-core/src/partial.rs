//! The partial derivatives of the arithmetic operators, applied to a tangent or an
//! adjoint. A scalar partial is its own transpose, so forward mode applies it to an
//! operand's tangent and reverse mode to the result's adjoint, with the same function
//! (diff-macros' `linearization.rs` names them).
//!
//! They are generic functions rather than operator expressions, so rustc need not know a
//! tangent's type where generated code calls them.
use crate::float_rules::rem_quotient;
use crate::VectorSpace;
use core::ops::{Div, Mul, Neg};

/// `-x` (the right operand of a subtraction, or a negation).
#[inline(always)]
pub fn neg<T: VectorSpace>(x: T) -> T {
    x.scale(-1.0)
}

/// `x * b`: the left operand's part of `a * b`.
#[inline(always)]
pub fn times<T: Mul<B, Output = T>, B>(x: T, b: B) -> T {
    x * b
}

/// `a * x`: the right operand's part of `a * b`.
#[inline(always)]
pub fn times_left<T, A: Mul<T, Output = T>>(a: A, x: T) -> T {
    a * x
}

/// `x / b`: the numerator's part of `a / b`.
#[inline(always)]
pub fn over<T: Div<B, Output = T>, B>(x: T, b: B) -> T {
    x / b
}

/// `-(x * y / b)`: the denominator's part of `y = a / b`.
#[inline(always)]
pub fn neg_ratio<T, B>(x: T, y: B, b: B) -> T
where
    T: Mul<B, Output = T> + Div<B, Output = T> + Neg<Output = T>,
{
    -(x * y / b)
}

/// `-(x * q)`, `q` the integer quotient of `a % b` ([`rem_quotient`]): the divisor's
/// part of `a % b`.
#[inline(always)]
pub fn neg_quotient<T, B>(x: T, a: B, b: B) -> T
where
    T: Mul<B, Output = T> + Neg<Output = T>,
    B: num_traits::Float,
{
    -(x * rem_quotient(a, a % b, b))
}

/// The operand of an `as` cast to a float type: a float, whose tangent converts like the
/// value, or an integer or `bool`, whose tangent is `()` (the cast's derivative is zero).
pub trait CastOperand: crate::Differentiable {
    /// The operand's tangent as the cast's result type `S` (`None` is zero): forward mode.
    fn cast_tangent<S: num_traits::NumCast>(d: Self::TangentVector) -> Option<S>;
    /// The cast result's adjoint `s` as the operand's: reverse mode.
    fn cast_adjoint<S: num_traits::NumCast>(s: S) -> Self::TangentVector;
}

macro_rules! float_cast_operand {
    ($($t:ty),*) => {$(
        impl CastOperand for $t {
            #[inline(always)]
            fn cast_tangent<S: num_traits::NumCast>(d: $t) -> Option<S> {
                Some(cast(d))
            }
            #[inline(always)]
            fn cast_adjoint<S: num_traits::NumCast>(s: S) -> $t {
                cast(s)
            }
        }
    )*};
}
float_cast_operand!(f32, f64);

macro_rules! discrete_cast_operand {
    ($($t:ty),*) => {$(
        impl CastOperand for $t {
            #[inline(always)]
            fn cast_tangent<S: num_traits::NumCast>(_: crate::NoTangent) -> Option<S> {
                None
            }
            #[inline(always)]
            fn cast_adjoint<S: num_traits::NumCast>(_: S) -> crate::NoTangent {
                crate::NoTangent
            }
        }
    )*};
}
discrete_cast_operand!(bool, i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

/// `x` converted to the float type `S`, panicking where it is not representable.
#[inline(always)]
fn cast<S: num_traits::NumCast, T: num_traits::NumCast>(x: T) -> S {
    match S::from(x) {
        Some(s) => s,
        None => panic!("diff: a tangent is not representable in the cast's type"),
    }
}

/// `y = a as S`, forward mode: `dy = da as S` (zero when `a` is an integer).
#[inline(always)]
pub fn cast_tangent<S: num_traits::NumCast, T: CastOperand>(
    d: Option<T::TangentVector>,
    _like: &T,
) -> Option<S> {
    d.and_then(T::cast_tangent)
}

/// `y = a as S`, reverse mode: the adjoint `s` of `y` converted back to `a`'s tangent, the
/// transpose of [`cast_tangent`].
#[inline(always)]
pub fn cast_back<S: num_traits::NumCast, T: CastOperand>(s: S, _like: &T) -> T::TangentVector {
    T::cast_adjoint(s)
}

/// A partial applied to an optional tangent (`None` is zero): forward mode's form.
#[inline(always)]
pub fn map<T, U>(d: Option<T>, partial: impl FnOnce(T) -> U) -> Option<U> {
    d.map(partial)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partials() {
        assert_eq!(neg(2.0f32), -2.0);
        assert_eq!(times(3.0, 2.0), 6.0);
        assert_eq!(times_left(3.0, 2.0), 6.0);
        assert_eq!(over(3.0, 2.0), 1.5);
        // y = a / b = 6 / 2: dy/db = -y / b.
        assert_eq!(neg_ratio(1.0, 3.0, 2.0), -1.5);
        // a % b with a = 7, b = 2: d/db = -trunc(3.5).
        assert_eq!(neg_quotient(1.0, 7.0, 2.0), -3.0);
        // 1.0 / 0.1 rounds to 10, but 1.0 % 0.1 = 1 - 9 * 0.1 (0.0999...): d/db = -9.
        assert_eq!(1.0 / 0.1, 10.0);
        assert_eq!(neg_quotient(1.0, 1.0, 0.1), -9.0);
        assert_eq!(neg_quotient(1.0, -1.0, 0.1), 9.0);
        assert_eq!(cast_tangent::<f64, f32>(Some(1.5), &0.0), Some(1.5));
        assert_eq!(cast_tangent::<f64, usize>(Some(crate::NoTangent), &3), None);
        assert_eq!(cast_back(1.5f64, &0.0f32), 1.5f32);
        assert_eq!(map(Some(2.0), |x| times(x, 4.0)), Some(8.0));
        assert_eq!(map(None::<f64>, |x| times(x, 4.0)), None);
    }
}
