//! Values without a derivative: integers and `bool`, whose tangent is [`NoTangent`] (a
//! zero-dimensional tangent space, like JAX's `float0`).

use crate::{Differentiable, InnerProduct, VectorSpace};
use core::ops::{Add, Div, Mul, Neg, Rem, Sub};

/// The tangent of a value without a derivative: an integer, a `bool`, or a
/// `#[no_derivative]` field. It has one element, zero; arithmetic on it gives zero, so
/// generated code may treat a discrete value like any other (`(n + 1) as f64` has
/// derivative zero). A tuple `(f64, usize)` has the tangent `(f64, NoTangent)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NoTangent;

macro_rules! discrete {
    ($($t:ty),*) => {$(
        impl Differentiable for $t {
            type TangentVector = NoTangent;
            #[inline(always)]
            fn zero_tangent(&self) -> NoTangent {
                NoTangent
            }
            #[inline(always)]
            fn move_by(&mut self, _direction: &NoTangent) {}
        }
        impl Mul<NoTangent> for $t {
            type Output = NoTangent;
            #[inline(always)]
            fn mul(self, _: NoTangent) -> NoTangent {
                NoTangent
            }
        }
    )*};
}
discrete!(bool, i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

impl Differentiable for NoTangent {
    type TangentVector = NoTangent;
    #[inline(always)]
    fn zero_tangent(&self) -> NoTangent {
        NoTangent
    }
    #[inline(always)]
    fn move_by(&mut self, _direction: &NoTangent) {}
}

impl VectorSpace for NoTangent {
    #[inline(always)]
    fn zero_vector() -> Self {
        NoTangent
    }
    #[inline(always)]
    fn add(self, _other: Self) -> Self {
        NoTangent
    }
    #[inline(always)]
    fn scale(self, _by: f64) -> Self {
        NoTangent
    }
}

impl InnerProduct for NoTangent {
    #[inline(always)]
    fn dot(&self, _other: &Self) -> f64 {
        0.0
    }
}

impl<S: num_traits::Zero> crate::DotIn<S> for NoTangent {
    #[inline(always)]
    fn dot_in(&self, _other: &Self) -> S {
        S::zero()
    }
}

impl Neg for NoTangent {
    type Output = NoTangent;
    #[inline(always)]
    fn neg(self) -> NoTangent {
        NoTangent
    }
}

macro_rules! zero_operators {
    ($($tr:ident::$f:ident),*) => {$(
        impl<B> $tr<B> for NoTangent {
            type Output = NoTangent;
            #[inline(always)]
            fn $f(self, _: B) -> NoTangent {
                NoTangent
            }
        }
    )*};
}
zero_operators!(Add::add, Sub::sub, Mul::mul, Div::div, Rem::rem);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn discrete_values_have_a_zero_tangent() {
        assert_eq!(7usize.zero_tangent(), NoTangent);
        assert_eq!(3usize * NoTangent + NoTangent / 2, NoTangent);
        assert_eq!(VectorSpace::add(NoTangent, NoTangent).scale(2.0), NoTangent);
        assert_eq!(NoTangent.dot(&NoTangent), 0.0);
    }
}
