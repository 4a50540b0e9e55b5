//! Derivative rules of the `Vec` operations that build collections: `push`,
//! `extend_from_slice`, `insert`, `pop`, `truncate`, `remove`, `swap_remove`, `split_off`,
//! `resize`, `fill`, `clear`, `drain` (methods of [`VecRules`], in the `&mut self`
//! convention of generated code), `vec![x; n]` ([`vec_repeat`]), `[x; N]` ([`array_repeat`]), and `swap` on a `Vec` or an
//! array ([`SwapRule`]), `reverse` ([`ReverseRule`]), `rotate_left` ([`RotateLeftRule`]) and
//! `rotate_right` ([`RotateRightRule`]).
//!
//! A `&mut self` method's reverse mode returns a pullback from `(result tangent, the
//! adjoint of `self` after)` to `(the adjoint of `self` before, the arguments' adjoints)`;
//! its forward mode a differential from `(the tangent of `self` before, the arguments'
//! tangents)` to `(result tangent, the tangent of `self` after)`. `None` is zero, and so
//! is an empty `Vec` (see [`VectorSpace`]).
use crate::vector_space::check_lengths;
use crate::{Differentiable, VectorSpace};
use core::ops::RangeBounds;

/// A tangent of `n` elements from an optional one: `None` and the empty zero become `n`
/// zeros.
fn filled<T: VectorSpace>(d: Option<Vec<T>>, n: usize) -> Vec<T> {
    match d {
        Some(v) if !v.is_empty() => {
            check_lengths("a collection's tangent", v.len(), n);
            v
        }
        _ => (0..n).map(|_| T::zero_vector()).collect(),
    }
}

/// An adjoint of `n` elements, or `None` for zero.
fn present<T>(a: Option<Vec<T>>, n: usize) -> Option<Vec<T>> {
    match a {
        Some(v) if !v.is_empty() => {
            check_lengths("a collection's adjoint", v.len(), n);
            Some(v)
        }
        _ => None,
    }
}

/// Adjoint and tangent of a method that leaves `()`.
type Unit = Option<()>;

/// Derivative rules of the `Vec` methods that grow or shrink it.
#[allow(clippy::type_complexity)]
pub trait VecRules<T: Differentiable> {
    /// Reverse mode of `v.push(x)`.
    fn __vjp_push(
        &mut self,
        x: T,
    ) -> (
        (),
        impl FnOnce(
                (Unit, Option<Vec<T::TangentVector>>),
            ) -> (Option<Vec<T::TangentVector>>, Option<T::TangentVector>)
            + use<Self, T>,
    );
    /// Forward mode of `v.push(x)`.
    fn __jvp_push(
        &mut self,
        x: T,
    ) -> (
        (),
        impl FnOnce(
                (Option<Vec<T::TangentVector>>, Option<T::TangentVector>),
            ) -> (Unit, Option<Vec<T::TangentVector>>)
            + use<Self, T>,
    );
    /// Reverse mode of `v.extend_from_slice(xs)`.
    fn __vjp_extend_from_slice(
        &mut self,
        xs: &[T],
    ) -> (
        (),
        impl FnOnce(
                (Unit, Option<Vec<T::TangentVector>>),
            ) -> (Option<Vec<T::TangentVector>>, Option<Vec<T::TangentVector>>)
            + use<Self, T>,
    );
    /// Forward mode of `v.extend_from_slice(xs)`.
    fn __jvp_extend_from_slice(
        &mut self,
        xs: &[T],
    ) -> (
        (),
        impl FnOnce(
                (Option<Vec<T::TangentVector>>, Option<Vec<T::TangentVector>>),
            ) -> (Unit, Option<Vec<T::TangentVector>>)
            + use<Self, T>,
    );
    /// Reverse mode of `v.insert(i, x)`.
    fn __vjp_insert(
        &mut self,
        i: usize,
        x: T,
    ) -> (
        (),
        impl FnOnce(
                (Unit, Option<Vec<T::TangentVector>>),
            ) -> (Option<Vec<T::TangentVector>>, (), Option<T::TangentVector>)
            + use<Self, T>,
    );
    /// Forward mode of `v.insert(i, x)`.
    fn __jvp_insert(
        &mut self,
        i: usize,
        x: T,
    ) -> (
        (),
        impl FnOnce(
                (Option<Vec<T::TangentVector>>, (), Option<T::TangentVector>),
            ) -> (Unit, Option<Vec<T::TangentVector>>)
            + use<Self, T>,
    );
    /// Reverse mode of `v.pop()`.
    fn __vjp_pop(
        &mut self,
    ) -> (
        Option<T>,
        impl FnOnce(
                (
                    Option<Option<T::TangentVector>>,
                    Option<Vec<T::TangentVector>>,
                ),
            ) -> (Option<Vec<T::TangentVector>>,)
            + use<Self, T>,
    );
    /// Forward mode of `v.pop()`.
    fn __jvp_pop(
        &mut self,
    ) -> (
        Option<T>,
        impl FnOnce(
                (Option<Vec<T::TangentVector>>,),
            ) -> (
                Option<Option<T::TangentVector>>,
                Option<Vec<T::TangentVector>>,
            ) + use<Self, T>,
    );
    /// Reverse mode of `v.truncate(k)`.
    fn __vjp_truncate(
        &mut self,
        k: usize,
    ) -> (
        (),
        impl FnOnce((Unit, Option<Vec<T::TangentVector>>)) -> (Option<Vec<T::TangentVector>>, ())
            + use<Self, T>,
    );
    /// Forward mode of `v.truncate(k)`.
    fn __jvp_truncate(
        &mut self,
        k: usize,
    ) -> (
        (),
        impl FnOnce((Option<Vec<T::TangentVector>>, ())) -> (Unit, Option<Vec<T::TangentVector>>)
            + use<Self, T>,
    );

    /// Reverse mode of `v.remove(i)`.
    fn __vjp_remove(
        &mut self,
        i: usize,
    ) -> (
        T,
        impl FnOnce(
                (Option<T::TangentVector>, Option<Vec<T::TangentVector>>),
            ) -> (Option<Vec<T::TangentVector>>, ())
            + use<Self, T>,
    );
    /// Forward mode of `v.remove(i)`.
    fn __jvp_remove(
        &mut self,
        i: usize,
    ) -> (
        T,
        impl FnOnce(
                (Option<Vec<T::TangentVector>>, ()),
            ) -> (Option<T::TangentVector>, Option<Vec<T::TangentVector>>)
            + use<Self, T>,
    );
    /// Reverse mode of `v.swap_remove(i)`.
    fn __vjp_swap_remove(
        &mut self,
        i: usize,
    ) -> (
        T,
        impl FnOnce(
                (Option<T::TangentVector>, Option<Vec<T::TangentVector>>),
            ) -> (Option<Vec<T::TangentVector>>, ())
            + use<Self, T>,
    );
    /// Forward mode of `v.swap_remove(i)`.
    fn __jvp_swap_remove(
        &mut self,
        i: usize,
    ) -> (
        T,
        impl FnOnce(
                (Option<Vec<T::TangentVector>>, ()),
            ) -> (Option<T::TangentVector>, Option<Vec<T::TangentVector>>)
            + use<Self, T>,
    );
    /// Reverse mode of `v.split_off(k)`.
    fn __vjp_split_off(
        &mut self,
        k: usize,
    ) -> (
        Vec<T>,
        impl FnOnce(
                (Option<Vec<T::TangentVector>>, Option<Vec<T::TangentVector>>),
            ) -> (Option<Vec<T::TangentVector>>, ())
            + use<Self, T>,
    );
    /// Forward mode of `v.split_off(k)`.
    fn __jvp_split_off(
        &mut self,
        k: usize,
    ) -> (
        Vec<T>,
        impl FnOnce(
                (Option<Vec<T::TangentVector>>, ()),
            ) -> (Option<Vec<T::TangentVector>>, Option<Vec<T::TangentVector>>)
            + use<Self, T>,
    );
    /// Reverse mode of `v.resize(m, x)`.
    fn __vjp_resize(
        &mut self,
        m: usize,
        x: T,
    ) -> (
        (),
        impl FnOnce(
                (Unit, Option<Vec<T::TangentVector>>),
            ) -> (Option<Vec<T::TangentVector>>, (), Option<T::TangentVector>)
            + use<Self, T>,
    );
    /// Forward mode of `v.resize(m, x)`.
    fn __jvp_resize(
        &mut self,
        m: usize,
        x: T,
    ) -> (
        (),
        impl FnOnce(
                (Option<Vec<T::TangentVector>>, (), Option<T::TangentVector>),
            ) -> (Unit, Option<Vec<T::TangentVector>>)
            + use<Self, T>,
    );
    /// Reverse mode of `v.fill(x)`.
    fn __vjp_fill(
        &mut self,
        x: T,
    ) -> (
        (),
        impl FnOnce(
                (Unit, Option<Vec<T::TangentVector>>),
            ) -> (Option<Vec<T::TangentVector>>, Option<T::TangentVector>)
            + use<Self, T>,
    );
    /// Forward mode of `v.fill(x)`.
    fn __jvp_fill(
        &mut self,
        x: T,
    ) -> (
        (),
        impl FnOnce(
                (Option<Vec<T::TangentVector>>, Option<T::TangentVector>),
            ) -> (Unit, Option<Vec<T::TangentVector>>)
            + use<Self, T>,
    );
    /// Reverse mode of `v.drain(range)`, which generated code calls as
    /// `v.drain_to_vec(range)` ([`DrainToVec`]).
    fn __vjp_drain_to_vec<R: RangeBounds<usize>>(
        &mut self,
        range: R,
    ) -> (
        Vec<T>,
        impl FnOnce(
                (Option<Vec<T::TangentVector>>, Option<Vec<T::TangentVector>>),
            ) -> (Option<Vec<T::TangentVector>>, ())
            + use<Self, T, R>,
    );
    /// Forward mode of `v.drain(range)`.
    fn __jvp_drain_to_vec<R: RangeBounds<usize>>(
        &mut self,
        range: R,
    ) -> (
        Vec<T>,
        impl FnOnce(
                (Option<Vec<T::TangentVector>>, ()),
            ) -> (Option<Vec<T::TangentVector>>, Option<Vec<T::TangentVector>>)
            + use<Self, T, R>,
    );
    /// Reverse mode of `v.clear()`.
    fn __vjp_clear(
        &mut self,
    ) -> (
        (),
        impl FnOnce((Unit, Option<Vec<T::TangentVector>>)) -> (Option<Vec<T::TangentVector>>,)
            + use<Self, T>,
    );
    /// Forward mode of `v.clear()`.
    fn __jvp_clear(
        &mut self,
    ) -> (
        (),
        impl FnOnce((Option<Vec<T::TangentVector>>,)) -> (Unit, Option<Vec<T::TangentVector>>)
            + use<Self, T>,
    );
}

#[allow(clippy::type_complexity)]
impl<T: Differentiable + Clone> VecRules<T> for Vec<T> {
    #[inline]
    fn __vjp_push(
        &mut self,
        x: T,
    ) -> (
        (),
        impl FnOnce(
                (Unit, Option<Vec<T::TangentVector>>),
            ) -> (Option<Vec<T::TangentVector>>, Option<T::TangentVector>)
            + use<T>,
    ) {
        self.push(x);
        let n = self.len();
        ((), move |(_, after)| match present(after, n) {
            Some(mut a) => {
                let last = a.pop();
                (Some(a), last)
            }
            None => (None, None),
        })
    }
    #[inline]
    fn __jvp_push(
        &mut self,
        x: T,
    ) -> (
        (),
        impl FnOnce(
                (Option<Vec<T::TangentVector>>, Option<T::TangentVector>),
            ) -> (Unit, Option<Vec<T::TangentVector>>)
            + use<T>,
    ) {
        let n = self.len();
        self.push(x);
        ((), move |(before, dx)| {
            if before.is_none() && dx.is_none() {
                return (None, None);
            }
            let mut d = filled(before, n);
            d.push(dx.unwrap_or_else(T::TangentVector::zero_vector));
            (None, Some(d))
        })
    }
    #[inline]
    fn __vjp_extend_from_slice(
        &mut self,
        xs: &[T],
    ) -> (
        (),
        impl FnOnce(
                (Unit, Option<Vec<T::TangentVector>>),
            ) -> (Option<Vec<T::TangentVector>>, Option<Vec<T::TangentVector>>)
            + use<T>,
    ) {
        let n = self.len();
        self.extend_from_slice(xs);
        let total = self.len();
        ((), move |(_, after)| match present(after, total) {
            Some(mut a) => {
                let tail = a.split_off(n);
                (Some(a), Some(tail))
            }
            None => (None, None),
        })
    }
    #[inline]
    fn __jvp_extend_from_slice(
        &mut self,
        xs: &[T],
    ) -> (
        (),
        impl FnOnce(
                (Option<Vec<T::TangentVector>>, Option<Vec<T::TangentVector>>),
            ) -> (Unit, Option<Vec<T::TangentVector>>)
            + use<T>,
    ) {
        let (n, m) = (self.len(), xs.len());
        self.extend_from_slice(xs);
        ((), move |(before, dxs)| {
            if before.is_none() && dxs.is_none() {
                return (None, None);
            }
            let mut d = filled(before, n);
            d.extend(filled(dxs, m));
            (None, Some(d))
        })
    }
    #[inline]
    fn __vjp_insert(
        &mut self,
        i: usize,
        x: T,
    ) -> (
        (),
        impl FnOnce(
                (Unit, Option<Vec<T::TangentVector>>),
            ) -> (Option<Vec<T::TangentVector>>, (), Option<T::TangentVector>)
            + use<T>,
    ) {
        self.insert(i, x);
        let n = self.len();
        ((), move |(_, after)| match present(after, n) {
            Some(mut a) => {
                let at = a.remove(i);
                (Some(a), (), Some(at))
            }
            None => (None, (), None),
        })
    }
    #[inline]
    fn __jvp_insert(
        &mut self,
        i: usize,
        x: T,
    ) -> (
        (),
        impl FnOnce(
                (Option<Vec<T::TangentVector>>, (), Option<T::TangentVector>),
            ) -> (Unit, Option<Vec<T::TangentVector>>)
            + use<T>,
    ) {
        let n = self.len();
        self.insert(i, x);
        ((), move |(before, (), dx)| {
            if before.is_none() && dx.is_none() {
                return (None, None);
            }
            let mut d = filled(before, n);
            d.insert(i, dx.unwrap_or_else(T::TangentVector::zero_vector));
            (None, Some(d))
        })
    }
    #[inline]
    fn __vjp_pop(
        &mut self,
    ) -> (
        Option<T>,
        impl FnOnce(
                (
                    Option<Option<T::TangentVector>>,
                    Option<Vec<T::TangentVector>>,
                ),
            ) -> (Option<Vec<T::TangentVector>>,)
            + use<T>,
    ) {
        let popped = self.pop();
        let (kept, was_some) = (self.len(), popped.is_some());
        (popped, move |(s, after)| {
            let after = present(after, kept);
            match (was_some, s.flatten()) {
                (true, Some(last)) => {
                    let mut a = filled(after, kept);
                    a.push(last);
                    (Some(a),)
                }
                (true, None) => (after.map(|mut a| {
                    a.push(T::TangentVector::zero_vector());
                    a
                }),),
                (false, _) => (after,),
            }
        })
    }
    #[inline]
    fn __jvp_pop(
        &mut self,
    ) -> (
        Option<T>,
        impl FnOnce(
                (Option<Vec<T::TangentVector>>,),
            ) -> (
                Option<Option<T::TangentVector>>,
                Option<Vec<T::TangentVector>>,
            ) + use<T>,
    ) {
        let n = self.len();
        let popped = self.pop();
        let was_some = popped.is_some();
        (popped, move |(before,)| match before {
            Some(d) if was_some => {
                let mut d = filled(Some(d), n);
                let last = d.pop();
                (last.map(Some), Some(d))
            }
            before => (None, before),
        })
    }
    #[inline]
    fn __vjp_truncate(
        &mut self,
        k: usize,
    ) -> (
        (),
        impl FnOnce((Unit, Option<Vec<T::TangentVector>>)) -> (Option<Vec<T::TangentVector>>, ())
            + use<T>,
    ) {
        let n = self.len();
        self.truncate(k);
        let kept = self.len();
        ((), move |(_, after)| match present(after, kept) {
            Some(mut a) => {
                a.resize_with(n, T::TangentVector::zero_vector);
                (Some(a), ())
            }
            None => (None, ()),
        })
    }
    #[inline]
    fn __jvp_truncate(
        &mut self,
        k: usize,
    ) -> (
        (),
        impl FnOnce((Option<Vec<T::TangentVector>>, ())) -> (Unit, Option<Vec<T::TangentVector>>)
            + use<T>,
    ) {
        self.truncate(k);
        ((), move |(before, ())| {
            let after = before.map(|mut d| {
                d.truncate(k);
                d
            });
            (None, after)
        })
    }

    #[inline]
    fn __vjp_remove(
        &mut self,
        i: usize,
    ) -> (
        T,
        impl FnOnce(
                (Option<T::TangentVector>, Option<Vec<T::TangentVector>>),
            ) -> (Option<Vec<T::TangentVector>>, ())
            + use<T>,
    ) {
        let x = self.remove(i);
        let kept = self.len();
        (x, move |(s, after)| match (s, present(after, kept)) {
            (None, None) => (None, ()),
            (s, after) => {
                let mut a = filled(after, kept);
                a.insert(i, s.unwrap_or_else(T::TangentVector::zero_vector));
                (Some(a), ())
            }
        })
    }
    #[inline]
    fn __jvp_remove(
        &mut self,
        i: usize,
    ) -> (
        T,
        impl FnOnce(
                (Option<Vec<T::TangentVector>>, ()),
            ) -> (Option<T::TangentVector>, Option<Vec<T::TangentVector>>)
            + use<T>,
    ) {
        let n = self.len();
        let x = self.remove(i);
        (x, move |(before, ())| match before {
            Some(d) => {
                let mut d = filled(Some(d), n);
                let dx = d.remove(i);
                (Some(dx), Some(d))
            }
            None => (None, None),
        })
    }
    #[inline]
    fn __vjp_swap_remove(
        &mut self,
        i: usize,
    ) -> (
        T,
        impl FnOnce(
                (Option<T::TangentVector>, Option<Vec<T::TangentVector>>),
            ) -> (Option<Vec<T::TangentVector>>, ())
            + use<T>,
    ) {
        let x = self.swap_remove(i);
        let kept = self.len();
        // The last element moved to `i`: its adjoint goes back to the end, and the
        // removed element's to `i`.
        (x, move |(s, after)| match (s, present(after, kept)) {
            (None, None) => (None, ()),
            (s, after) => {
                let mut a = filled(after, kept);
                a.push(s.unwrap_or_else(T::TangentVector::zero_vector));
                a.swap(i, kept);
                (Some(a), ())
            }
        })
    }
    #[inline]
    fn __jvp_swap_remove(
        &mut self,
        i: usize,
    ) -> (
        T,
        impl FnOnce(
                (Option<Vec<T::TangentVector>>, ()),
            ) -> (Option<T::TangentVector>, Option<Vec<T::TangentVector>>)
            + use<T>,
    ) {
        let n = self.len();
        let x = self.swap_remove(i);
        (x, move |(before, ())| match before {
            Some(d) => {
                let mut d = filled(Some(d), n);
                let dx = d.swap_remove(i);
                (Some(dx), Some(d))
            }
            None => (None, None),
        })
    }
    #[inline]
    fn __vjp_split_off(
        &mut self,
        k: usize,
    ) -> (
        Vec<T>,
        impl FnOnce(
                (Option<Vec<T::TangentVector>>, Option<Vec<T::TangentVector>>),
            ) -> (Option<Vec<T::TangentVector>>, ())
            + use<T>,
    ) {
        let tail = self.split_off(k);
        let (kept, moved) = (self.len(), tail.len());
        (tail, move |(s, after)| {
            match (present(s, moved), present(after, kept)) {
                (None, None) => (None, ()),
                (s, after) => {
                    let mut a = filled(after, kept);
                    a.extend(filled(s, moved));
                    (Some(a), ())
                }
            }
        })
    }
    #[inline]
    fn __jvp_split_off(
        &mut self,
        k: usize,
    ) -> (
        Vec<T>,
        impl FnOnce(
                (Option<Vec<T::TangentVector>>, ()),
            ) -> (Option<Vec<T::TangentVector>>, Option<Vec<T::TangentVector>>)
            + use<T>,
    ) {
        let n = self.len();
        let tail = self.split_off(k);
        (tail, move |(before, ())| match before {
            Some(d) => {
                let mut d = filled(Some(d), n);
                let tail = d.split_off(k);
                (Some(tail), Some(d))
            }
            None => (None, None),
        })
    }
    #[inline]
    fn __vjp_resize(
        &mut self,
        m: usize,
        x: T,
    ) -> (
        (),
        impl FnOnce(
                (Unit, Option<Vec<T::TangentVector>>),
            ) -> (Option<Vec<T::TangentVector>>, (), Option<T::TangentVector>)
            + use<T>,
    ) {
        let n = self.len();
        self.resize(m, x);
        // The elements added are copies of `x`: its adjoint is the sum of theirs.
        ((), move |(_, after)| match present(after, m) {
            Some(mut a) => {
                let added = a.split_off(n.min(m));
                a.resize_with(n, T::TangentVector::zero_vector);
                (Some(a), (), added.into_iter().reduce(VectorSpace::add))
            }
            None => (None, (), None),
        })
    }
    #[inline]
    fn __jvp_resize(
        &mut self,
        m: usize,
        x: T,
    ) -> (
        (),
        impl FnOnce(
                (Option<Vec<T::TangentVector>>, (), Option<T::TangentVector>),
            ) -> (Unit, Option<Vec<T::TangentVector>>)
            + use<T>,
    ) {
        let n = self.len();
        self.resize(m, x);
        ((), move |(before, (), dx)| {
            if before.is_none() && dx.is_none() {
                return (None, None);
            }
            let mut d = filled(before, n);
            d.resize(m, dx.unwrap_or_else(T::TangentVector::zero_vector));
            (None, Some(d))
        })
    }
    #[inline]
    fn __vjp_fill(
        &mut self,
        x: T,
    ) -> (
        (),
        impl FnOnce(
                (Unit, Option<Vec<T::TangentVector>>),
            ) -> (Option<Vec<T::TangentVector>>, Option<T::TangentVector>)
            + use<T>,
    ) {
        let n = self.len();
        self.fill(x);
        // Every element is a copy of `x`, and none of the old values is left.
        ((), move |(_, after)| {
            let sum = present(after, n).and_then(|a| a.into_iter().reduce(VectorSpace::add));
            (None, sum)
        })
    }
    #[inline]
    fn __jvp_fill(
        &mut self,
        x: T,
    ) -> (
        (),
        impl FnOnce(
                (Option<Vec<T::TangentVector>>, Option<T::TangentVector>),
            ) -> (Unit, Option<Vec<T::TangentVector>>)
            + use<T>,
    ) {
        let n = self.len();
        self.fill(x);
        ((), move |(_, dx)| (None, dx.map(|d| vec![d; n])))
    }
    #[inline]
    fn __vjp_drain_to_vec<R: RangeBounds<usize>>(
        &mut self,
        range: R,
    ) -> (
        Vec<T>,
        impl FnOnce(
                (Option<Vec<T::TangentVector>>, Option<Vec<T::TangentVector>>),
            ) -> (Option<Vec<T::TangentVector>>, ())
            + use<T, R>,
    ) {
        let (start, end) = bounds(&range, self.len());
        let drained = self.drain_to_vec(start..end);
        let kept = self.len();
        // The drained items' adjoints go back where they were taken from.
        (drained, move |(s, after)| {
            match (present(s, end - start), present(after, kept)) {
                (None, None) => (None, ()),
                (s, after) => {
                    let mut a = filled(after, kept);
                    a.splice(start..start, filled(s, end - start));
                    (Some(a), ())
                }
            }
        })
    }
    #[inline]
    fn __jvp_drain_to_vec<R: RangeBounds<usize>>(
        &mut self,
        range: R,
    ) -> (
        Vec<T>,
        impl FnOnce(
                (Option<Vec<T::TangentVector>>, ()),
            ) -> (Option<Vec<T::TangentVector>>, Option<Vec<T::TangentVector>>)
            + use<T, R>,
    ) {
        let n = self.len();
        let (start, end) = bounds(&range, n);
        let drained = self.drain_to_vec(start..end);
        (drained, move |(before, ())| match before {
            Some(d) => {
                let mut d = filled(Some(d), n);
                let taken = d.drain(start..end).collect();
                (Some(taken), Some(d))
            }
            None => (None, None),
        })
    }
    #[inline]
    fn __vjp_clear(
        &mut self,
    ) -> (
        (),
        impl FnOnce((Unit, Option<Vec<T::TangentVector>>)) -> (Option<Vec<T::TangentVector>>,) + use<T>,
    ) {
        self.clear();
        ((), move |_| (None,))
    }
    #[inline]
    fn __jvp_clear(
        &mut self,
    ) -> (
        (),
        impl FnOnce((Option<Vec<T::TangentVector>>,)) -> (Unit, Option<Vec<T::TangentVector>>) + use<T>,
    ) {
        self.clear();
        ((), move |_| (None, None))
    }
}

/// `x.drain(range)` as generated code writes it: the drained items collected in a
/// `Vec` (which a chain or a `for` loop over them reads), so that the derivative rules
/// ([`VecRules`]) can give each item its derivative.
pub trait DrainToVec<T> {
    /// `self.drain(range).collect()`.
    fn drain_to_vec<R: RangeBounds<usize>>(&mut self, range: R) -> Vec<T>;
}

impl<T> DrainToVec<T> for Vec<T> {
    #[inline]
    fn drain_to_vec<R: RangeBounds<usize>>(&mut self, range: R) -> Vec<T> {
        self.drain(range).collect()
    }
}

impl<T> DrainToVec<T> for std::collections::VecDeque<T> {
    #[inline]
    fn drain_to_vec<R: RangeBounds<usize>>(&mut self, range: R) -> Vec<T> {
        self.drain(range).collect()
    }
}

impl DrainToVec<char> for String {
    #[inline]
    fn drain_to_vec<R: RangeBounds<usize>>(&mut self, range: R) -> Vec<char> {
        self.drain(range).collect()
    }
}

/// Rearranges the elements of a tangent as `op` does the value's; an empty `Vec` (zero)
/// has none to rearrange.
fn rearranged<D: AsMut<[E]>, E>(mut d: D, op: impl FnOnce(&mut [E])) -> D {
    let elements = d.as_mut();
    if !elements.is_empty() {
        op(elements);
    }
    d
}

/// The derivative rules of a method that moves the elements of a `Vec` or an array
/// around (`swap`, `reverse`, `rotate_left`): the elements' tangents move as the elements
/// do, and their adjoints back, by the method `$inverse` that undoes the move (the method
/// itself for `swap` and `reverse`). Each of the method's arguments (indices, counts) is
/// taken as `usize`.
macro_rules! rearranging_rule {
    ($(#[$doc:meta])* $rule:ident, $method:ident, $inverse:ident, $vjp:ident, $jvp:ident,
     ($($arg:ident),*), [$($unit:ty),*]) => {
        $(#[$doc])*
        #[allow(clippy::type_complexity)]
        pub trait $rule: Differentiable {
            #[doc = concat!("Reverse mode of `xs.", stringify!($method), "(..)`.")]
            fn $vjp(
                &mut self,
                $($arg: usize),*
            ) -> (
                (),
                impl FnOnce((Unit, Option<Self::TangentVector>)) -> (Option<Self::TangentVector>, $($unit),*)
                    + use<Self>,
            );
            #[doc = concat!("Forward mode of `xs.", stringify!($method), "(..)`.")]
            fn $jvp(
                &mut self,
                $($arg: usize),*
            ) -> (
                (),
                impl FnOnce((Option<Self::TangentVector>, $($unit),*)) -> (Unit, Option<Self::TangentVector>)
                    + use<Self>,
            );
        }

        rearranging_rule!(@impl [T: Differentiable + Clone] Vec<T>, [T],
            $rule, $method, $inverse, $vjp, $jvp, ($($arg),*), [$($unit),*]);
        rearranging_rule!(@impl [T: Differentiable, const N: usize] [T; N], [T, N],
            $rule, $method, $inverse, $vjp, $jvp, ($($arg),*), [$($unit),*]);
    };
    // The rule for one collection type `$ty` (its generics `$g`, captured by the
    // returned closures as `$captured`).
    (@impl [$($g:tt)*] $ty:ty, [$($captured:tt)*], $rule:ident, $method:ident,
     $inverse:ident, $vjp:ident, $jvp:ident, ($($arg:ident),*), [$($unit:ty),*]) => {
        impl<$($g)*> $rule for $ty {
            #[inline]
            fn $vjp(
                &mut self,
                $($arg: usize),*
            ) -> (
                (),
                impl FnOnce((Unit, Option<Self::TangentVector>)) -> (Option<Self::TangentVector>, $($unit),*)
                    + use<$($captured)*>,
            ) {
                self.$method($($arg),*);
                ((), move |(_, after)| {
                    (after.map(|a| rearranged(a, |e| e.$inverse($($arg),*))), $(<$unit>::default()),*)
                })
            }
            #[inline]
            fn $jvp(
                &mut self,
                $($arg: usize),*
            ) -> (
                (),
                impl FnOnce((Option<Self::TangentVector>, $($unit),*)) -> (Unit, Option<Self::TangentVector>)
                    + use<$($captured)*>,
            ) {
                self.$method($($arg),*);
                ((), move |(before, ..)| {
                    (None, before.map(|d| rearranged(d, |e| e.$method($($arg),*))))
                })
            }
        }
    };
}

/// The derivative rules of `v.copy_from_slice(src)` and `v.clone_from_slice(src)` on a
/// `Vec`: every element is then a copy of `src`'s at the same position, so the adjoint of
/// `v` afterwards is `src`'s, and none of `v`'s old values is left.
#[allow(clippy::type_complexity)]
pub trait CopyFromSliceRule<T: Differentiable> {
    /// Reverse mode of `v.copy_from_slice(src)`.
    fn __vjp_copy_from_slice(
        &mut self,
        src: &[T],
    ) -> (
        (),
        impl FnOnce(
                (Unit, Option<Vec<T::TangentVector>>),
            ) -> (Option<Vec<T::TangentVector>>, Option<Vec<T::TangentVector>>)
            + use<Self, T>,
    );
    /// Forward mode of `v.copy_from_slice(src)`.
    fn __jvp_copy_from_slice(
        &mut self,
        src: &[T],
    ) -> (
        (),
        impl FnOnce(
                (Option<Vec<T::TangentVector>>, Option<Vec<T::TangentVector>>),
            ) -> (Unit, Option<Vec<T::TangentVector>>)
            + use<Self, T>,
    );
    /// Reverse mode of `v.clone_from_slice(src)`.
    fn __vjp_clone_from_slice(
        &mut self,
        src: &[T],
    ) -> (
        (),
        impl FnOnce(
                (Unit, Option<Vec<T::TangentVector>>),
            ) -> (Option<Vec<T::TangentVector>>, Option<Vec<T::TangentVector>>)
            + use<Self, T>,
    );
    /// Forward mode of `v.clone_from_slice(src)`.
    fn __jvp_clone_from_slice(
        &mut self,
        src: &[T],
    ) -> (
        (),
        impl FnOnce(
                (Option<Vec<T::TangentVector>>, Option<Vec<T::TangentVector>>),
            ) -> (Unit, Option<Vec<T::TangentVector>>)
            + use<Self, T>,
    );
}

impl<T: Differentiable + Clone> CopyFromSliceRule<T> for Vec<T> {
    #[inline]
    fn __vjp_copy_from_slice(
        &mut self,
        src: &[T],
    ) -> (
        (),
        impl FnOnce(
                (Unit, Option<Vec<T::TangentVector>>),
            ) -> (Option<Vec<T::TangentVector>>, Option<Vec<T::TangentVector>>)
            + use<T>,
    ) {
        self.__vjp_clone_from_slice(src)
    }
    #[inline]
    fn __jvp_copy_from_slice(
        &mut self,
        src: &[T],
    ) -> (
        (),
        impl FnOnce(
                (Option<Vec<T::TangentVector>>, Option<Vec<T::TangentVector>>),
            ) -> (Unit, Option<Vec<T::TangentVector>>)
            + use<T>,
    ) {
        self.__jvp_clone_from_slice(src)
    }
    #[inline]
    fn __vjp_clone_from_slice(
        &mut self,
        src: &[T],
    ) -> (
        (),
        impl FnOnce(
                (Unit, Option<Vec<T::TangentVector>>),
            ) -> (Option<Vec<T::TangentVector>>, Option<Vec<T::TangentVector>>)
            + use<T>,
    ) {
        let n = self.len();
        // (Panics as `copy_from_slice` does when the lengths differ.)
        self.clone_from_slice(src);
        ((), move |(_, after)| (None, present(after, n)))
    }
    #[inline]
    fn __jvp_clone_from_slice(
        &mut self,
        src: &[T],
    ) -> (
        (),
        impl FnOnce(
                (Option<Vec<T::TangentVector>>, Option<Vec<T::TangentVector>>),
            ) -> (Unit, Option<Vec<T::TangentVector>>)
            + use<T>,
    ) {
        let n = self.len();
        self.clone_from_slice(src);
        ((), move |(_, dsrc)| (None, present(dsrc, n)))
    }
}

/// The derivative rules of the methods of an array that overwrite its elements:
/// `a.fill(x)`, `a.copy_from_slice(src)` and `a.clone_from_slice(src)` (those of a `Vec`
/// are [`VecRules`] and [`CopyFromSliceRule`]).
#[allow(clippy::type_complexity)]
pub trait ArrayRules<T: Differentiable, const N: usize> {
    /// Reverse mode of `a.fill(x)`.
    fn __vjp_fill(
        &mut self,
        x: T,
    ) -> (
        (),
        impl FnOnce(
                (Unit, Option<[T::TangentVector; N]>),
            ) -> (Option<[T::TangentVector; N]>, Option<T::TangentVector>)
            + use<Self, T, N>,
    );
    /// Forward mode of `a.fill(x)`.
    fn __jvp_fill(
        &mut self,
        x: T,
    ) -> (
        (),
        impl FnOnce(
                (Option<[T::TangentVector; N]>, Option<T::TangentVector>),
            ) -> (Unit, Option<[T::TangentVector; N]>)
            + use<Self, T, N>,
    );
    /// Reverse mode of `a.copy_from_slice(src)`.
    fn __vjp_copy_from_slice(
        &mut self,
        src: &[T],
    ) -> (
        (),
        impl FnOnce(
                (Unit, Option<[T::TangentVector; N]>),
            ) -> (Option<[T::TangentVector; N]>, Option<Vec<T::TangentVector>>)
            + use<Self, T, N>,
    );
    /// Forward mode of `a.copy_from_slice(src)`.
    fn __jvp_copy_from_slice(
        &mut self,
        src: &[T],
    ) -> (
        (),
        impl FnOnce(
                (Option<[T::TangentVector; N]>, Option<Vec<T::TangentVector>>),
            ) -> (Unit, Option<[T::TangentVector; N]>)
            + use<Self, T, N>,
    );
    /// Reverse mode of `a.clone_from_slice(src)`.
    fn __vjp_clone_from_slice(
        &mut self,
        src: &[T],
    ) -> (
        (),
        impl FnOnce(
                (Unit, Option<[T::TangentVector; N]>),
            ) -> (Option<[T::TangentVector; N]>, Option<Vec<T::TangentVector>>)
            + use<Self, T, N>,
    );
    /// Forward mode of `a.clone_from_slice(src)`.
    fn __jvp_clone_from_slice(
        &mut self,
        src: &[T],
    ) -> (
        (),
        impl FnOnce(
                (Option<[T::TangentVector; N]>, Option<Vec<T::TangentVector>>),
            ) -> (Unit, Option<[T::TangentVector; N]>)
            + use<Self, T, N>,
    );
}

impl<T: Differentiable + Clone, const N: usize> ArrayRules<T, N> for [T; N] {
    #[inline]
    fn __vjp_fill(
        &mut self,
        x: T,
    ) -> (
        (),
        impl FnOnce(
                (Unit, Option<[T::TangentVector; N]>),
            ) -> (Option<[T::TangentVector; N]>, Option<T::TangentVector>)
            + use<T, N>,
    ) {
        self.fill(x);
        // Every element is a copy of `x`, and none of the old values is left.
        ((), move |(_, after)| {
            (
                None,
                after.and_then(|a| a.into_iter().reduce(VectorSpace::add)),
            )
        })
    }
    #[inline]
    fn __jvp_fill(
        &mut self,
        x: T,
    ) -> (
        (),
        impl FnOnce(
                (Option<[T::TangentVector; N]>, Option<T::TangentVector>),
            ) -> (Unit, Option<[T::TangentVector; N]>)
            + use<T, N>,
    ) {
        self.fill(x);
        ((), move |(_, dx)| {
            (None, dx.map(|d| std::array::from_fn(|_| d.clone())))
        })
    }
    #[inline]
    fn __vjp_copy_from_slice(
        &mut self,
        src: &[T],
    ) -> (
        (),
        impl FnOnce(
                (Unit, Option<[T::TangentVector; N]>),
            ) -> (Option<[T::TangentVector; N]>, Option<Vec<T::TangentVector>>)
            + use<T, N>,
    ) {
        self.__vjp_clone_from_slice(src)
    }
    #[inline]
    fn __jvp_copy_from_slice(
        &mut self,
        src: &[T],
    ) -> (
        (),
        impl FnOnce(
                (Option<[T::TangentVector; N]>, Option<Vec<T::TangentVector>>),
            ) -> (Unit, Option<[T::TangentVector; N]>)
            + use<T, N>,
    ) {
        self.__jvp_clone_from_slice(src)
    }
    #[inline]
    fn __vjp_clone_from_slice(
        &mut self,
        src: &[T],
    ) -> (
        (),
        impl FnOnce(
                (Unit, Option<[T::TangentVector; N]>),
            ) -> (Option<[T::TangentVector; N]>, Option<Vec<T::TangentVector>>)
            + use<T, N>,
    ) {
        // (Panics as `copy_from_slice` does when the lengths differ.)
        self.clone_from_slice(src);
        ((), move |(_, after)| (None, after.map(Vec::from)))
    }
    #[inline]
    fn __jvp_clone_from_slice(
        &mut self,
        src: &[T],
    ) -> (
        (),
        impl FnOnce(
                (Option<[T::TangentVector; N]>, Option<Vec<T::TangentVector>>),
            ) -> (Unit, Option<[T::TangentVector; N]>)
            + use<T, N>,
    ) {
        self.clone_from_slice(src);
        ((), move |(_, dsrc)| {
            (None, present(dsrc, N).and_then(|d| d.try_into().ok()))
        })
    }
}

rearranging_rule!(
    /// Derivative rules of `xs.swap(i, j)` on a `Vec` or an array: the elements'
    /// adjoints (tangents) trade places as the elements do.
    SwapRule, swap, swap, __vjp_swap, __jvp_swap, (i, j), [(), ()]
);
rearranging_rule!(
    /// Derivative rules of `xs.reverse()` on a `Vec` or an array: the elements'
    /// adjoints (tangents) are reversed as the elements are.
    ReverseRule, reverse, reverse, __vjp_reverse, __jvp_reverse, (), []
);
rearranging_rule!(
    /// Derivative rules of `xs.rotate_left(k)` on a `Vec` or an array: the elements'
    /// tangents rotate left with the elements, their adjoints back to the right.
    RotateLeftRule, rotate_left, rotate_right, __vjp_rotate_left, __jvp_rotate_left, (k), [()]
);
rearranging_rule!(
    /// Derivative rules of `xs.rotate_right(k)` on a `Vec` or an array: the elements'
    /// tangents rotate right with the elements, their adjoints back to the left.
    RotateRightRule, rotate_right, rotate_left, __vjp_rotate_right, __jvp_rotate_right, (k), [()]
);

/// `vec![x; n]`, which generated code calls instead of the macro.
#[inline]
pub fn vec_repeat<T: Clone>(x: T, n: usize) -> Vec<T> {
    vec![x; n]
}

/// Reverse mode of [`vec_repeat`]: the adjoint of `x` is the sum of the elements'.
#[allow(clippy::type_complexity)]
#[inline]
pub fn __vjp_vec_repeat<T: Differentiable + Clone>(
    x: T,
    n: usize,
) -> (
    Vec<T>,
    impl FnOnce(Vec<T::TangentVector>) -> (Option<T::TangentVector>, ()) + use<T>,
) {
    (vec![x; n], move |a: Vec<T::TangentVector>| {
        let sum = a.into_iter().reduce(VectorSpace::add);
        (sum, ())
    })
}

/// Forward mode of [`vec_repeat`]: every element's tangent is `x`'s.
#[allow(clippy::type_complexity)]
#[inline]
pub fn __jvp_vec_repeat<T: Differentiable + Clone>(
    x: T,
    n: usize,
) -> (
    Vec<T>,
    impl FnOnce((Option<T::TangentVector>, ())) -> Option<Vec<T::TangentVector>> + use<T>,
)
where
    T::TangentVector: Clone,
{
    (vec![x; n], move |(dx, ())| dx.map(|d| vec![d; n]))
}

/// `[x; N]`, which generated code calls instead of the expression when `x` is not a
/// literal.
#[inline]
pub fn array_repeat<T: Clone, const N: usize>(x: T) -> [T; N] {
    core::array::from_fn(|_| x.clone())
}

/// Reverse mode of [`array_repeat`]: the adjoint of `x` is the sum of the elements'.
#[allow(clippy::type_complexity)]
#[inline]
pub fn __vjp_array_repeat<T: Differentiable + Clone, const N: usize>(
    x: T,
) -> (
    [T; N],
    impl FnOnce([T::TangentVector; N]) -> (Option<T::TangentVector>,) + use<T, N>,
) {
    (array_repeat(x), move |a: [T::TangentVector; N]| {
        (a.into_iter().reduce(VectorSpace::add),)
    })
}

/// Forward mode of [`array_repeat`]: every element's tangent is `x`'s.
#[allow(clippy::type_complexity)]
#[inline]
pub fn __jvp_array_repeat<T: Differentiable + Clone, const N: usize>(
    x: T,
) -> (
    [T; N],
    impl FnOnce((Option<T::TangentVector>,)) -> Option<[T::TangentVector; N]> + use<T, N>,
)
where
    T::TangentVector: Clone,
{
    (array_repeat(x), move |(dx,): (Option<T::TangentVector>,)| {
        dx.map(array_repeat)
    })
}

/// The order a sort by `cmp` puts a slice's elements in, which generated code computes
/// apart from the values (a comparison carries no derivative) before [`permuted`]:
/// `v.sort_by(cmp)` is `v = permuted(v, &v.__diff_sort_order(cmp))`.
pub trait SortOrder<T> {
    /// The indices of the elements in the order a stable sort by `cmp` puts them.
    fn __diff_sort_order<F: FnMut(&T, &T) -> core::cmp::Ordering>(&self, cmp: F) -> Vec<usize>;
}

impl<T> SortOrder<T> for [T] {
    #[inline]
    fn __diff_sort_order<F: FnMut(&T, &T) -> core::cmp::Ordering>(&self, mut cmp: F) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.len()).collect();
        order.sort_by(|&i, &j| cmp(&self[i], &self[j]));
        order
    }
}

/// `xs` reordered: element `k` of the result is `xs[order[k]]`.
#[inline]
pub fn permuted<T: Clone>(xs: Vec<T>, order: &[usize]) -> Vec<T> {
    order.iter().map(|&i| xs[i].clone()).collect()
}

/// Reverse mode of [`permuted`]: each element's adjoint goes back to where it came from.
#[allow(clippy::type_complexity)]
#[inline]
pub fn __vjp_permuted<T: Differentiable + Clone>(
    xs: Vec<T>,
    order: &[usize],
) -> (
    Vec<T>,
    impl FnOnce(Vec<T::TangentVector>) -> (Option<Vec<T::TangentVector>>, ()) + use<T>,
) {
    let (order, n) = (order.to_vec(), xs.len());
    (permuted(xs, &order), move |a: Vec<T::TangentVector>| {
        let Some(a) = present(Some(a), order.len()) else {
            return (None, ());
        };
        let mut back: Vec<T::TangentVector> = filled(None, n);
        for (k, d) in order.iter().zip(a) {
            crate::support::accumulate_into(&mut back[*k], d);
        }
        (Some(back), ())
    })
}

/// Forward mode of [`permuted`]: the tangent reordered as the values are.
#[allow(clippy::type_complexity)]
#[inline]
pub fn __jvp_permuted<T: Differentiable + Clone>(
    xs: Vec<T>,
    order: &[usize],
) -> (
    Vec<T>,
    impl FnOnce((Option<Vec<T::TangentVector>>, ())) -> Option<Vec<T::TangentVector>> + use<T>,
)
where
    T::TangentVector: Clone,
{
    let (order, n) = (order.to_vec(), xs.len());
    (permuted(xs, &order), move |(dx, ())| {
        present(dx, n).map(|d| permuted(d, &order))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sort_order_and_its_adjoint() {
        let xs = vec![3.0, -1.0, 2.0];
        let order = xs.__diff_sort_order(|a: &f64, b: &f64| a.total_cmp(b));
        assert_eq!(order, vec![1, 2, 0]);
        let (ys, pb) = __vjp_permuted(xs.clone(), &order);
        assert_eq!(ys, vec![-1.0, 2.0, 3.0]);
        assert_eq!(
            pb(vec![10.0, 20.0, 30.0]),
            (Some(vec![30.0, 10.0, 20.0]), ())
        );
        let (_, df) = __jvp_permuted(xs, &order);
        assert_eq!(
            df((Some(vec![1.0, 2.0, 3.0]), ())),
            Some(vec![2.0, 3.0, 1.0])
        );
    }

    #[test]
    fn push_moves_the_last_adjoint_to_the_argument() {
        let mut v = vec![1.0, 2.0];
        let ((), pb) = v.__vjp_push(3.0);
        assert_eq!(v, vec![1.0, 2.0, 3.0]);
        assert_eq!(
            pb((None, Some(vec![0.1, 0.2, 0.3]))),
            (Some(vec![0.1, 0.2]), Some(0.3))
        );
        let mut v: Vec<f64> = Vec::new();
        let ((), df) = v.__jvp_push(3.0);
        assert_eq!(df((None, Some(2.0))), (None, Some(vec![2.0])));
    }

    #[test]
    fn extend_insert_truncate() {
        let mut v = vec![1.0];
        let ((), pb) = v.__vjp_extend_from_slice(&[2.0, 3.0]);
        assert_eq!(
            pb((None, Some(vec![1.0, 2.0, 3.0]))),
            (Some(vec![1.0]), Some(vec![2.0, 3.0]))
        );
        let ((), pb) = v.__vjp_insert(1, 9.0);
        assert_eq!(v, vec![1.0, 9.0, 2.0, 3.0]);
        assert_eq!(
            pb((None, Some(vec![1.0, 2.0, 3.0, 4.0]))),
            (Some(vec![1.0, 3.0, 4.0]), (), Some(2.0))
        );
        let ((), pb) = v.__vjp_truncate(2);
        assert_eq!(
            pb((None, Some(vec![5.0, 6.0]))),
            (Some(vec![5.0, 6.0, 0.0, 0.0]), ())
        );
        let ((), df) = v.__jvp_truncate(1);
        assert_eq!(df((Some(vec![1.0, 2.0]), ())), (None, Some(vec![1.0])));
    }

    #[test]
    fn repeat_sums_the_adjoints() {
        let (v, pb) = __vjp_vec_repeat(2.0, 3);
        assert_eq!(v, vec![2.0; 3]);
        assert_eq!(pb(vec![1.0, 2.0, 3.0]), (Some(6.0), ()));
        let (_, df) = __jvp_vec_repeat(2.0, 2);
        assert_eq!(df((Some(0.5), ())), Some(vec![0.5, 0.5]));
    }
}

/// `&xs[range]`, which generated code calls instead of indexing with a range.
#[inline]
pub fn sub_slice<T, R: core::ops::RangeBounds<usize>>(xs: &[T], range: R) -> &[T] {
    let (start, end) = bounds(&range, xs.len());
    &xs[start..end]
}

/// The `start..end` of `range` in a collection of `len` elements.
fn bounds<R: core::ops::RangeBounds<usize>>(range: &R, len: usize) -> (usize, usize) {
    use core::ops::Bound;
    let start = match range.start_bound() {
        Bound::Included(&s) => s,
        Bound::Excluded(&s) => s + 1,
        Bound::Unbounded => 0,
    };
    let end = match range.end_bound() {
        Bound::Included(&e) => e + 1,
        Bound::Excluded(&e) => e,
        Bound::Unbounded => len,
    };
    (start, end)
}

/// Reverse mode of [`sub_slice`]: the adjoint of the part, which adds itself to the
/// whole's elements at its place ([`SubSliceAdjoint`]), so that a loop over windows costs
/// the windows' lengths, not the whole's for each.
#[allow(clippy::type_complexity)]
#[inline]
pub fn __vjp_sub_slice<T: Differentiable, R: core::ops::RangeBounds<usize>>(
    xs: &[T],
    range: R,
) -> (
    &[T],
    impl FnOnce(Vec<T::TangentVector>) -> (SubSliceAdjoint<T::TangentVector>, ()) + use<T, R>,
) {
    let len = xs.len();
    let (start, end) = bounds(&range, len);
    (&xs[start..end], move |a: Vec<T::TangentVector>| {
        if !a.is_empty() {
            check_lengths("a sub-slice's adjoint", a.len(), end - start);
        }
        (
            SubSliceAdjoint {
                whole: len,
                start,
                part: a,
            },
            (),
        )
    })
}

/// The adjoint of `&xs[start..start + part.len()]` for an `xs` of `whole` elements (an
/// empty `part` is zero): added into the adjoint of `xs` at its place only.
#[derive(Debug)]
pub struct SubSliceAdjoint<T> {
    whole: usize,
    start: usize,
    part: Vec<T>,
}

impl<T: VectorSpace> SubSliceAdjoint<T> {
    /// The adjoint of the whole, zero outside the part (`None` when the part is zero).
    fn into_whole(self) -> Option<Vec<T>> {
        if self.part.is_empty() {
            return None;
        }
        let mut whole: Vec<T> = Vec::with_capacity(self.whole);
        whole.resize_with(self.start, T::zero_vector);
        whole.extend(self.part);
        whole.resize_with(self.whole, T::zero_vector);
        Some(whole)
    }
}

impl<T: VectorSpace> crate::__private::AddTo<Vec<T>> for SubSliceAdjoint<T> {
    #[inline]
    fn add_to(self, slot: &mut Option<Vec<T>>) {
        match slot {
            Some(whole) if whole.len() == self.whole => {
                for (w, a) in whole[self.start..].iter_mut().zip(self.part) {
                    crate::support::accumulate_into(w, a);
                }
            }
            _ => crate::__private::accumulate_opt(slot, self.into_whole()),
        }
    }
}

/// Into an array's adjoint (`arr[1..].reverse()` of an array, in a loop).
impl<T: VectorSpace, const N: usize> crate::__private::AddTo<[T; N]> for SubSliceAdjoint<T> {
    #[inline]
    fn add_to(self, slot: &mut Option<[T; N]>) {
        match slot {
            Some(whole) if N == self.whole => {
                for (w, a) in whole[self.start..].iter_mut().zip(self.part) {
                    crate::support::accumulate_into(w, a);
                }
            }
            _ => {
                let part: Option<[T; N]> = self.slot_into();
                crate::__private::accumulate_opt(slot, part);
            }
        }
    }
}

impl<T: VectorSpace> SlotInto<Option<Vec<T>>> for SubSliceAdjoint<T> {
    #[inline]
    fn slot_into(self) -> Option<Vec<T>> {
        self.into_whole()
    }
}

impl<T: VectorSpace, const N: usize> SlotInto<Option<[T; N]>> for SubSliceAdjoint<T> {
    #[inline]
    fn slot_into(self) -> Option<[T; N]> {
        self.into_whole().slot_into()
    }
}

/// Forward mode of [`sub_slice`]: the part of the whole's tangent.
#[allow(clippy::type_complexity)]
#[inline]
pub fn __jvp_sub_slice<T: Differentiable, R: core::ops::RangeBounds<usize>>(
    xs: &[T],
    range: R,
) -> (
    &[T],
    impl FnOnce((Option<Vec<T::TangentVector>>, ())) -> Option<Vec<T::TangentVector>> + use<T, R>,
) {
    let len = xs.len();
    let (start, end) = bounds(&range, len);
    (
        &xs[start..end],
        move |(d, ()): (Option<Vec<T::TangentVector>>, ())| {
            let mut d = present(d, len)?;
            d.truncate(end);
            Some(d.split_off(start))
        },
    )
}

#[cfg(test)]
mod sub_slice_tests {
    use super::*;

    #[test]
    fn sub_slices_place_their_adjoints() {
        let xs = [1.0, 2.0, 3.0, 4.0];
        let (part, pb) = __vjp_sub_slice(&xs, 1..3);
        assert_eq!(part, &[2.0, 3.0]);
        let (a, ()) = pb(vec![5.0, 6.0]);
        // Into an empty slot: the whole, zero outside the part.
        let mut slot: Option<Vec<f64>> = None;
        crate::__private::accumulate_slot(&mut slot, a);
        assert_eq!(slot, Some(vec![0.0, 5.0, 6.0, 0.0]));
        // Into a slot holding the whole's adjoint: added at the part's place.
        let (_, pb) = __vjp_sub_slice(&xs, 2..4);
        crate::__private::accumulate_slot(&mut slot, pb(vec![1.0, 1.0]).0);
        assert_eq!(slot, Some(vec![0.0, 5.0, 7.0, 1.0]));
        // Given for an array.
        let (_, pb) = __vjp_sub_slice(&xs, ..1);
        let arr: Option<[f64; 4]> = pb(vec![2.0]).0.slot_into();
        assert_eq!(arr, Some([2.0, 0.0, 0.0, 0.0]));
        let (part, df) = __jvp_sub_slice(&xs, 2..);
        assert_eq!(part, &[3.0, 4.0]);
        assert_eq!(
            df((Some(vec![1.0, 2.0, 3.0, 4.0]), ())),
            Some(vec![3.0, 4.0])
        );
        assert_eq!(sub_slice(&xs, ..=1), &[1.0, 2.0]);
    }
}

/// An adjoint slot in the shape of `zero` (an array's for an array given where a slice
/// is taken), or `zero` when it is empty.
#[inline(always)]
pub fn slot_or<S: SlotInto<Option<Z>>, Z>(slot: S, zero: Z) -> Z {
    slot.slot_into().unwrap_or(zero)
}

/// Converts a derivative slot between the types a borrowed collection has as an argument
/// and as the parameter it is given for: an array or `Vec` (`&arr`) given for a slice
/// (`&[T]`, whose tangent is a `Vec`), and back; any other slot as it is.
pub trait SlotInto<T> {
    /// The slot as a `T`.
    fn slot_into(self) -> T;
}

impl<T> SlotInto<T> for T {
    #[inline(always)]
    fn slot_into(self) -> T {
        self
    }
}

impl<T, const N: usize> SlotInto<Option<Vec<T>>> for Option<[T; N]> {
    #[inline]
    fn slot_into(self) -> Option<Vec<T>> {
        self.map(Vec::from)
    }
}

impl<T: VectorSpace, const N: usize> SlotInto<Option<[T; N]>> for Option<Vec<T>> {
    #[inline]
    fn slot_into(self) -> Option<[T; N]> {
        let v = present(self, N)?;
        v.try_into().ok()
    }
}

/// [`SlotInto::slot_into`] as a function, which defers the choice of the target type.
#[inline(always)]
pub fn slot_into<S: SlotInto<T>, T>(slot: S) -> T {
    slot.slot_into()
}
/// [`slot_into`] a slot of the marked tangent type (where nothing else fixes it: an
/// array's tangent after a call updated it through a `&mut [T]` parameter).
#[inline(always)]
pub fn slot_as<T, S: SlotInto<Option<T>>>(_: crate::__private::Marker<T>, slot: S) -> Option<T> {
    slot.slot_into()
}

/// What a `&mut` parameter points to, as generated code reads it into a local and writes
/// it back: a sized value by `Clone`, a slice (`&mut [T]`) as a `Vec` of its elements.
pub trait Pointee {
    /// The local holding the pointee's value.
    type Owned;
    /// A copy of the pointee.
    fn load(&self) -> Self::Owned;
    /// Writes `value` back.
    fn store(&mut self, value: Self::Owned);
}

impl<T: Clone> Pointee for T {
    type Owned = T;
    #[inline(always)]
    fn load(&self) -> T {
        self.clone()
    }
    #[inline(always)]
    fn store(&mut self, value: T) {
        *self = value;
    }
}

impl<T: Clone> Pointee for [T] {
    type Owned = Vec<T>;
    #[inline(always)]
    fn load(&self) -> Vec<T> {
        self.to_vec()
    }
    #[inline(always)]
    fn store(&mut self, value: Vec<T>) {
        self.clone_from_slice(&value);
    }
}
