//! Derivative rules of conversions between float types: `x.into()` ([`IntoRules`]) and
//! `f64::from(x)` ([`FromRules`]), and `T::from(x)` for a generic float ([`num_cast`]).
//! The derivative of a conversion is the conversion of the tangent.
use num_traits::NumCast;

/// Derivative rules of `x.into()` for floats.
pub trait IntoRules: Copy + NumCast {
    /// Reverse mode of `x.into()`.
    #[inline(always)]
    fn __vjp_into<U>(self) -> (U, impl FnOnce(U) -> (Option<Self>,) + use<Self, U>)
    where
        Self: Into<U>,
        U: NumCast,
    {
        (self.into(), |d: U| (<Self as NumCast>::from(d),))
    }
    /// Forward mode of `x.into()`.
    #[inline(always)]
    fn __jvp_into<U>(self) -> (U, impl FnOnce((Option<Self>,)) -> Option<U> + use<Self, U>)
    where
        Self: Into<U>,
        U: NumCast,
    {
        (self.into(), |(d,): (Option<Self>,)| {
            d.and_then(<U as NumCast>::from)
        })
    }
}

impl IntoRules for f32 {}
impl IntoRules for f64 {}

/// Derivative rules of `f64::from(x)` and `f32::from(x)`.
pub trait FromRules: Copy + NumCast {
    /// Reverse mode of `Self::from(x)`.
    #[inline(always)]
    fn __vjp_from<S>(x: S) -> (Self, impl FnOnce(Self) -> (Option<S>,) + use<Self, S>)
    where
        S: Into<Self> + NumCast,
    {
        (x.into(), |d: Self| (<S as NumCast>::from(d),))
    }
    /// Forward mode of `Self::from(x)`.
    #[inline(always)]
    fn __jvp_from<S>(
        x: S,
    ) -> (
        Self,
        impl FnOnce((Option<S>,)) -> Option<Self> + use<Self, S>,
    )
    where
        S: Into<Self> + NumCast,
    {
        (x.into(), |(d,): (Option<S>,)| {
            d.and_then(<Self as NumCast>::from)
        })
    }
}

impl FromRules for f32 {}
impl FromRules for f64 {}

/// `T::from(x)` for a generic float `T` (`NumCast::from`, also `T::from_f64(x)` and
/// `T::from_f32(x)`), which generated code calls instead: `None` where `x` is not
/// representable.
#[inline(always)]
pub fn num_cast<T: NumCast, S: NumCast>(x: S) -> Option<T> {
    T::from(x)
}

/// Reverse mode of [`num_cast`]: the adjoint converted back (`None` when the value was).
///
/// At second order the adjoint of a plain float converted to a dual number (`T::from(c)`
/// of a constant, in a function generic over its float) is a dual number; the plain
/// float gets its value. Its dual part, the derivative of that adjoint, is not asked of
/// a plain float: a value that carries a derivative reaches no plain float (converting
/// one stops, `Dual`'s `ToPrimitive`).
#[allow(clippy::type_complexity)]
#[inline(always)]
pub fn __vjp_num_cast<T: NumCast, S: NumCast + Copy>(
    x: S,
) -> (Option<T>, impl FnOnce(Option<T>) -> (Option<S>,)) {
    (T::from(x), |d: Option<T>| {
        (d.and_then(|d| crate::dual::values_only(|| <S as NumCast>::from(d))),)
    })
}

/// Forward mode of [`num_cast`]: the tangent converted.
#[allow(clippy::type_complexity)]
#[inline(always)]
pub fn __jvp_num_cast<T: NumCast, S: NumCast + Copy>(
    x: S,
) -> (Option<T>, impl FnOnce((Option<S>,)) -> Option<Option<T>>) {
    let value = T::from(x);
    let present = value.is_some();
    (value, move |(d,): (Option<S>,)| {
        d.filter(|_| present).map(<T as NumCast>::from)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_convert_the_tangent() {
        let (y, pb): (f64, _) = 1.5f32.__vjp_into();
        assert_eq!(y, 1.5);
        assert_eq!(pb(2.0), (Some(2.0f32),));
        let (y, df): (f64, _) = 1.5f32.__jvp_into();
        assert_eq!((y, df((Some(0.5),))), (1.5, Some(0.5)));
        let (y, pb) = f64::__vjp_from(2.5f32);
        assert_eq!((y, pb(4.0)), (2.5, (Some(4.0f32),)));
        let (y, df) = f64::__jvp_from(2.5f32);
        assert_eq!((y, df((Some(1.0),))), (2.5, Some(1.0)));
        let (y, pb) = __vjp_num_cast::<f32, f64>(2.5);
        assert_eq!((y, pb(Some(4.0))), (Some(2.5), (Some(4.0),)));
        let (y, df) = __jvp_num_cast::<f64, f32>(2.5);
        assert_eq!((y, df((Some(1.0),))), (Some(2.5), Some(Some(1.0))));
    }
}
