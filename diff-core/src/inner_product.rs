//! [`InnerProduct`] for scalars, arrays and `Vec` (tuples are in `tuples.rs`).

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
