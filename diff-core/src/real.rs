//! [`Real`], the scalar trait, and [`no_derivative`].

use crate::{Differentiable, DotIn, InnerProduct, VectorSpace};

/// Scalars: `f32`, `f64` (and any later dual number).
///
/// Implemented for every type that is a [`num_traits::Float`], its own tangent, a
/// [`VectorSpace`], an [`InnerProduct`] and its own [`DotIn`]; it is never implemented by
/// hand.
pub trait Real:
    num_traits::Float + Differentiable<TangentVector = Self> + VectorSpace + InnerProduct + DotIn<Self>
{
}

impl<T> Real for T where
    T: num_traits::Float
        + Differentiable<TangentVector = T>
        + VectorSpace
        + InnerProduct
        + DotIn<T>
{
}

/// Returns `x` unchanged and cuts its derivative.
///
/// Outside differentiable code this is the identity. Inside a `#[differentiable]`
/// function the macro treats the result as a constant: no derivative flows through it
/// (Swift's `withoutDerivative(at:)`, JAX's `stop_gradient`).
#[inline(always)]
pub fn no_derivative<T>(x: T) -> T {
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_real<T: Real>() {}

    #[test]
    fn floats_are_real() {
        is_real::<f32>();
        is_real::<f64>();
    }

    #[test]
    fn no_derivative_is_identity() {
        assert_eq!(no_derivative(2.5), 2.5);
        assert_eq!(no_derivative(vec![1, 2]), vec![1, 2]);
    }
}
