//! Derivative rules of conversions between float types: `x.into()` ([`IntoRules`]) and
//! `f64::from(x)` ([`FromRules`]). The derivative of a conversion is the conversion of
//! the tangent.
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
    }
}
