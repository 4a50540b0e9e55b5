//! `Option<T>` as a differentiable value: its tangent is `Option<T::TangentVector>`, where
//! `None` is zero (at `None` the tangent space has only zero; at `Some(x)` it is `x`'s).
//! With the derivative rules of what a body does with one: `Some(x)` ([`some`]),
//! `unwrap`, `expect`, `unwrap_or` ([`OptionRules`]), and matching `Some(p)` / `None`,
//! which the macro writes with `is_some` and `unwrap`.

use crate::{Differentiable, InnerProduct, VectorSpace};

impl<V: VectorSpace> VectorSpace for Option<V> {
    #[inline]
    fn zero_vector() -> Self {
        None
    }
    #[inline]
    fn add(self, other: Self) -> Self {
        match (self, other) {
            (Some(a), Some(b)) => Some(a.add(b)),
            (a, None) => a,
            (None, b) => b,
        }
    }
    #[inline]
    fn scale(self, by: f64) -> Self {
        self.map(|v| v.scale(by))
    }
}

impl<T: Differentiable> Differentiable for Option<T> {
    type TangentVector = Option<T::TangentVector>;
    #[inline]
    fn zero_tangent(&self) -> Self::TangentVector {
        None
    }
    /// Steps the payload along the direction's; `None` stays `None`.
    #[inline]
    fn move_by(&mut self, direction: &Self::TangentVector) {
        if let (Some(x), Some(d)) = (self, direction) {
            x.move_by(d);
        }
    }
}

impl<V: InnerProduct> InnerProduct for Option<V> {
    #[inline]
    fn dot(&self, other: &Self) -> f64 {
        match (self, other) {
            (Some(a), Some(b)) => a.dot(b),
            _ => 0.0,
        }
    }
}

/// `Some(x)`, which generated code calls instead of the variant.
#[inline(always)]
pub fn some<T>(x: T) -> Option<T> {
    Some(x)
}

/// Reverse mode of [`some`]: the adjoint of `x` is the payload's.
#[allow(clippy::type_complexity)]
#[inline(always)]
pub fn __vjp_some<T: Differentiable>(
    x: T,
) -> (
    Option<T>,
    impl FnOnce(Option<T::TangentVector>) -> (Option<T::TangentVector>,),
) {
    (Some(x), |s| (s,))
}

/// Forward mode of [`some`]: the tangent is `Some(dx)`.
#[allow(clippy::type_complexity)]
#[inline(always)]
pub fn __jvp_some<T: Differentiable>(
    x: T,
) -> (
    Option<T>,
    impl FnOnce((Option<T::TangentVector>,)) -> Option<Option<T::TangentVector>>,
) {
    (Some(x), |(d,)| d.map(Some))
}

/// Derivative rules of the `Option` methods that take the payload out.
#[allow(clippy::type_complexity)]
pub trait OptionRules<T: Differentiable> {
    /// Reverse mode of `o.unwrap()`.
    fn __vjp_unwrap(
        self,
    ) -> (
        T,
        impl FnOnce(T::TangentVector) -> (Option<Option<T::TangentVector>>,),
    );
    /// Forward mode of `o.unwrap()`.
    fn __jvp_unwrap(
        self,
    ) -> (
        T,
        impl FnOnce((Option<Option<T::TangentVector>>,)) -> Option<T::TangentVector>,
    );
    /// Reverse mode of `o.expect(msg)`.
    fn __vjp_expect(
        self,
        msg: &str,
    ) -> (
        T,
        impl FnOnce(T::TangentVector) -> (Option<Option<T::TangentVector>>, ()),
    );
    /// Forward mode of `o.expect(msg)`.
    fn __jvp_expect(
        self,
        msg: &str,
    ) -> (
        T,
        impl FnOnce((Option<Option<T::TangentVector>>, ())) -> Option<T::TangentVector>,
    );
    /// Reverse mode of `o.unwrap_or(default)`: the adjoint goes to whichever was taken.
    fn __vjp_unwrap_or(
        self,
        default: T,
    ) -> (
        T,
        impl FnOnce(T::TangentVector) -> (Option<Option<T::TangentVector>>, Option<T::TangentVector>),
    );
    /// Forward mode of `o.unwrap_or(default)`.
    fn __jvp_unwrap_or(
        self,
        default: T,
    ) -> (
        T,
        impl FnOnce(
            (Option<Option<T::TangentVector>>, Option<T::TangentVector>),
        ) -> Option<T::TangentVector>,
    );
    /// Reverse mode of `o.unwrap_or_default()`: the adjoint goes to the payload when
    /// there is one (the default is a constant).
    fn __vjp_unwrap_or_default(
        self,
    ) -> (
        T,
        impl FnOnce(T::TangentVector) -> (Option<Option<T::TangentVector>>,),
    )
    where
        T: Default;
    /// Forward mode of `o.unwrap_or_default()`.
    fn __jvp_unwrap_or_default(
        self,
    ) -> (
        T,
        impl FnOnce((Option<Option<T::TangentVector>>,)) -> Option<T::TangentVector>,
    )
    where
        T: Default;
}

#[allow(clippy::type_complexity)]
impl<T: Differentiable> OptionRules<T> for Option<T> {
    #[inline(always)]
    fn __vjp_unwrap(
        self,
    ) -> (
        T,
        impl FnOnce(T::TangentVector) -> (Option<Option<T::TangentVector>>,),
    ) {
        (self.unwrap(), |s| (Some(Some(s)),))
    }
    #[inline(always)]
    fn __jvp_unwrap(
        self,
    ) -> (
        T,
        impl FnOnce((Option<Option<T::TangentVector>>,)) -> Option<T::TangentVector>,
    ) {
        (self.unwrap(), |(d,)| d.flatten())
    }
    #[inline(always)]
    fn __vjp_expect(
        self,
        msg: &str,
    ) -> (
        T,
        impl FnOnce(T::TangentVector) -> (Option<Option<T::TangentVector>>, ()),
    ) {
        (self.expect(msg), |s| (Some(Some(s)), ()))
    }
    #[inline(always)]
    fn __jvp_expect(
        self,
        msg: &str,
    ) -> (
        T,
        impl FnOnce((Option<Option<T::TangentVector>>, ())) -> Option<T::TangentVector>,
    ) {
        (self.expect(msg), |(d, ())| d.flatten())
    }
    #[inline(always)]
    fn __vjp_unwrap_or(
        self,
        default: T,
    ) -> (
        T,
        impl FnOnce(T::TangentVector) -> (Option<Option<T::TangentVector>>, Option<T::TangentVector>),
    ) {
        let taken = self.is_some();
        (self.unwrap_or(default), move |s| {
            if taken {
                (Some(Some(s)), None)
            } else {
                (None, Some(s))
            }
        })
    }
    #[inline(always)]
    fn __jvp_unwrap_or(
        self,
        default: T,
    ) -> (
        T,
        impl FnOnce(
            (Option<Option<T::TangentVector>>, Option<T::TangentVector>),
        ) -> Option<T::TangentVector>,
    ) {
        let taken = self.is_some();
        (self.unwrap_or(default), move |(d, dd)| {
            if taken {
                d.flatten()
            } else {
                dd
            }
        })
    }
    #[inline(always)]
    fn __vjp_unwrap_or_default(
        self,
    ) -> (
        T,
        impl FnOnce(T::TangentVector) -> (Option<Option<T::TangentVector>>,),
    )
    where
        T: Default,
    {
        let taken = self.is_some();
        (self.unwrap_or_default(), move |s| {
            (taken.then_some(Some(s)),)
        })
    }
    #[inline(always)]
    fn __jvp_unwrap_or_default(
        self,
    ) -> (
        T,
        impl FnOnce((Option<Option<T::TangentVector>>,)) -> Option<T::TangentVector>,
    )
    where
        T: Default,
    {
        let taken = self.is_some();
        (self.unwrap_or_default(), move |(d,)| {
            if taken {
                d.flatten()
            } else {
                None
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_tangents() {
        assert_eq!(Some(1.0).add(None), Some(1.0));
        assert_eq!(None.add(Some(2.0)).scale(2.0), Some(4.0));
        assert_eq!(Some(2.0).dot(&Some(3.0)), 6.0);
        let mut o = Some(1.0);
        o.move_by(&Some(0.5));
        assert_eq!(o, Some(1.5));
        let (v, pb) = __vjp_some(2.0);
        assert_eq!((v, pb(Some(3.0))), (Some(2.0), (Some(3.0),)));
        let (v, pb) = Some(2.0).__vjp_unwrap_or(5.0);
        assert_eq!((v, pb(1.0)), (2.0, (Some(Some(1.0)), None)));
        let (v, df) = None.__jvp_unwrap_or(5.0);
        assert_eq!((v, df((None, Some(1.0)))), (5.0, Some(1.0)));
    }
}
