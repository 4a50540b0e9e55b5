//! Collections in generated code: shapes saved instead of collections, element reads
//! and writes of tangents, and zero-sized markers of tangent types.
use crate::{Differentiable, VectorSpace};

/// Collections whose shape (a length) is all a zero tangent needs.
pub trait HasShape {
    /// The collection's tangent.
    type Tangent: Elementwise;
    /// The shape of `self`.
    fn shape(&self) -> <Self::Tangent as Elementwise>::Shape;
}
impl<T: Differentiable> HasShape for [T] {
    type Tangent = Vec<T::TangentVector>;
    fn shape(&self) -> usize {
        self.len()
    }
}
impl<T: Differentiable> HasShape for Vec<T> {
    type Tangent = Vec<T::TangentVector>;
    fn shape(&self) -> usize {
        self.len()
    }
}
impl<T: Differentiable, const N: usize> HasShape for [T; N] {
    type Tangent = [T::TangentVector; N];
    fn shape(&self) {}
}
impl<C: HasShape + ?Sized> HasShape for &C {
    type Tangent = C::Tangent;
    fn shape(&self) -> <C::Tangent as Elementwise>::Shape {
        (**self).shape()
    }
}
impl<C: HasShape + ?Sized> HasShape for &mut C {
    type Tangent = C::Tangent;
    fn shape(&self) -> <C::Tangent as Elementwise>::Shape {
        (**self).shape()
    }
}

/// The shape of a collection whose tangent is `Z`: saved where its elements are read,
/// instead of the collection itself.
pub struct Shape<Z: Elementwise>(Z::Shape);

impl<Z: Elementwise> Clone for Shape<Z> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<Z: Elementwise> Copy for Shape<Z> {}

/// The shape of a collection.
#[inline(always)]
pub fn shape_of<C: HasShape + ?Sized>(c: &C) -> Shape<C::Tangent> {
    Shape(c.shape())
}

/// Tangents with elements: `Vec` (whose empty value is zero) and arrays.
pub trait Elementwise: Sized {
    /// The element tangent.
    type Elem: VectorSpace;
    /// The shape that determines a zero.
    type Shape: Copy;
    /// A zero of the given shape.
    fn zero_of_shape(shape: Self::Shape) -> Self;
    /// Takes element `i` out, leaving zero (`None` when `self` is the empty zero).
    fn take_at(&mut self, i: usize) -> Option<Self::Elem>;
    /// A copy of element `i` (`None` when `self` is the empty zero).
    fn get_at(&self, i: usize) -> Option<Self::Elem>;
    /// Element `i`, mutably; `shape` gives the length when `self` is the empty zero.
    fn at_mut(&mut self, shape: Self::Shape, i: usize) -> &mut Self::Elem;
    /// Element `i`, mutably, if there is one.
    fn get_mut_at(&mut self, i: usize) -> Option<&mut Self::Elem>;
}

impl<T: VectorSpace> Elementwise for Vec<T> {
    type Elem = T;
    type Shape = usize;
    fn zero_of_shape(n: usize) -> Self {
        (0..n).map(|_| T::zero_vector()).collect()
    }
    fn take_at(&mut self, i: usize) -> Option<T> {
        self.get_mut(i)
            .map(|e| core::mem::replace(e, T::zero_vector()))
    }
    fn get_at(&self, i: usize) -> Option<T> {
        self.get(i).cloned()
    }
    fn at_mut(&mut self, n: usize, i: usize) -> &mut T {
        if self.is_empty() {
            *self = Self::zero_of_shape(n);
        }
        &mut self[i]
    }
    fn get_mut_at(&mut self, i: usize) -> Option<&mut T> {
        self.get_mut(i)
    }
}

impl<T: VectorSpace, const N: usize> Elementwise for [T; N] {
    type Elem = T;
    type Shape = ();
    fn zero_of_shape(_: ()) -> Self {
        core::array::from_fn(|_| T::zero_vector())
    }
    fn take_at(&mut self, i: usize) -> Option<T> {
        Some(core::mem::replace(&mut self[i], T::zero_vector()))
    }
    fn get_at(&self, i: usize) -> Option<T> {
        Some(self[i].clone())
    }
    fn at_mut(&mut self, _: (), i: usize) -> &mut T {
        &mut self[i]
    }
    fn get_mut_at(&mut self, i: usize) -> Option<&mut T> {
        self.get_mut(i)
    }
}

/// A zero tangent of the given shape.
#[inline(always)]
pub fn zero_of_shape<S: Elementwise>(shape: Shape<S>) -> S {
    S::zero_of_shape(shape.0)
}

/// A zero element of the collection of that shape: where a loop's pullback sums the
/// adjoint of an element it reads (so that the sum starts as a number, not as nothing).
#[inline(always)]
pub fn zero_element_of_shape<S: Elementwise>(_shape: Shape<S>) -> S::Elem {
    S::Elem::zero_vector()
}

/// The index in the whole collection of element `i` of the chunk `lo..hi` (`lo + i`),
/// panicking as indexing the chunk would when `i` is past its end: the chunk of a
/// `chunks_mut(k)` loop, read and written in the collection itself.
#[inline(always)]
#[track_caller]
pub fn chunk_index(lo: usize, hi: usize, i: usize) -> usize {
    let len = hi - lo;
    assert!(
        i < len,
        "index out of bounds: the len is {len} but the index is {i}"
    );
    lo + i
}

/// Adds `v` into `whole[i]`, where there is such an element: a reduction loop's window
/// of element adjoints (`fused_loops.rs`) is added at the offsets of the loop's index, of
/// which those the loop never read (past the end, or before the start, wrapped) hold zero.
#[inline(always)]
pub fn accumulate_where_present<S: Elementwise>(whole: &mut S, i: usize, v: S::Elem) {
    if let Some(place) = whole.get_mut_at(i) {
        crate::support::accumulate_into(place, v);
    }
}

/// `s[i]`, leaving zero in its place (the adjoint of an element write).
#[inline(always)]
pub fn take_at<S: Elementwise>(s: &mut S, i: usize) -> Option<S::Elem> {
    s.take_at(i)
}

/// A copy of `s[i]` (`None` when `s` is the empty zero): the adjoint of `e` in an element
/// update `y[i] = b[i] + e`, whose `b` takes all of `s`.
#[inline(always)]
pub fn get_at<S: Elementwise>(s: &S, i: usize) -> Option<S::Elem> {
    s.get_at(i)
}

/// The tangent after `y[i] = v`: `db` with element `i` replaced by `dv`.
#[inline(always)]
pub fn set_at<S: Elementwise>(db: Option<S>, shape: Shape<S>, i: usize, dv: Option<S::Elem>) -> S {
    let mut d = db.unwrap_or_else(|| S::zero_of_shape(shape.0));
    *d.at_mut(shape.0, i) = dv.unwrap_or_else(S::Elem::zero_vector);
    d
}

/// A parameter's tangent for the user: `zero` (shaped like the parameter) plus the
/// accumulated adjoint, so that parts the adjoint left as empty zeros get their shape.
#[inline(always)]
pub fn shaped<T: VectorSpace>(zero: T, g: Option<T>) -> T {
    match g {
        Some(g) => zero.add(g),
        None => zero,
    }
}

/// A parameter's zero tangent, built only when the adjoint does not already have the
/// parameter's whole shape: `finish(g)` is `shaped(zero, g)` without allocating a zero
/// that `g` makes useless.
pub trait ZeroLater<T> {
    /// The parameter's tangent for the user from its accumulated adjoint.
    fn finish(self, g: Option<T>) -> T;
}

/// A zero built in advance (any type).
pub struct ZeroNow<T>(T);

impl<T: VectorSpace> ZeroLater<T> for ZeroNow<T> {
    #[inline(always)]
    fn finish(self, g: Option<T>) -> T {
        shaped(self.0, g)
    }
}

/// An array given for a slice parameter (`at: &[1.0, 2.0]` to `|w| f(w)` with `fn f(w:
/// &[f64])`): the slice's tangent, a `Vec`, of the array's length.
impl<S: VectorSpace + Clone, const N: usize> ZeroLater<Vec<S>> for ZeroNow<[S; N]> {
    #[inline(always)]
    fn finish(self, g: Option<Vec<S>>) -> Vec<S> {
        ZeroOfLength(N).finish(g)
    }
}

/// The length of a vector of scalars: its adjoint is whole when it has that length.
pub struct ZeroOfLength(usize);

impl<S: VectorSpace> ZeroLater<Vec<S>> for ZeroOfLength {
    #[inline(always)]
    fn finish(self, g: Option<Vec<S>>) -> Vec<S> {
        match g {
            Some(g) if g.len() == self.0 => g,
            g => shaped(Elementwise::zero_of_shape(self.0), g),
        }
    }
}

/// `(&ZeroProbe(&x)).zero_later()`: a [`ZeroOfLength`] for a `Vec` or slice of `f64` or
/// `f32` (whose elements have no shape of their own), a [`ZeroNow`] for anything else
/// (method resolution prefers the impl on `ZeroProbe` to the one on `&ZeroProbe`).
pub struct ZeroProbe<'a, T: ?Sized>(pub &'a T);

/// See [`ZeroProbe`].
pub trait ProbeLength {
    /// The zero, as a length.
    fn zero_later(&self) -> ZeroOfLength;
}

macro_rules! probe_length {
    ($($t:ty),*) => {$(
        impl ProbeLength for ZeroProbe<'_, $t> {
            #[inline(always)]
            fn zero_later(&self) -> ZeroOfLength {
                ZeroOfLength(self.0.len())
            }
        }
    )*};
}
probe_length!(Vec<f64>, Vec<f32>, [f64], [f32]);
// (Dual numbers have no shape either: a lifted point whose type is known late, as the
// lifted elements of a `Vec` are, may have picked this impl.)
probe_length!(
    Vec<crate::Dual<f64>>,
    Vec<crate::Dual<f32>>,
    [crate::Dual<f64>],
    [crate::Dual<f32>]
);

/// See [`ZeroProbe`].
pub trait ProbeAny<'a, T: ?Sized> {
    /// The value, whose zero [`zero_now`] builds.
    fn zero_later(&self) -> Unprobed<'a, T>;
}

impl<'a, T: ?Sized> ProbeAny<'a, T> for &ZeroProbe<'a, T> {
    #[inline(always)]
    fn zero_later(&self) -> Unprobed<'a, T> {
        Unprobed(self.0)
    }
}

/// A value of a type the probe does not know: its zero is built now.
pub struct Unprobed<'a, T: ?Sized>(&'a T);

/// What a probe found, turned into a [`ZeroLater`] by [`zero_now`].
pub trait Probed {
    /// The zero (or what builds it later).
    type Zero;
    /// Builds what must be built now.
    fn now(self) -> Self::Zero;
}

impl Probed for ZeroOfLength {
    type Zero = ZeroOfLength;
    #[inline(always)]
    fn now(self) -> ZeroOfLength {
        self
    }
}

impl<T: Differentiable + ?Sized> Probed for Unprobed<'_, T> {
    type Zero = ZeroNow<T::TangentVector>;
    #[inline(always)]
    fn now(self) -> Self::Zero {
        ZeroNow(self.0.zero_tangent())
    }
}

/// See [`Probed`].
#[inline(always)]
pub fn zero_now<P: Probed>(probed: P) -> P::Zero {
    probed.now()
}

/// The tangent of `xs[i]` from the tangent of `xs`.
#[inline(always)]
pub fn index_tangent<S: Elementwise>(d: &Option<S>, i: usize) -> Option<S::Elem> {
    d.as_ref().and_then(|d| d.get_at(i))
}

/// A zero-sized stand-in for the tangent type `T` of a value, saved instead of the value
/// where only the type is needed (to build a zero, or to name a struct's fields).
pub struct Marker<T>(core::marker::PhantomData<fn() -> T>);

impl<T> Clone for Marker<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Marker<T> {}

/// `value.__diff_marker()`: the [`Marker`] of a value's tangent type (a method, so that
/// references are seen through).
pub trait MarkerOf: Differentiable {
    /// The marker.
    #[inline(always)]
    fn __diff_marker(&self) -> Marker<Self::TangentVector> {
        Marker(core::marker::PhantomData)
    }
}
impl<T: Differentiable + ?Sized> MarkerOf for T {}

/// The zero of the marked tangent type (other fields of a struct whose field is read).
#[inline(always)]
pub fn zero_marked<T: VectorSpace>(_: Marker<T>) -> T {
    T::zero_vector()
}

/// No tangent yet, typed as the marked tangent type.
#[inline(always)]
pub fn none_marked<T>(_: Marker<T>) -> Option<T> {
    None
}

/// `t`, typed as the marked tangent type.
#[inline(always)]
pub fn same_as<T>(_: Marker<T>, t: T) -> T {
    t
}

/// `value.__diff_cut()`: [`Differentiable::without_derivative`] for differentiable values
/// (found first by method resolution), and the identity for any other value.
pub trait CutDerivative: Differentiable + Sized {
    /// The value without its derivative.
    #[inline(always)]
    fn __diff_cut(self) -> Self {
        self.without_derivative()
    }
}
impl<T: Differentiable> CutDerivative for T {}

/// The identity, for values that carry no derivative (reached through autoref).
pub trait CutNothing {
    /// The value itself.
    type Owned;
    /// A copy of the value.
    fn __diff_cut(self) -> Self::Owned;
}
impl<T: Clone> CutNothing for &T {
    type Owned = T;
    #[inline(always)]
    fn __diff_cut(self) -> T {
        self.clone()
    }
}

/// Derivative rules of `clone()` / `to_owned()` (the identity), in the companions' slot
/// convention, for every differentiable value.
#[allow(clippy::type_complexity)]
pub trait CloneRules: Differentiable + Clone {
    /// Reverse mode of `x.clone()`.
    #[inline(always)]
    fn __vjp_clone(
        &self,
    ) -> (
        Self,
        impl FnOnce(Self::TangentVector) -> (Option<Self::TangentVector>,) + use<Self>,
    ) {
        (self.clone(), |s| (Some(s),))
    }
    /// Forward mode of `x.clone()`.
    #[inline(always)]
    fn __jvp_clone(
        &self,
    ) -> (
        Self,
        impl FnOnce((Option<Self::TangentVector>,)) -> Option<Self::TangentVector> + use<Self>,
    ) {
        (self.clone(), |(d,)| d)
    }
    /// Reverse mode of `x.to_owned()`.
    #[inline(always)]
    fn __vjp_to_owned(
        &self,
    ) -> (
        Self,
        impl FnOnce(Self::TangentVector) -> (Option<Self::TangentVector>,) + use<Self>,
    ) {
        self.__vjp_clone()
    }
    /// Forward mode of `x.to_owned()`.
    #[inline(always)]
    fn __jvp_to_owned(
        &self,
    ) -> (
        Self,
        impl FnOnce((Option<Self::TangentVector>,)) -> Option<Self::TangentVector> + use<Self>,
    ) {
        self.__jvp_clone()
    }
}
impl<T: Differentiable + Clone> CloneRules for T {}

/// Derivative rules of `to_vec()` and `to_owned()` on slices (the identity on tangents).
#[allow(clippy::type_complexity)]
pub trait ToVecRules<T: Differentiable + Clone> {
    /// Reverse mode of `xs.to_vec()`.
    fn __vjp_to_vec(
        &self,
    ) -> (
        Vec<T>,
        impl FnOnce(Vec<T::TangentVector>) -> (Option<Vec<T::TangentVector>>,) + use<Self, T>,
    );
    /// Forward mode of `xs.to_vec()`.
    fn __jvp_to_vec(
        &self,
    ) -> (
        Vec<T>,
        impl FnOnce((Option<Vec<T::TangentVector>>,)) -> Option<Vec<T::TangentVector>> + use<Self, T>,
    );
    /// Reverse mode of `xs.to_owned()` on a slice, which is `xs.to_vec()`.
    #[inline(always)]
    fn __vjp_to_owned(
        &self,
    ) -> (
        Vec<T>,
        impl FnOnce(Vec<T::TangentVector>) -> (Option<Vec<T::TangentVector>>,) + use<Self, T>,
    ) {
        self.__vjp_to_vec()
    }
    /// Forward mode of `xs.to_owned()` on a slice.
    #[inline(always)]
    fn __jvp_to_owned(
        &self,
    ) -> (
        Vec<T>,
        impl FnOnce((Option<Vec<T::TangentVector>>,)) -> Option<Vec<T::TangentVector>> + use<Self, T>,
    ) {
        self.__jvp_to_vec()
    }
}
#[allow(clippy::type_complexity)]
impl<T: Differentiable + Clone> ToVecRules<T> for [T] {
    #[inline(always)]
    fn __vjp_to_vec(
        &self,
    ) -> (
        Vec<T>,
        impl FnOnce(Vec<T::TangentVector>) -> (Option<Vec<T::TangentVector>>,) + use<T>,
    ) {
        (self.to_vec(), |s| (Some(s),))
    }
    #[inline(always)]
    fn __jvp_to_vec(
        &self,
    ) -> (
        Vec<T>,
        impl FnOnce((Option<Vec<T::TangentVector>>,)) -> Option<Vec<T::TangentVector>> + use<T>,
    ) {
        (self.to_vec(), |(d,)| d)
    }
}

/// Derivative rules of `to_vec()` on arrays, whose tangent is an array (method calls
/// find them before [`ToVecRules`], which an array reaches only unsized to a slice).
#[allow(clippy::type_complexity)]
pub trait ArrayToVecRules<T: Differentiable + Clone, const N: usize> {
    /// Reverse mode of `arr.to_vec()`.
    fn __vjp_to_vec(
        &self,
    ) -> (
        Vec<T>,
        impl FnOnce(Vec<T::TangentVector>) -> (Option<[T::TangentVector; N]>,) + use<Self, T, N>,
    );
    /// Forward mode of `arr.to_vec()`.
    fn __jvp_to_vec(
        &self,
    ) -> (
        Vec<T>,
        impl FnOnce((Option<[T::TangentVector; N]>,)) -> Option<Vec<T::TangentVector>> + use<Self, T, N>,
    );
}
#[allow(clippy::type_complexity)]
impl<T: Differentiable + Clone, const N: usize> ArrayToVecRules<T, N> for [T; N] {
    #[inline(always)]
    fn __vjp_to_vec(
        &self,
    ) -> (
        Vec<T>,
        impl FnOnce(Vec<T::TangentVector>) -> (Option<[T::TangentVector; N]>,) + use<T, N>,
    ) {
        (self.to_vec(), |s: Vec<T::TangentVector>| {
            if s.is_empty() {
                return (None,);
            }
            crate::vector_space::check_lengths("an array's adjoint", s.len(), N);
            (s.try_into().ok(),)
        })
    }
    #[inline(always)]
    fn __jvp_to_vec(
        &self,
    ) -> (
        Vec<T>,
        impl FnOnce((Option<[T::TangentVector; N]>,)) -> Option<Vec<T::TangentVector>> + use<T, N>,
    ) {
        (self.to_vec(), |(d,)| d.map(Vec::from))
    }
}

/// Derivative rules of `pieces.concat()` for an array or slice of `Vec`s (`[a, b].concat()`):
/// the result's tangent is the pieces' tangents one after another, and its adjoint is cut
/// back into pieces of the same lengths.
#[allow(clippy::type_complexity)]
pub trait ConcatRules<T: Differentiable + Clone>: Differentiable {
    /// Reverse mode of `pieces.concat()`.
    fn __vjp_concat(
        &self,
    ) -> (
        Vec<T>,
        impl FnOnce(Vec<T::TangentVector>) -> (Option<Self::TangentVector>,) + use<Self, T>,
    );
    /// Forward mode of `pieces.concat()`.
    fn __jvp_concat(
        &self,
    ) -> (
        Vec<T>,
        impl FnOnce((Option<Self::TangentVector>,)) -> Option<Vec<T::TangentVector>> + use<Self, T>,
    );
}

/// The concatenation of the pieces' tangents (an empty piece tangent is zero).
fn concat_tangents<T: VectorSpace>(
    pieces: impl IntoIterator<Item = Vec<T>>,
    lens: &[usize],
) -> Vec<T> {
    let mut out = Vec::with_capacity(lens.iter().sum());
    for (piece, &n) in pieces.into_iter().zip(lens) {
        if piece.is_empty() {
            out.extend((0..n).map(|_| T::zero_vector()));
        } else {
            crate::vector_space::check_lengths("a piece's tangent", piece.len(), n);
            out.extend(piece);
        }
    }
    out
}

/// An adjoint cut into pieces of the given lengths (an empty adjoint is zero: `None`).
fn cut_adjoint<T: VectorSpace>(s: Vec<T>, lens: &[usize]) -> Option<Vec<Vec<T>>> {
    if s.is_empty() {
        return None;
    }
    crate::vector_space::check_lengths("a concatenation's adjoint", s.len(), lens.iter().sum());
    let mut rest = s.into_iter();
    Some(
        lens.iter()
            .map(|&n| rest.by_ref().take(n).collect())
            .collect(),
    )
}

#[allow(clippy::type_complexity)]
impl<T: Differentiable + Clone, const N: usize> ConcatRules<T> for [Vec<T>; N] {
    #[inline]
    fn __vjp_concat(
        &self,
    ) -> (
        Vec<T>,
        impl FnOnce(Vec<T::TangentVector>) -> (Option<[Vec<T::TangentVector>; N]>,) + use<T, N>,
    ) {
        let lens: [usize; N] = core::array::from_fn(|i| self[i].len());
        (self.concat(), move |s| {
            let pieces = cut_adjoint(s, &lens).map(|p| {
                let mut p = p.into_iter();
                core::array::from_fn(|_| p.next().unwrap_or_default())
            });
            (pieces,)
        })
    }
    #[inline]
    fn __jvp_concat(
        &self,
    ) -> (
        Vec<T>,
        impl FnOnce((Option<[Vec<T::TangentVector>; N]>,)) -> Option<Vec<T::TangentVector>> + use<T, N>,
    ) {
        let lens: [usize; N] = core::array::from_fn(|i| self[i].len());
        (self.concat(), move |(d,)| {
            d.map(|d| concat_tangents(d, &lens))
        })
    }
}

#[allow(clippy::type_complexity)]
impl<T: Differentiable + Clone, const M: usize> ConcatRules<T> for Vec<[T; M]> {
    #[inline]
    fn __vjp_concat(
        &self,
    ) -> (
        Vec<T>,
        impl FnOnce(Vec<T::TangentVector>) -> (Option<Vec<[T::TangentVector; M]>>,) + use<T, M>,
    ) {
        let n = self.len();
        (self.concat(), move |s| {
            let rows = cut_adjoint(s, &vec![M; n]).map(|rows| {
                rows.into_iter()
                    .map(|row| {
                        let mut row = row.into_iter();
                        core::array::from_fn(|_| {
                            row.next().unwrap_or_else(T::TangentVector::zero_vector)
                        })
                    })
                    .collect()
            });
            (rows,)
        })
    }
    #[inline]
    fn __jvp_concat(
        &self,
    ) -> (
        Vec<T>,
        impl FnOnce((Option<Vec<[T::TangentVector; M]>>,)) -> Option<Vec<T::TangentVector>> + use<T, M>,
    ) {
        let n = self.len();
        (self.concat(), move |(d,)| {
            d.filter(|d| !d.is_empty()).map(|d| {
                crate::vector_space::check_lengths("a concatenation's tangent", d.len(), n);
                d.into_iter().flatten().collect()
            })
        })
    }
}

#[allow(clippy::type_complexity)]
impl<T: Differentiable + Clone> ConcatRules<T> for Vec<Vec<T>> {
    #[inline]
    fn __vjp_concat(
        &self,
    ) -> (
        Vec<T>,
        impl FnOnce(Vec<T::TangentVector>) -> (Option<Vec<Vec<T::TangentVector>>>,) + use<T>,
    ) {
        let lens: Vec<usize> = self.iter().map(Vec::len).collect();
        (self.concat(), move |s| (cut_adjoint(s, &lens),))
    }
    #[inline]
    fn __jvp_concat(
        &self,
    ) -> (
        Vec<T>,
        impl FnOnce((Option<Vec<Vec<T::TangentVector>>>,)) -> Option<Vec<T::TangentVector>> + use<T>,
    ) {
        let lens: Vec<usize> = self.iter().map(Vec::len).collect();
        (self.concat(), move |(d,)| {
            d.map(|d| concat_tangents(d, &lens))
        })
    }
}
