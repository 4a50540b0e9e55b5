//! [`VectorSpace`]: tangent vector algebra, and its implementations for scalars, arrays
//! and `Vec` (tuples are in `tuples.rs`).

/// The algebra of tangent vectors: an additive identity, addition and scaling.
///
/// A `Vec`'s zero is the empty `Vec`, which adds as a vector of zeros of any length, so
/// that a zero can be produced without knowing a length.
pub trait VectorSpace: Clone {
    /// The additive identity.
    fn zero_vector() -> Self;
    /// Vector addition.
    fn add(self, other: Self) -> Self;
    /// Multiplication by a scalar.
    fn scale(self, by: f64) -> Self;
}

macro_rules! float_vector_space {
    ($($t:ty),*) => {$(
        impl VectorSpace for $t {
            #[inline(always)]
            fn zero_vector() -> Self {
                0.0
            }
            #[inline(always)]
            fn add(self, other: Self) -> Self {
                self + other
            }
            #[inline(always)]
            fn scale(self, by: f64) -> Self {
                self * by as $t
            }
        }
    )*};
}
float_vector_space!(f32, f64);

impl<T: VectorSpace, const N: usize> VectorSpace for [T; N] {
    #[inline]
    fn zero_vector() -> Self {
        core::array::from_fn(|_| T::zero_vector())
    }
    #[inline]
    fn add(self, other: Self) -> Self {
        let mut other = other.into_iter();
        // `other` has exactly N elements, so `next` never runs out.
        self.map(|a| a.add(other.next().expect("arrays of equal length")))
    }
    #[inline]
    fn scale(self, by: f64) -> Self {
        self.map(|a| a.scale(by))
    }
}

/// Panics unless two non-empty lengths agree (an empty tangent stands for zero).
#[inline]
#[track_caller]
pub(crate) fn check_lengths(what: &str, left: usize, right: usize) {
    assert!(
        left == right,
        "diff: {what} of tangent vectors of different lengths ({left} and {right}); \
         a Vec tangent must have the length of its value, or be empty (zero)"
    );
}

impl<T: VectorSpace> VectorSpace for Vec<T> {
    /// The empty `Vec`, which [`add`](VectorSpace::add) treats as zeros of any length.
    #[inline]
    fn zero_vector() -> Self {
        Vec::new()
    }
    /// Element-wise sum. An empty side is zero; otherwise the lengths must match.
    ///
    /// # Panics
    /// If both sides are non-empty and their lengths differ.
    #[inline]
    #[track_caller]
    fn add(self, other: Self) -> Self {
        if other.is_empty() {
            return self;
        }
        if self.is_empty() {
            return other;
        }
        check_lengths("addition", self.len(), other.len());
        // In place: the sum reuses `self`'s buffer.
        let mut sum = self;
        for (a, b) in sum.iter_mut().zip(other) {
            crate::support::accumulate_into(a, b);
        }
        sum
    }
    #[inline]
    fn scale(self, by: f64) -> Self {
        let mut scaled = self;
        for a in scaled.iter_mut() {
            let old = core::mem::replace(a, T::zero_vector());
            *a = old.scale(by);
        }
        scaled
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats() {
        assert_eq!(f64::zero_vector(), 0.0);
        assert_eq!(f32::zero_vector(), 0.0);
        assert_eq!(1.5f64.add(2.0), 3.5);
        assert_eq!(1.5f32.add(2.0), 3.5);
        assert_eq!(1.5f64.scale(-2.0), -3.0);
        assert_eq!(1.5f32.scale(-2.0), -3.0);
    }

    #[test]
    fn arrays() {
        assert_eq!(<[f64; 3]>::zero_vector(), [0.0; 3]);
        assert_eq!([1.0, 2.0].add([10.0, 20.0]), [11.0, 22.0]);
        assert_eq!([1.0f32, 2.0].scale(3.0), [3.0, 6.0]);
        assert_eq!(<[[f64; 2]; 2]>::zero_vector(), [[0.0; 2]; 2]);
        assert_eq!(<[f64; 0]>::zero_vector(), []);
    }

    #[test]
    fn vecs() {
        assert!(Vec::<f64>::zero_vector().is_empty());
        assert_eq!(vec![1.0, 2.0].add(vec![3.0, 4.0]), vec![4.0, 6.0]);
        assert_eq!(Vec::zero_vector().add(vec![3.0, 4.0]), vec![3.0, 4.0]);
        assert_eq!(vec![3.0, 4.0].add(Vec::zero_vector()), vec![3.0, 4.0]);
        assert_eq!(vec![1.0f32, -2.0].scale(0.5), vec![0.5, -1.0]);
        assert_eq!(
            vec![vec![1.0], vec![]].add(vec![vec![], vec![2.0]]),
            vec![vec![1.0], vec![2.0]]
        );
    }

    #[test]
    #[should_panic(expected = "tangent vectors of different lengths (2 and 3)")]
    fn vec_length_mismatch() {
        let _ = vec![1.0, 2.0].add(vec![1.0, 2.0, 3.0]);
    }
}
