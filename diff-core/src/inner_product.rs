//! [`InnerProduct`] and [`DotIn`] for scalars, arrays and `Vec` (tuples are in `tuples.rs`).

use crate::vector_space::check_lengths;

/// The inner product of two tangents, as `f64`.
///
/// Used to derive one mode from the other: for a scalar result the differential is
/// `dx -> <pullback(1), dx>`, and for a scalar input the pullback is
/// `dy -> <differential(1), dy>`.
pub trait InnerProduct {
    /// The inner product `<self, other>`.
    fn dot(&self, other: &Self) -> f64;
}

impl InnerProduct for f64 {
    #[inline(always)]
    fn dot(&self, other: &Self) -> f64 {
        self * other
    }
}

impl InnerProduct for f32 {
    #[inline(always)]
    fn dot(&self, other: &Self) -> f64 {
        f64::from(*self) * f64::from(*other)
    }
}

impl<T: InnerProduct, const N: usize> InnerProduct for [T; N] {
    #[inline]
    fn dot(&self, other: &Self) -> f64 {
        self.iter().zip(other).map(|(a, b)| a.dot(b)).sum()
    }
}

impl<T: InnerProduct> InnerProduct for Vec<T> {
    /// Sum of element-wise inner products. An empty side is zero, giving `0.0`.
    ///
    /// # Panics
    /// If both sides are non-empty and their lengths differ.
    #[inline]
    #[track_caller]
    fn dot(&self, other: &Self) -> f64 {
        if self.is_empty() || other.is_empty() {
            return 0.0;
        }
        check_lengths("inner product", self.len(), other.len());
        self.iter().zip(other).map(|(a, b)| a.dot(b)).sum()
    }
}

/// The inner product of two tangents as a scalar of type `S`: the tangents' own scalar
/// (`f64`, `f32`, or a dual number at second order), where [`InnerProduct`] gives an
/// `f64`. A mode derived from a registration generic over its scalar
/// (`dx -> <pullback(1), dx>`) pairs with it, so that on dual numbers the pairing keeps
/// its derivative.
pub trait DotIn<S> {
    /// `<self, other>` in `S`.
    fn dot_in(&self, other: &Self) -> S;
}

impl DotIn<f64> for f64 {
    #[inline(always)]
    fn dot_in(&self, other: &Self) -> f64 {
        self * other
    }
}

impl DotIn<f32> for f32 {
    #[inline(always)]
    fn dot_in(&self, other: &Self) -> f32 {
        self * other
    }
}

impl<T: num_traits::Float> DotIn<crate::Dual<T>> for crate::Dual<T> {
    #[inline(always)]
    fn dot_in(&self, other: &Self) -> crate::Dual<T> {
        *self * *other
    }
}

/// The sum of the element-wise [`DotIn`] of two slices of one length.
#[inline]
fn dot_in_elements<S: num_traits::Zero, T: DotIn<S>>(a: &[T], b: &[T]) -> S {
    a.iter().zip(b).fold(S::zero(), |s, (a, b)| s + a.dot_in(b))
}

impl<S: num_traits::Zero, T: DotIn<S>, const N: usize> DotIn<S> for [T; N] {
    #[inline]
    fn dot_in(&self, other: &Self) -> S {
        dot_in_elements(self, other)
    }
}

impl<S: num_traits::Zero, T: DotIn<S>> DotIn<S> for Vec<T> {
    /// As [`InnerProduct`] for `Vec`: an empty side is zero.
    ///
    /// # Panics
    /// If both sides are non-empty and their lengths differ.
    #[inline]
    fn dot_in(&self, other: &Self) -> S {
        if self.is_empty() || other.is_empty() {
            return S::zero();
        }
        check_lengths("inner product", self.len(), other.len());
        dot_in_elements(self, other)
    }
}

impl<S: num_traits::Zero, T: DotIn<S>> DotIn<S> for Option<T> {
    #[inline]
    fn dot_in(&self, other: &Self) -> S {
        match (self, other) {
            (Some(a), Some(b)) => a.dot_in(b),
            _ => S::zero(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars() {
        assert_eq!(2.0f64.dot(&3.0), 6.0);
        assert_eq!(2.0f32.dot(&-3.0), -6.0);
    }

    #[test]
    fn arrays_and_vecs() {
        assert_eq!([1.0, 2.0].dot(&[3.0, 4.0]), 11.0);
        assert_eq!(vec![1.0, 2.0].dot(&vec![3.0, 4.0]), 11.0);
        assert_eq!(vec![1.0, 2.0].dot(&Vec::new()), 0.0);
        assert_eq!(vec![[1.0f32], [2.0]].dot(&vec![[3.0], [4.0]]), 11.0);
    }

    #[test]
    #[should_panic(expected = "inner product of tangent vectors of different lengths")]
    fn vec_length_mismatch() {
        let _ = vec![1.0].dot(&vec![1.0, 2.0]);
    }
}
