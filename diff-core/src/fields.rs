//! How generated code reads and writes the tangent of a field `s.m` or `s.0`: through
//! [`FieldTangent`] for named fields (with [`ConstantField`] places for `#[no_derivative]`
//! ones, reached through the derived tangent's `Deref`), and through [`TupleField`] for
//! positions, which a tuple struct's tangent maps to its own (its `#[no_derivative]`
//! fields are left out, so later positions shift).

use crate::{Differentiable, VectorSpace};
use core::marker::PhantomData;

/// The place of a `#[no_derivative]` field `F` on a derived tangent struct, reached through
/// its `Deref`: a read of the field has tangent zero (of `F`'s tangent type, so that
/// `self.mass * x` is typed like any product), and what is written to it is dropped.
#[doc(hidden)]
pub struct ConstantField<F>(PhantomData<fn() -> F>);

impl<F> Default for ConstantField<F> {
    #[inline(always)]
    fn default() -> Self {
        ConstantField(PhantomData)
    }
}

impl<F: Differentiable> ConstantField<F> {
    #[inline(always)]
    pub fn __diff_field(&self) -> Option<F::TangentVector> {
        None
    }
    #[inline(always)]
    pub fn __diff_accumulate(&mut self, _value: F::TangentVector) {}
    #[inline(always)]
    pub fn __diff_set(&mut self, _value: Option<F::TangentVector>) {}
    #[inline(always)]
    pub fn __diff_take(&mut self) -> Option<F::TangentVector> {
        None
    }
}

/// How generated code reads and writes the tangent of a field `s.m`: the field's tangent
/// itself, except for a `#[no_derivative]` field's [`ConstantField`] place, whose inherent
/// methods of the same names (found first by method resolution) read zero and drop what
/// is written.
pub trait FieldTangent: VectorSpace {
    /// The field's tangent, as an optional tangent (`None` is zero).
    #[inline(always)]
    fn __diff_field(&self) -> Option<Self> {
        Some(self.clone())
    }
    /// `field += value`.
    #[inline(always)]
    fn __diff_accumulate(&mut self, value: Self) {
        crate::__private::accumulate_into(self, value)
    }
    /// `field = value` (`None` is zero).
    #[inline(always)]
    fn __diff_set(&mut self, value: Option<Self>) {
        *self = value.unwrap_or_else(Self::zero_vector);
    }
    /// The field's tangent, leaving zero in its place.
    #[inline(always)]
    fn __diff_take(&mut self) -> Option<Self> {
        Some(core::mem::replace(self, Self::zero_vector()))
    }
}

impl<T: VectorSpace> FieldTangent for T {}

/// A place of a zero-sized type, shared or unique, for as long as asked: what the `Deref`
/// of a derived tangent struct returns for its `#[no_derivative]` fields. Nothing is
/// allocated (a zero-sized type only: checked at compile time).
#[inline(always)]
pub fn zero_sized_place<'a, T: Default + 'a>() -> &'a mut T {
    const { assert!(core::mem::size_of::<T>() == 0) };
    Box::leak(Box::default())
}

/// Field `N` of a tuple or tuple struct's tangent, by the position of the field on the
/// original value: the four accesses of [`FieldTangent`].
pub trait TupleField<const N: usize> {
    /// The field's tangent type.
    type Tangent;
    /// The field's tangent (`None` is zero).
    fn __diff_field(&self) -> Option<Self::Tangent>;
    /// `field += value`.
    fn __diff_accumulate(&mut self, value: Self::Tangent);
    /// `field = value` (`None` is zero).
    fn __diff_set(&mut self, value: Option<Self::Tangent>);
    /// The field's tangent, leaving zero in its place.
    fn __diff_take(&mut self) -> Option<Self::Tangent>;
}

/// The body of a [`TupleField`] impl reaching the tangent's own field `$i` (a path such
/// as `self.1`), for tuples and for the derive's tuple-struct tangents.
#[doc(hidden)]
#[macro_export]
macro_rules! __tuple_field_body {
    ($i:tt) => {
        #[inline(always)]
        fn __diff_field(&self) -> ::core::option::Option<Self::Tangent> {
            $crate::__private::FieldTangent::__diff_field(&self.$i)
        }
        #[inline(always)]
        fn __diff_accumulate(&mut self, value: Self::Tangent) {
            $crate::__private::FieldTangent::__diff_accumulate(&mut self.$i, value)
        }
        #[inline(always)]
        fn __diff_set(&mut self, value: ::core::option::Option<Self::Tangent>) {
            $crate::__private::FieldTangent::__diff_set(&mut self.$i, value)
        }
        #[inline(always)]
        fn __diff_take(&mut self) -> ::core::option::Option<Self::Tangent> {
            $crate::__private::FieldTangent::__diff_take(&mut self.$i)
        }
    };
}

macro_rules! tuple_fields {
    ($( $all:tt : $($S:ident $i:tt),+ ; )*) => {$($(
        tuple_fields!(@one $all $S $i);
    )+)*};
    (@one [$($T:ident)+] $S:ident $i:tt) => {
        impl<$($T: VectorSpace),+> TupleField<$i> for ($($T,)+) {
            type Tangent = $S;
            crate::__tuple_field_body!($i);
        }
    };
}

tuple_fields! {
    [A]: A 0;
    [A B]: A 0, B 1;
    [A B C]: A 0, B 1, C 2;
    [A B C D]: A 0, B 1, C 2, D 3;
    [A B C D E]: A 0, B 1, C 2, D 3, E 4;
    [A B C D E F]: A 0, B 1, C 2, D 3, E 4, F 5;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Hidden {
        n: ConstantField<f64>,
    }

    #[test]
    fn constant_fields_read_zero_and_drop_writes() {
        let h: &mut Hidden = zero_sized_place();
        assert_eq!(h.n.__diff_field(), None);
        h.n.__diff_accumulate(1.0);
        h.n.__diff_set(Some(2.0));
        assert_eq!(h.n.__diff_take(), None);
        let mut x = 2.0f64;
        assert_eq!(x.__diff_field(), Some(2.0));
        x.__diff_accumulate(1.0);
        assert_eq!(x.__diff_take(), Some(3.0));
        assert_eq!(x, 0.0);
    }

    #[test]
    fn tuple_fields_by_position() {
        let mut t = (1.0f64, vec![2.0f64]);
        assert_eq!(TupleField::<1>::__diff_field(&t), Some(vec![2.0]));
        TupleField::<0>::__diff_accumulate(&mut t, 2.0);
        TupleField::<1>::__diff_set(&mut t, None);
        assert_eq!(TupleField::<0>::__diff_take(&mut t), Some(3.0));
        assert_eq!(t, (0.0, vec![]));
    }
}
