//! More helpers for generated code: typing closures, accumulating into parts of
//! tangents, capturing lifetimes, and the dense Jacobian.
use crate::{Differentiable, VectorSpace};

/// Adds `v` into a part of a tangent (`whole.field`, `whole[i]`).
#[inline(always)]
pub fn accumulate_into<T: VectorSpace>(place: &mut T, v: T) {
    let old = core::mem::replace(place, T::zero());
    *place = old.add(v);
}

/// Lets a returned closure capture a lifetime in any edition (`impl Fn() + Captures<'a>`).
pub trait Captures<'a> {}
impl<T: ?Sized> Captures<'_> for T {}

/// Gives a pullback closure written in place its seed type: the tangent of the value.
#[inline(always)]
pub fn with_pullback<V, F, S>(value_and_pullback: (V, F)) -> (V, F)
where
    V: Differentiable,
    F: FnOnce(V::TangentVector) -> S,
{
    value_and_pullback
}

/// The input slots of a differential of inputs whose zero tangents are `Self`
/// (a tuple of references to them): a tuple of `Option`s of those tangents.
pub trait SlotsOf {
    /// The tuple of optional tangents.
    type Slots;
}

macro_rules! slots_of {
    ($($t:ident),+) => {
        impl<'a, $($t: 'a),+> SlotsOf for ($(&'a $t,)+) {
            type Slots = ($(Option<$t>,)+);
        }
    };
}
slots_of!(A);
slots_of!(A, B);
slots_of!(A, B, C);
slots_of!(A, B, C, D);
slots_of!(A, B, C, D, E);
slots_of!(A, B, C, D, E, G);

/// Gives a differential closure written in place its input type, from zeros shaped like
/// the inputs' tangents.
#[inline(always)]
pub fn with_differential<Z, V, F>(_zeros: Z, value_and_differential: (V, F)) -> (V, F)
where
    Z: SlotsOf,
    V: Differentiable,
    F: FnOnce(Z::Slots) -> Option<V::TangentVector>,
{
    value_and_differential
}

/// Tangents with coordinates: the dense operators (`jacobian!`, `hessian!`) read and
/// build them coordinate by coordinate.
pub trait Coordinates: Sized {
    /// The scalar of a coordinate.
    type Scalar: Copy;
    /// The coordinates, in order.
    fn coordinates(&self) -> Vec<Self::Scalar>;
    /// The `i`-th unit vector of the space `self` lies in.
    fn unit_vector(&self, i: usize) -> Self;
}

macro_rules! scalar_coordinates {
    ($($t:ty),*) => {$(
        impl Coordinates for $t {
            type Scalar = $t;
            fn coordinates(&self) -> Vec<$t> { vec![*self] }
            fn unit_vector(&self, _: usize) -> $t { 1.0 }
        }
    )*};
}
scalar_coordinates!(f32, f64);

impl<T: Coordinates + VectorSpace> Coordinates for Vec<T> {
    type Scalar = T::Scalar;
    fn coordinates(&self) -> Vec<T::Scalar> {
        self.iter().flat_map(|t| t.coordinates()).collect()
    }
    fn unit_vector(&self, i: usize) -> Self {
        let mut out: Vec<T> = Vec::with_capacity(self.len());
        let mut offset = 0;
        for t in self {
            let n = t.coordinates().len();
            let z = if i >= offset && i < offset + n {
                t.unit_vector(i - offset)
            } else {
                t.unit_vector(0).scale(0.0)
            };
            out.push(z);
            offset += n;
        }
        out
    }
}

impl<T: Coordinates + VectorSpace, const N: usize> Coordinates for [T; N] {
    type Scalar = T::Scalar;
    fn coordinates(&self) -> Vec<T::Scalar> {
        self.iter().flat_map(|t| t.coordinates()).collect()
    }
    fn unit_vector(&self, i: usize) -> Self {
        let v: Vec<T> = self.to_vec().unit_vector(i);
        match v.try_into() {
            Ok(a) => a,
            Err(_) => unreachable!("same length"),
        }
    }
}

/// The dense Jacobian `J[i][j] = d f_i / d x_j` of `f` at `x`, column by column in
/// forward mode: `jvp(x, dx)` returns the tangent of `f` at `x` along `dx`.
pub fn jacobian<X, T, D>(x: &X, mut jvp: impl FnMut(X, X::TangentVector) -> T) -> Vec<Vec<D>>
where
    X: Clone + Differentiable,
    X::TangentVector: Coordinates<Scalar = D>,
    T: Coordinates<Scalar = D>,
    D: Copy,
{
    let zero = x.zero_tangent();
    let n = zero.coordinates().len();
    let columns: Vec<Vec<D>> = (0..n)
        .map(|j| jvp(x.clone(), zero.unit_vector(j)).coordinates())
        .collect();
    let m = columns.first().map_or(0, |c| c.len());
    (0..m)
        .map(|i| columns.iter().map(|c| c[i]).collect())
        .collect()
}

/// The capacity to reserve for a loop's tape: the trip count when the iterator knows it
/// exactly, else nothing (the tape grows by doubling).
#[inline(always)]
pub fn tape_capacity<I: Iterator>(iter: &I) -> usize {
    match iter.size_hint() {
        (lo, Some(hi)) if lo == hi => lo,
        _ => 0,
    }
}

/// Collections whose elements are scalars: the neutral elements of `sum()` and
/// `product()` over them.
pub trait Elements {
    /// The element type.
    type Element: num_traits::Zero + num_traits::One;
}
impl<T: num_traits::Zero + num_traits::One> Elements for [T] {
    type Element = T;
}
impl<T: num_traits::Zero + num_traits::One> Elements for Vec<T> {
    type Element = T;
}
impl<T: num_traits::Zero + num_traits::One, const N: usize> Elements for [T; N] {
    type Element = T;
}
impl<C: Elements + ?Sized> Elements for &C {
    type Element = C::Element;
}
impl<C: Elements + ?Sized> Elements for &mut C {
    type Element = C::Element;
}

/// Zero of a collection's element type (the start of a `sum()`).
#[inline(always)]
pub fn zero_element<C: Elements + ?Sized>(_: &C) -> C::Element {
    num_traits::Zero::zero()
}

/// One of a collection's element type (the start of a `product()`).
#[inline(always)]
pub fn one_element<C: Elements + ?Sized>(_: &C) -> C::Element {
    num_traits::One::one()
}

/// Checks a registered pullback's type: it takes the result's tangent `S` and returns
/// the tangents `G` of the differentiated parameters (a tuple for several).
#[inline(always)]
pub fn registered_pullback<S, G, F: FnOnce(S) -> G>(pullback: F) -> F {
    pullback
}

/// Checks a registered differential's type: it takes the tangents `D` of the
/// differentiated parameters (a tuple for several) and returns the result's tangent `T`.
#[inline(always)]
pub fn registered_differential<D, T, F: FnOnce(D) -> T>(differential: F) -> F {
    differential
}

/// The inner product of two optional tangents (`None` is zero).
#[inline(always)]
pub fn dot_opt<T: crate::InnerProduct>(a: &Option<T>, b: &Option<T>) -> f64 {
    match (a, b) {
        (Some(a), Some(b)) => a.dot(b),
        _ => 0.0,
    }
}

/// A scalar from an `f64` (an inner product, for a derived derivative).
#[inline(always)]
pub fn from_f64<T: num_traits::NumCast>(x: f64) -> T {
    match T::from(x) {
        Some(t) => t,
        None => panic!("diff: {x} is not representable in the result's scalar type"),
    }
}

/// `v` converted to the scalar type of `like` (the adjoint of an `as` cast).
#[inline(always)]
pub fn cast_like<S: num_traits::NumCast, T: num_traits::NumCast>(v: T, _like: &S) -> S {
    match S::from(v) {
        Some(s) => s,
        None => panic!("diff: a tangent is not representable in the cast's source type"),
    }
}

/// `trunc(a / b)`: minus the derivative of `a % b` with respect to `b`.
#[inline(always)]
pub fn rem_quotient<T: num_traits::Float>(a: T, b: T) -> T {
    (a / b).trunc()
}

// ---- `hessian!`: forward over reverse, with dual numbers ----

/// [`Dual`](crate::Dual), for generated code (`::diff::__private::Dual`).
pub use crate::Dual;

/// Inputs of `hessian!`: the shapes whose coordinates can be lifted to dual numbers.
pub trait Lift {
    /// The scalar of a coordinate (`f64` or `f32`).
    type Scalar: num_traits::Float;
    /// The input with its scalars replaced by `Dual<Self::Scalar>`.
    type Lifted;
    /// The number of coordinates.
    fn dimension(&self) -> usize;
    /// The input as dual numbers whose dual parts are the `direction`-th unit vector
    /// (all zero except a one at coordinate `direction`).
    fn lift(&self, direction: usize) -> Self::Lifted;
    /// The input as dual numbers whose dual parts are all zero (constants).
    fn lift_constant(&self) -> Self::Lifted;
}

macro_rules! lift_scalars {
    ($($t:ty),*) => {$(
        impl Lift for $t {
            type Scalar = $t;
            type Lifted = Dual<$t>;
            fn dimension(&self) -> usize {
                1
            }
            fn lift(&self, direction: usize) -> Dual<$t> {
                Dual::new(*self, if direction == 0 { 1.0 } else { 0.0 })
            }
            fn lift_constant(&self) -> Dual<$t> {
                Dual::constant(*self)
            }
        }
        impl Lift for [$t] {
            type Scalar = $t;
            type Lifted = Vec<Dual<$t>>;
            fn dimension(&self) -> usize {
                self.len()
            }
            fn lift(&self, direction: usize) -> Vec<Dual<$t>> {
                self.iter().enumerate().map(|(i, x)| x.lift(usize::from(i != direction))).collect()
            }
            fn lift_constant(&self) -> Vec<Dual<$t>> {
                self.iter().map(|x| Dual::constant(*x)).collect()
            }
        }
        impl Lift for Vec<$t> {
            type Scalar = $t;
            type Lifted = Vec<Dual<$t>>;
            fn dimension(&self) -> usize {
                self.len()
            }
            fn lift(&self, direction: usize) -> Vec<Dual<$t>> {
                self.as_slice().lift(direction)
            }
            fn lift_constant(&self) -> Vec<Dual<$t>> {
                self.as_slice().lift_constant()
            }
        }
        impl<const N: usize> Lift for [$t; N] {
            type Scalar = $t;
            type Lifted = [Dual<$t>; N];
            fn dimension(&self) -> usize {
                N
            }
            fn lift(&self, direction: usize) -> [Dual<$t>; N] {
                core::array::from_fn(|i| self[i].lift(usize::from(i != direction)))
            }
            fn lift_constant(&self) -> [Dual<$t>; N] {
                self.map(Dual::constant)
            }
        }
    )*};
}
lift_scalars!(f32, f64);

impl<X: Lift + ?Sized> Lift for &X {
    type Scalar = X::Scalar;
    type Lifted = X::Lifted;
    fn dimension(&self) -> usize {
        (**self).dimension()
    }
    fn lift(&self, direction: usize) -> X::Lifted {
        (**self).lift(direction)
    }
    fn lift_constant(&self) -> X::Lifted {
        (**self).lift_constant()
    }
}

/// Gradients in dual numbers (`Dual<T>`, `Vec<Dual<T>>`, `[Dual<T>; N]`, `Option` of
/// those with `None` as zero): their dual parts, in order.
pub trait DualParts {
    /// The scalar of a dual part.
    type Scalar;
    /// The dual parts; empty for a zero without a shape (`None`, an empty `Vec`).
    fn dual_parts(&self) -> Vec<Self::Scalar>;
}

impl<T: Copy> DualParts for Dual<T> {
    type Scalar = T;
    fn dual_parts(&self) -> Vec<T> {
        vec![self.eps]
    }
}

impl<T: Copy> DualParts for [Dual<T>] {
    type Scalar = T;
    fn dual_parts(&self) -> Vec<T> {
        self.iter().map(|d| d.eps).collect()
    }
}

impl<T: Copy> DualParts for Vec<Dual<T>> {
    type Scalar = T;
    fn dual_parts(&self) -> Vec<T> {
        self.as_slice().dual_parts()
    }
}

impl<T: Copy, const N: usize> DualParts for [Dual<T>; N] {
    type Scalar = T;
    fn dual_parts(&self) -> Vec<T> {
        self.as_slice().dual_parts()
    }
}

impl<G: DualParts> DualParts for Option<G> {
    type Scalar = G::Scalar;
    fn dual_parts(&self) -> Vec<G::Scalar> {
        self.as_ref().map_or_else(Vec::new, G::dual_parts)
    }
}

impl<G: DualParts + ?Sized> DualParts for &G {
    type Scalar = G::Scalar;
    fn dual_parts(&self) -> Vec<G::Scalar> {
        (**self).dual_parts()
    }
}

/// The dense Hessian `H[i][j] = d² f / d x_i d x_j` of a scalar function `f` at `x`,
/// forward over reverse: `column(x.lift(j))` is the gradient of `f`, computed in dual
/// numbers at `x` lifted along the `j`-th coordinate, whose dual parts are column `j`.
/// Returns the rows (the same as the columns, up to rounding, for a smooth `f`).
///
/// # Panics
/// If a gradient has dual parts that are neither empty (zero) nor `x.dimension()` long.
#[track_caller]
pub fn hessian<X, G>(x: &X, mut column: impl FnMut(X::Lifted) -> G) -> Vec<Vec<X::Scalar>>
where
    X: Lift + ?Sized,
    G: DualParts<Scalar = X::Scalar>,
{
    let n = x.dimension();
    let columns: Vec<Vec<X::Scalar>> = (0..n)
        .map(|j| {
            let parts = column(x.lift(j)).dual_parts();
            if parts.is_empty() {
                return vec![num_traits::Zero::zero(); n];
            }
            assert!(
                parts.len() == n,
                "diff: hessian: the gradient has {} entries for an input of dimension {n}",
                parts.len()
            );
            parts
        })
        .collect();
    (0..n)
        .map(|i| columns.iter().map(|c| c[i]).collect())
        .collect()
}

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
}

impl<T: VectorSpace> Elementwise for Vec<T> {
    type Elem = T;
    type Shape = usize;
    fn zero_of_shape(n: usize) -> Self {
        (0..n).map(|_| T::zero()).collect()
    }
    fn take_at(&mut self, i: usize) -> Option<T> {
        self.get_mut(i).map(|e| core::mem::replace(e, T::zero()))
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
}

impl<T: VectorSpace, const N: usize> Elementwise for [T; N] {
    type Elem = T;
    type Shape = ();
    fn zero_of_shape(_: ()) -> Self {
        core::array::from_fn(|_| T::zero())
    }
    fn take_at(&mut self, i: usize) -> Option<T> {
        Some(core::mem::replace(&mut self[i], T::zero()))
    }
    fn get_at(&self, i: usize) -> Option<T> {
        Some(self[i].clone())
    }
    fn at_mut(&mut self, _: (), i: usize) -> &mut T {
        &mut self[i]
    }
}

/// A zero tangent of the given shape.
#[inline(always)]
pub fn zero_of_shape<S: Elementwise>(shape: Shape<S>) -> S {
    S::zero_of_shape(shape.0)
}

/// `s[i]`, leaving zero in its place (the adjoint of an element write).
#[inline(always)]
pub fn take_at<S: Elementwise>(s: &mut S, i: usize) -> Option<S::Elem> {
    s.take_at(i)
}

/// The tangent after `y[i] = v`: `db` with element `i` replaced by `dv`.
#[inline(always)]
pub fn set_at<S: Elementwise>(db: Option<S>, shape: Shape<S>, i: usize, dv: Option<S::Elem>) -> S {
    let mut d = db.unwrap_or_else(|| S::zero_of_shape(shape.0));
    *d.at_mut(shape.0, i) = dv.unwrap_or_else(S::Elem::zero);
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
    T::zero()
}

/// `t`, typed as the marked tangent type.
#[inline(always)]
pub fn same_as<T>(_: Marker<T>, t: T) -> T {
    t
}
