//! Second order on functions written for `f64` or `f32`: the *dual companion* of such a
//! function (`__vjp_dual`, emitted by `#[differentiable]`, see docs/ARCHITECTURE.md
//! "Second order") runs the same reverse sweep on [`Dual`] numbers. These traits convert
//! into it:
//! - [`LiftTo`] takes the companion's arguments, lifted or not (`f64` or `Dual<f64>`,
//!   `&[f64]` or `&[Dual<f64>]`), to the types its body reads;
//! - [`Lift`] turns a constant of the body that meets a dual number where Rust needs
//!   one type (`let mut s = 0.0;` later assigned `s + x`) into a dual constant.

use crate::Dual;
use std::borrow::Cow;

/// A struct generic over its float (`Poly<f64>`) at dual numbers (`Poly<Dual<f64>>`):
/// what `#[derive(Differentiable)]` gives a struct generic over one type, for a closure
/// given to a second-order operator that calls a method of such a struct on plain floats
/// (captured, or built of constants).
#[diagnostic::on_unimplemented(
    message = "diff: second order through a method of `{Self}` called on plain floats (a value the closure captures or builds of constants) needs the struct at dual numbers",
    label = "called here",
    note = "derive Differentiable for the struct (`#[derive(Differentiable, Clone)]`), which gives the conversion"
)]
pub trait LiftGeneric {
    /// The struct at dual numbers.
    type Lifted;
    /// Converts (copies) the struct.
    fn lift_generic(&self) -> Self::Lifted;
}

impl<T: LiftGeneric + ?Sized> LiftGeneric for &T {
    type Lifted = T::Lifted;
    #[inline(always)]
    fn lift_generic(&self) -> T::Lifted {
        (**self).lift_generic()
    }
}

/// A value of the body converted to the dual numbers over the scalar `S`: floats become
/// dual constants, dual numbers, integers and booleans stay as they are; arrays, `Vec`s,
/// slices and tuples convert their elements.
pub trait Lift<S> {
    /// The converted type.
    type Lifted;
    /// Converts.
    fn lift(self) -> Self::Lifted;
}

macro_rules! lift_float {
    ($($s:ty),*) => {$(
        impl Lift<$s> for $s {
            type Lifted = Dual<$s>;
            #[inline(always)]
            fn lift(self) -> Dual<$s> {
                Dual::constant(self)
            }
        }
        impl Lift<$s> for &$s {
            type Lifted = Dual<$s>;
            #[inline(always)]
            fn lift(self) -> Dual<$s> {
                Dual::constant(*self)
            }
        }
    )*};
}
lift_float!(f32, f64);

macro_rules! lift_same {
    ($($t:ty),*) => {$(
        impl<S> Lift<S> for $t {
            type Lifted = $t;
            #[inline(always)]
            fn lift(self) -> $t {
                self
            }
        }
    )*};
}
lift_same!(bool, usize, isize, u8, u16, u32, u64, i8, i16, i32, i64, ());

impl<S> Lift<S> for Dual<S> {
    type Lifted = Dual<S>;
    #[inline(always)]
    fn lift(self) -> Dual<S> {
        self
    }
}

impl<S: Copy> Lift<S> for &Dual<S> {
    type Lifted = Dual<S>;
    #[inline(always)]
    fn lift(self) -> Dual<S> {
        *self
    }
}

impl<S, T: Lift<S>, const N: usize> Lift<S> for [T; N] {
    type Lifted = [T::Lifted; N];
    fn lift(self) -> Self::Lifted {
        self.map(Lift::lift)
    }
}

impl<S, T: Lift<S>> Lift<S> for Vec<T> {
    type Lifted = Vec<T::Lifted>;
    fn lift(self) -> Self::Lifted {
        self.into_iter().map(Lift::lift).collect()
    }
}

impl<S, T: Lift<S> + Clone> Lift<S> for &[T] {
    type Lifted = Vec<T::Lifted>;
    fn lift(self) -> Self::Lifted {
        self.iter().cloned().map(Lift::lift).collect()
    }
}

impl<S, T: Lift<S> + Clone> Lift<S> for &Vec<T> {
    type Lifted = Vec<T::Lifted>;
    fn lift(self) -> Self::Lifted {
        self.iter().cloned().map(Lift::lift).collect()
    }
}

impl<S, T: Lift<S> + Clone, const N: usize> Lift<S> for &[T; N] {
    type Lifted = [T::Lifted; N];
    fn lift(self) -> Self::Lifted {
        self.clone().map(Lift::lift)
    }
}

impl<S, T: Lift<S>> Lift<S> for Option<T> {
    type Lifted = Option<T::Lifted>;
    fn lift(self) -> Self::Lifted {
        self.map(Lift::lift)
    }
}

/// An argument of a call in a dual companion converted to the parameter's type `T`,
/// inferred from the callee (`emit/dual.rs`): as it is where the parameter is not
/// converted, plain floats as dual constants, a reference to dual numbers borrowed (a
/// `Cow`) where the parameter takes a reference to floats.
pub trait LiftTo<T> {
    /// Converts.
    fn lift_to(self) -> T;
}

/// `LiftTo` for the collections of an element type `$e` whose lifted type is `$d`, by
/// value (a reference to one is lifted by [`LiftElement`]); and `$e`'s [`LiftElement`].
macro_rules! lift_to_collections {
    ([$($g:tt)*] $e:ty => $d:ty) => {
        impl<$($g)*> LiftTo<Vec<$d>> for Vec<$e> {
            fn lift_to(self) -> Vec<$d> {
                self.lift()
            }
        }
        impl<$($g)* const N: usize> LiftTo<[$d; N]> for [$e; N] {
            fn lift_to(self) -> [$d; N] {
                self.lift()
            }
        }
        impl<$($g)*> LiftElement<$d> for $e {
            fn lift_element(&self) -> $d {
                self.clone().lift()
            }
            fn as_lifted(_: &[Self]) -> Option<&[$d]> {
                None
            }
            fn as_lifted_vec(_: &Vec<Self>) -> Option<&Vec<$d>> {
                None
            }
            fn as_lifted_array<const N: usize>(_: &[Self; N]) -> Option<&[$d; N]> {
                None
            }
        }
    };
}

macro_rules! lift_to {
    ($($s:ty),*) => {$(
        impl LiftTo<Dual<$s>> for $s {
            #[inline(always)]
            fn lift_to(self) -> Dual<$s> {
                Dual::constant(self)
            }
        }
        /// A dual number given for a parameter the callee does not differentiate (one
        /// its `wrt` leaves out): its value. No derivative reaches the result through
        /// it: one flowing into such a parameter is refused at first order (or the
        /// first-order companion does not compile), so what reaches it here is cut
        /// (`no_derivative(..)`) or read by nothing the result depends on.
        impl LiftTo<$s> for Dual<$s> {
            #[inline(always)]
            fn lift_to(self) -> $s {
                self.re
            }
        }
        /// A pair or a triple of plain floats (a tuple of constants, `g(x, (0.5, 1.0))`)
        /// where the parameter is a tuple of them.
        impl LiftTo<(Dual<$s>, Dual<$s>)> for ($s, $s) {
            #[inline(always)]
            fn lift_to(self) -> (Dual<$s>, Dual<$s>) {
                (Dual::constant(self.0), Dual::constant(self.1))
            }
        }
        impl LiftTo<(Dual<$s>, Dual<$s>, Dual<$s>)> for ($s, $s, $s) {
            #[inline(always)]
            fn lift_to(self) -> (Dual<$s>, Dual<$s>, Dual<$s>) {
                (Dual::constant(self.0), Dual::constant(self.1), Dual::constant(self.2))
            }
        }
        /// An optional float (`Some(s)`, a constant `Option<f64>`) where the parameter
        /// is an optional dual number.
        impl LiftTo<Option<Dual<$s>>> for Option<$s> {
            #[inline(always)]
            fn lift_to(self) -> Option<Dual<$s>> {
                self.map(Dual::constant)
            }
        }
        impl<'a> LiftTo<Cow<'a, Dual<$s>>> for &'a $s {
            fn lift_to(self) -> Cow<'a, Dual<$s>> {
                Cow::Owned(Dual::constant(*self))
            }
        }
        // Floats, and one level of nesting: rows of a matrix (`&[Vec<f64>]`,
        // `[[f64; 3]; 3]`).
        lift_to_collections!([] $s => Dual<$s>);
        lift_to_collections!([] Vec<$s> => Vec<Dual<$s>>);
        lift_to_collections!([const M: usize,] [$s; M] => [Dual<$s>; M]);
        // Records of floats (`&[(f64, f64)]`, observations as pairs or triples).
        lift_to_collections!([] ($s, $s) => (Dual<$s>, Dual<$s>));
        lift_to_collections!([] ($s, $s, $s) => (Dual<$s>, Dual<$s>, Dual<$s>));
        // Optional observations (`&[Option<f64>]`, missing measurements).
        lift_to_collections!([] Option<$s> => Option<Dual<$s>>);
    )*};
}
lift_to!(f32, f64);

/// An argument given to a parameter whose type is a type parameter of the function (`a:
/// T` of `fn pick<T: Differentiable>(a: T, ..)`) in its dual companion: `T` is the
/// argument's type (a dual number, a struct's twin), or the dual number of a float
/// given beside one.
pub struct Same<T>(pub T);

impl<T> LiftTo<Same<T>> for T {
    #[inline(always)]
    fn lift_to(self) -> Same<T> {
        Same(self)
    }
}

macro_rules! same_constant {
    ($($s:ty)*) => {$(
        impl LiftTo<Same<Dual<$s>>> for $s {
            #[inline(always)]
            fn lift_to(self) -> Same<Dual<$s>> {
                Same(Dual::constant(self))
            }
        }
    )*};
}

same_constant!(f64 f32);

/// Every argument as it is (a parameter the dual companion does not convert, an argument
/// already dual).
impl<T> LiftTo<T> for T {
    #[inline(always)]
    fn lift_to(self) -> T {
        self
    }
}

/// A `&Vec<T>` where the parameter is `&[T]` (the coercion of a call).
impl<'a, T> LiftTo<&'a [T]> for &'a Vec<T> {
    #[inline(always)]
    fn lift_to(self) -> &'a [T] {
        self
    }
}

/// A `&Box<T>` where the parameter is `&T` (the coercion of a call: a recursive
/// function walking a tree, `eval(left, x)` with `left: &Box<Expr>`).
impl<'a, T: ?Sized> LiftTo<&'a T> for &'a Box<T> {
    #[inline(always)]
    fn lift_to(self) -> &'a T {
        self
    }
}

/// A `&&T` where the parameter is `&T` (a reference bound by a pattern on a reference).
impl<'a, T: ?Sized> LiftTo<&'a T> for &'a &T {
    #[inline(always)]
    fn lift_to(self) -> &'a T {
        self
    }
}

/// A `&String` where the parameter is `&str`.
impl<'a> LiftTo<&'a str> for &'a String {
    #[inline(always)]
    fn lift_to(self) -> &'a str {
        self
    }
}

/// An owned point where the parameter is a reference (`hessian!(at: black_box(&x), ..)`
/// gives the lifted point by value): owned by the `Cow`.
impl<'a, T: Clone> LiftTo<Cow<'a, [T]>> for Vec<T> {
    #[inline(always)]
    fn lift_to(self) -> Cow<'a, [T]> {
        Cow::Owned(self)
    }
}

impl<'a, T: Clone> LiftTo<Cow<'a, Vec<T>>> for Vec<T> {
    #[inline(always)]
    fn lift_to(self) -> Cow<'a, Vec<T>> {
        Cow::Owned(self)
    }
}

impl<'a, T: Clone, const N: usize> LiftTo<Cow<'a, [T]>> for [T; N] {
    #[inline(always)]
    fn lift_to(self) -> Cow<'a, [T]> {
        Cow::Owned(self.to_vec())
    }
}

impl<'a, T: Clone, const N: usize> LiftTo<Cow<'a, [T; N]>> for [T; N] {
    #[inline(always)]
    fn lift_to(self) -> Cow<'a, [T; N]> {
        Cow::Owned(self)
    }
}

impl<'a, S: Clone> LiftTo<Cow<'a, Dual<S>>> for Dual<S> {
    #[inline(always)]
    fn lift_to(self) -> Cow<'a, Dual<S>> {
        Cow::Owned(self)
    }
}

/// A `&mut Vec<T>` where the parameter is `&mut [T]` (the coercion of a call).
impl<'a, T> LiftTo<&'a mut [T]> for &'a mut Vec<T> {
    #[inline(always)]
    fn lift_to(self) -> &'a mut [T] {
        self
    }
}

/// A `&mut [T; N]` where the parameter is `&mut [T]` (the coercion of a call).
impl<'a, T, const N: usize> LiftTo<&'a mut [T]> for &'a mut [T; N] {
    #[inline(always)]
    fn lift_to(self) -> &'a mut [T] {
        self
    }
}

/// A `&[T; N]` where the parameter is `&[T]` (the coercion of a call).
impl<'a, T, const N: usize> LiftTo<&'a [T]> for &'a [T; N] {
    #[inline(always)]
    fn lift_to(self) -> &'a [T] {
        self
    }
}

// Arguments already of the lifted type, borrowed.

impl<'a, S: Clone> LiftTo<Cow<'a, Dual<S>>> for &'a Dual<S> {
    #[inline(always)]
    fn lift_to(self) -> Cow<'a, Dual<S>> {
        Cow::Borrowed(self)
    }
}

/// An element of a collection a dual companion takes by reference (`&[E]`, `&Vec<E>`,
/// `&[E; N]`) converted to the element type `D` it reads: plain floats (or rows of
/// them) to dual numbers, a struct to its dual twin (derived), and every type to itself,
/// borrowed rather than copied (`as_lifted`).
pub trait LiftElement<D>: Sized {
    /// The element converted.
    fn lift_element(&self) -> D;
    /// The elements as they are, when they are already of the lifted type.
    fn as_lifted(elements: &[Self]) -> Option<&[D]>;
    /// [`as_lifted`](Self::as_lifted) for a `Vec`.
    #[allow(clippy::ptr_arg)]
    fn as_lifted_vec(elements: &Vec<Self>) -> Option<&Vec<D>>;
    /// [`as_lifted`](Self::as_lifted) for an array.
    fn as_lifted_array<const N: usize>(elements: &[Self; N]) -> Option<&[D; N]>;
}

impl<T: Clone> LiftElement<T> for T {
    #[inline(always)]
    fn lift_element(&self) -> T {
        self.clone()
    }
    #[inline(always)]
    fn as_lifted(elements: &[T]) -> Option<&[T]> {
        Some(elements)
    }
    #[inline(always)]
    fn as_lifted_vec(elements: &Vec<T>) -> Option<&Vec<T>> {
        Some(elements)
    }
    #[inline(always)]
    fn as_lifted_array<const N: usize>(elements: &[T; N]) -> Option<&[T; N]> {
        Some(elements)
    }
}

/// The elements lifted: borrowed when they already are, converted otherwise.
fn lifted_slice<E: LiftElement<D>, D: Clone>(elements: &[E]) -> Cow<'_, [D]> {
    match E::as_lifted(elements) {
        Some(same) => Cow::Borrowed(same),
        None => Cow::Owned(elements.iter().map(LiftElement::lift_element).collect()),
    }
}

impl<'a, E: LiftElement<D>, D: Clone> LiftTo<Cow<'a, [D]>> for &'a [E] {
    #[inline(always)]
    fn lift_to(self) -> Cow<'a, [D]> {
        lifted_slice(self)
    }
}

impl<'a, E: LiftElement<D>, D: Clone> LiftTo<Cow<'a, [D]>> for &'a Vec<E> {
    #[inline(always)]
    fn lift_to(self) -> Cow<'a, [D]> {
        lifted_slice(self)
    }
}

impl<'a, E: LiftElement<D>, D: Clone, const N: usize> LiftTo<Cow<'a, [D]>> for &'a [E; N] {
    #[inline(always)]
    fn lift_to(self) -> Cow<'a, [D]> {
        lifted_slice(self)
    }
}

impl<'a, E: LiftElement<D>, D: Clone> LiftTo<Cow<'a, Vec<D>>> for &'a Vec<E> {
    #[inline(always)]
    fn lift_to(self) -> Cow<'a, Vec<D>> {
        match E::as_lifted_vec(self) {
            Some(same) => Cow::Borrowed(same),
            None => Cow::Owned(self.iter().map(LiftElement::lift_element).collect()),
        }
    }
}

impl<'a, E: LiftElement<D>, D: Clone, const N: usize> LiftTo<Cow<'a, [D; N]>> for &'a [E; N] {
    #[inline(always)]
    fn lift_to(self) -> Cow<'a, [D; N]> {
        match E::as_lifted_array(self) {
            Some(same) => Cow::Borrowed(same),
            None => Cow::Owned(self.each_ref().map(LiftElement::lift_element)),
        }
    }
}

/// The plain value of a lifted one, for code that reads values only (a comparison, an
/// integer cast, printing, `total_cmp`): dual numbers give their value, collections and
/// tuples their elements' values; plain values are copied as they are.
pub trait Plain {
    /// The plain type.
    type Out;
    /// The plain value.
    fn plain(&self) -> Self::Out;
}

macro_rules! plain_same {
    ($($t:ty),*) => {$(
        impl Plain for $t {
            type Out = $t;
            #[inline(always)]
            fn plain(&self) -> $t {
                *self
            }
        }
    )*};
}
plain_same!(f32, f64, bool, usize, isize, u8, u16, u32, u64, i8, i16, i32, i64);

impl<S: Copy> Plain for Dual<S> {
    type Out = S;
    #[inline(always)]
    fn plain(&self) -> S {
        self.re
    }
}

/// The operand of an `as` cast to a float in a dual companion, where the analysis takes
/// it for a value carrying a derivative but Rust may know it for an integer (the index of
/// an `enumerate` item kept in a tuple with a dual number): an integer, or a float that
/// is not dual, is the operand as it is; a dual number, whose derivative the cast would
/// drop, panics, as second order of such a function is not available.
pub trait CastSource {
    /// The operand's type.
    type Out;
    /// The operand.
    fn cast_source(&self) -> Self::Out;
}

macro_rules! cast_source_same {
    ($($t:ty),*) => {$(
        impl CastSource for $t {
            type Out = $t;
            #[inline(always)]
            fn cast_source(&self) -> $t {
                *self
            }
        }
    )*};
}
cast_source_same!(f32, f64, bool, usize, isize, u8, u16, u32, u64, u128, i8, i16, i32, i64, i128);

impl<S> CastSource for Dual<S> {
    type Out = S;
    fn cast_source(&self) -> S {
        panic!(
            "diff: second order (hessian!, second_derivative!) is not available here: an `as` cast of a value that carries a derivative; convert with `T::from(x)` or leave the cast out"
        )
    }
}

impl<T: Plain + ?Sized> Plain for &T {
    type Out = T::Out;
    #[inline(always)]
    fn plain(&self) -> T::Out {
        (**self).plain()
    }
}

impl<T: Plain, const N: usize> Plain for [T; N] {
    type Out = [T::Out; N];
    fn plain(&self) -> Self::Out {
        core::array::from_fn(|i| self[i].plain())
    }
}

impl<T: Plain> Plain for [T] {
    type Out = Vec<T::Out>;
    fn plain(&self) -> Self::Out {
        self.iter().map(Plain::plain).collect()
    }
}

impl<T: Plain> Plain for Vec<T> {
    type Out = Vec<T::Out>;
    fn plain(&self) -> Self::Out {
        self.iter().map(Plain::plain).collect()
    }
}

impl<T: Plain> Plain for Option<T> {
    type Out = Option<T::Out>;
    fn plain(&self) -> Self::Out {
        self.as_ref().map(Plain::plain)
    }
}

// Tuples: `Lift` and `Plain` element by element.
macro_rules! tuple_impls {
    ($( ( $($t:ident $i:tt),+ ) )*) => {$(
        impl<S, $($t: Lift<S>),+> Lift<S> for ($($t,)+) {
            type Lifted = ($($t::Lifted,)+);
            fn lift(self) -> Self::Lifted {
                ($(self.$i.lift(),)+)
            }
        }

        impl<$($t: Plain),+> Plain for ($($t,)+) {
            type Out = ($($t::Out,)+);
            fn plain(&self) -> Self::Out {
                ($(self.$i.plain(),)+)
            }
        }
    )*};
}

tuple_impls! {
    (A 0)
    (A 0, B 1)
    (A 0, B 1, C 2)
    (A 0, B 1, C 2, D 3)
    (A 0, B 1, C 2, D 3, E 4)
    (A 0, B 1, C 2, D 3, E 4, F 5)
}

/// The dual numbers of a float type: how a trait generic over its scalars (`trait
/// Continuous<K: Float, T: Float>`) declares the dual companion of a method
/// (`__vjp_dual_pdf(&self, x: <K as DualOf>::Dual)`), which its implementations for
/// `f64` (`Dual<f64>`) or `f32` define.
pub trait DualOf {
    /// The dual numbers over `Self`.
    type Dual;
}

impl DualOf for f64 {
    type Dual = Dual<f64>;
}

impl DualOf for f32 {
    type Dual = Dual<f32>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_become_dual_constants() {
        let d: Dual<f64> = Lift::<f64>::lift(2.5);
        assert_eq!((d.re, d.eps), (2.5, 0.0));
        let a: [Dual<f64>; 2] = Lift::<f64>::lift([1.0, 2.0]);
        assert_eq!((a[1].re, a[1].eps), (2.0, 0.0));
        let (x, n): (Dual<f32>, usize) = Lift::<f32>::lift((1.5f32, 3usize));
        assert_eq!((x.re, n), (1.5, 3));
        let v = Dual::new(1.0, 1.0);
        assert_eq!(Lift::<f64>::lift(v).eps, 1.0);
    }

    #[test]
    fn arguments_are_borrowed_when_already_dual() {
        let xs = vec![Dual::new(1.0, 1.0), Dual::new(2.0, 0.0)];
        let c: Cow<[Dual<f64>]> = LiftTo::lift_to(&xs);
        assert!(matches!(c, Cow::Borrowed(_)));
        let plain = [1.0, 2.0];
        let c: Cow<[Dual<f64>]> = LiftTo::lift_to(&plain[..]);
        assert_eq!(c[1].re, 2.0);
        assert_eq!(c[1].eps, 0.0);
        let d: Dual<f64> = LiftTo::lift_to(3.0);
        assert_eq!(d.re, 3.0);
    }
}
