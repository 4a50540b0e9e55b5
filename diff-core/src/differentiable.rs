//! [`Differentiable`] and its implementations for scalars, arrays, `Vec` and slices
//! (tuples are in `tuples.rs`).

use crate::vector_space::{check_lengths, VectorSpace};

/// A type with a tangent space: what a derivative with respect to a value of it is.
///
/// `#[derive(Differentiable)]` implements it for structs, with a synthesized tangent struct.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not Differentiable, but a derivative is asked with respect to a value of it",
    label = "not Differentiable",
    note = "derive it (`#[derive(Differentiable)]` on a struct), or leave the parameter out of the derivative: `#[differentiable(wrt = (..))]` naming the others, or `no_derivative(..)` around the value",
    note = "for a reference `&T` given to an operator, write `at: &x`, or type the closure's parameter (`of: |m: &T| ..`)"
)]
pub trait Differentiable {
    /// The type of tangent vectors (and of gradients) at a value of this type.
    type TangentVector: VectorSpace;
    /// A zero tangent shaped like `self` (for a `Vec`, a `Vec` of zeros of the same length).
    fn zero_tangent(&self) -> Self::TangentVector;
    /// Steps along a tangent: `self += direction` (for optimizers).
    fn move_by(&mut self, direction: &Self::TangentVector);
    /// `self` with any derivative it carries in its representation removed: the identity,
    /// except for dual numbers, whose dual part it zeroes. `no_derivative(e)` in a
    /// differentiable body uses it, so it also cuts higher-order derivatives (`hessian!`).
    #[inline(always)]
    fn without_derivative(self) -> Self
    where
        Self: Sized,
    {
        self
    }
}

macro_rules! float_differentiable {
    ($($t:ty),*) => {$(
        impl Differentiable for $t {
            type TangentVector = $t;
            #[inline(always)]
            fn zero_tangent(&self) -> $t {
                0.0
            }
            #[inline(always)]
            fn move_by(&mut self, direction: &$t) {
                *self += *direction;
            }
        }
    )*};
}
float_differentiable!(f32, f64);

impl<T: Differentiable, const N: usize> Differentiable for [T; N] {
    type TangentVector = [T::TangentVector; N];
    #[inline]
    fn zero_tangent(&self) -> Self::TangentVector {
        self.each_ref().map(T::zero_tangent)
    }
    #[inline]
    fn move_by(&mut self, direction: &Self::TangentVector) {
        for (x, d) in self.iter_mut().zip(direction) {
            x.move_by(d);
        }
    }
}

impl<T: Differentiable> Differentiable for [T] {
    type TangentVector = Vec<T::TangentVector>;
    #[inline]
    fn zero_tangent(&self) -> Self::TangentVector {
        self.iter().map(T::zero_tangent).collect()
    }
    /// Steps every element along its tangent. An empty direction is zero (no step).
    ///
    /// # Panics
    /// If `direction` is non-empty and its length differs from `self`'s.
    #[inline]
    #[track_caller]
    fn move_by(&mut self, direction: &Self::TangentVector) {
        if direction.is_empty() {
            return;
        }
        check_lengths("move_by", self.len(), direction.len());
        for (x, d) in self.iter_mut().zip(direction) {
            x.move_by(d);
        }
    }
}

impl<T: Differentiable> Differentiable for Vec<T> {
    type TangentVector = Vec<T::TangentVector>;
    #[inline]
    fn zero_tangent(&self) -> Self::TangentVector {
        self.as_slice().zero_tangent()
    }
    /// Steps every element along its tangent. An empty direction is zero (no step).
    ///
    /// # Panics
    /// If `direction` is non-empty and its length differs from `self`'s.
    #[inline]
    #[track_caller]
    fn move_by(&mut self, direction: &Self::TangentVector) {
        self.as_mut_slice().move_by(direction);
    }
}

/// Answers whether `T` is Differentiable by which implementation applies: both when it
/// is (and then the choice of `A` is ambiguous), only the first when it is not.
#[doc(hidden)]
pub trait LeftOutOfTheDerivative<A> {}
#[doc(hidden)]
pub struct AsNotDifferentiable;
#[doc(hidden)]
pub struct ButItIsDifferentiable;
impl<T: ?Sized> LeftOutOfTheDerivative<AsNotDifferentiable> for T {}
impl<T: ?Sized + Differentiable> LeftOutOfTheDerivative<ButItIsDifferentiable> for T {}

/// Compiles only when `T` is not Differentiable: a parameter of type `T` left out of
/// the derivative because its type's definition does not make it Differentiable stays
/// out only while that is true (if it becomes Differentiable by some means the macro
/// could not read, the program does not compile instead of losing a derivative).
#[doc(hidden)]
#[inline(always)]
pub fn left_out_of_the_derivative<T: ?Sized + LeftOutOfTheDerivative<A>, A>() {}

/// A value that arithmetic differentiated by the float rules may produce: a float (or a
/// dual number). In a crate that implements arithmetic operators for its own types,
/// generated code asks it of the result of such arithmetic, so that an operand the macro
/// did not see is such a type (whose operator has derivatives of its own) is an error
/// rather than a derivative computed by the wrong rule.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a float, but the macro differentiated this operator by the rules of floats",
    label = "an arithmetic operator on `{Self}`",
    note = "the macro uses the derivatives of a struct's operator where it sees that an operand is such a struct: give the operand its type first (`let p: {Self} = ..;`)"
)]
pub trait FloatArithmetic {}
impl<T: num_traits::Float> FloatArithmetic for T {}

/// Compiles when `x` is a float ([`FloatArithmetic`]).
#[doc(hidden)]
#[inline(always)]
pub fn float_arithmetic<T: FloatArithmetic>(_x: &T) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats() {
        let mut x = 1.5f64;
        assert_eq!(x.zero_tangent(), 0.0);
        x.move_by(&0.25);
        assert_eq!(x, 1.75);
        let mut y = 1.5f32;
        assert_eq!(y.zero_tangent(), 0.0);
        y.move_by(&-0.5);
        assert_eq!(y, 1.0);
    }

    #[test]
    fn arrays() {
        let mut a = [1.0, 2.0, 3.0];
        assert_eq!(a.zero_tangent(), [0.0; 3]);
        a.move_by(&[1.0, 1.0, -1.0]);
        assert_eq!(a, [2.0, 3.0, 2.0]);
        let nested = [vec![1.0f32, 2.0], vec![3.0]];
        assert_eq!(nested.zero_tangent(), [vec![0.0, 0.0], vec![0.0]]);
    }

    #[test]
    fn vecs_and_slices() {
        let mut v = vec![1.0, 2.0];
        assert_eq!(v.zero_tangent(), vec![0.0, 0.0]);
        v.move_by(&vec![0.5, -0.5]);
        assert_eq!(v, vec![1.5, 1.5]);
        v.move_by(&Vec::zero_vector());
        assert_eq!(v, vec![1.5, 1.5]);

        let s: &mut [f64] = &mut [1.0, 2.0, 3.0];
        assert_eq!(s.zero_tangent(), vec![0.0; 3]);
        s.move_by(&vec![1.0, 2.0, 3.0]);
        assert_eq!(s, &[2.0, 4.0, 6.0]);

        let nested = vec![[1.0, 2.0]; 3];
        assert_eq!(nested.zero_tangent(), vec![[0.0, 0.0]; 3]);
    }

    #[test]
    #[should_panic(expected = "move_by of tangent vectors of different lengths (2 and 1)")]
    fn slice_move_by_length_mismatch() {
        let mut v = vec![1.0, 2.0];
        v.move_by(&vec![1.0]);
    }
}
