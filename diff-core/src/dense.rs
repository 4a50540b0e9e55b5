//! The dense operators: `jacobian!` (forward mode, column by column) and `hessian!`
//! (forward over reverse, on dual numbers).
use crate::Differentiable;

/// Tangents with coordinates: the dense operators (`jacobian!`, `hessian!`) read and
/// build them coordinate by coordinate.
pub trait Coordinates: Sized {
    /// The scalar of a coordinate.
    type Scalar: Copy;
    /// The number of coordinates.
    fn dimension(&self) -> usize;
    /// Appends the coordinates, in order, to `out`.
    fn extend_coordinates(&self, out: &mut Vec<Self::Scalar>);
    /// The `i`-th unit vector of the space `self` lies in: zero when `i` is not below
    /// its dimension.
    fn unit_vector(&self, i: usize) -> Self;
    /// The coordinates, in order.
    fn coordinates(&self) -> Vec<Self::Scalar> {
        let mut out = Vec::with_capacity(self.dimension());
        self.extend_coordinates(&mut out);
        out
    }
    /// The coordinates, in order, taking `self` (a `Vec` of scalars is its own).
    fn into_coordinates(self) -> Vec<Self::Scalar> {
        self.coordinates()
    }
    /// The coordinates of a `Vec` of these, in order (a `Vec` of scalars is its own).
    fn vec_into_coordinates(v: Vec<Self>) -> Vec<Self::Scalar> {
        v.coordinates()
    }
}

macro_rules! scalar_coordinates {
    ($($t:ty),*) => {$(
        impl Coordinates for $t {
            type Scalar = $t;
            #[inline]
            fn dimension(&self) -> usize { 1 }
            #[inline]
            fn extend_coordinates(&self, out: &mut Vec<$t>) { out.push(*self) }
            #[inline]
            fn unit_vector(&self, i: usize) -> $t { if i == 0 { 1.0 } else { 0.0 } }
            #[inline]
            fn vec_into_coordinates(v: Vec<$t>) -> Vec<$t> { v }
        }
    )*};
}
scalar_coordinates!(f32, f64);

impl<T: Coordinates> Coordinates for Vec<T> {
    type Scalar = T::Scalar;
    fn dimension(&self) -> usize {
        self.iter().map(T::dimension).sum()
    }
    fn extend_coordinates(&self, out: &mut Vec<T::Scalar>) {
        self.iter().for_each(|t| t.extend_coordinates(out));
    }
    fn unit_vector(&self, i: usize) -> Self {
        let mut offset = 0;
        self.iter().map(|t| unit_part(t, i, &mut offset)).collect()
    }
    fn into_coordinates(self) -> Vec<T::Scalar> {
        T::vec_into_coordinates(self)
    }
}

/// The part `t` of the `i`-th unit vector of a space built of parts, `t`'s coordinates
/// starting at `offset` (moved past them): a unit vector of `t`'s space when `i` is
/// among them, else zero.
fn unit_part<T: Coordinates>(t: &T, i: usize, offset: &mut usize) -> T {
    let start = *offset;
    *offset += t.dimension();
    // Below `start` the index wraps past every dimension: zero.
    t.unit_vector(i.wrapping_sub(start))
}

impl<T: Coordinates, const N: usize> Coordinates for [T; N] {
    type Scalar = T::Scalar;
    fn dimension(&self) -> usize {
        self.iter().map(T::dimension).sum()
    }
    fn extend_coordinates(&self, out: &mut Vec<T::Scalar>) {
        self.iter().for_each(|t| t.extend_coordinates(out));
    }
    fn unit_vector(&self, i: usize) -> Self {
        let mut offset = 0;
        // `from_fn` builds the elements in order, so the offsets add up.
        core::array::from_fn(|k| unit_part(&self[k], i, &mut offset))
    }
}

/// A tuple's coordinates are its elements', in order (a function returning `(f64, f64)`
/// has a Jacobian of two rows).
macro_rules! tuple_coordinates {
    ($( ( $A:ident $a:tt $(, $T:ident $i:tt)* ) )*) => {$(
        impl<$A: Coordinates $(, $T: Coordinates<Scalar = $A::Scalar>)*>
            Coordinates for ($A, $($T,)*)
        {
            type Scalar = $A::Scalar;
            fn dimension(&self) -> usize {
                self.$a.dimension() $(+ self.$i.dimension())*
            }
            fn extend_coordinates(&self, out: &mut Vec<Self::Scalar>) {
                self.$a.extend_coordinates(out);
                $(self.$i.extend_coordinates(out);)*
            }
            fn unit_vector(&self, i: usize) -> Self {
                let mut offset = 0;
                (
                    unit_part(&self.$a, i, &mut offset),
                    $(unit_part(&self.$i, i, &mut offset),)*
                )
            }
        }
    )*};
}

tuple_coordinates! {
    (A 0, B 1)
    (A 0, B 1, C 2)
    (A 0, B 1, C 2, D 3)
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
    let n = zero.dimension();
    let columns: Vec<Vec<D>> = (0..n)
        .map(|j| jvp(x.clone(), zero.unit_vector(j)).coordinates())
        .collect();
    let m = columns.first().map_or(0, |c| c.len());
    (0..m)
        .map(|i| columns.iter().map(|c| c[i]).collect())
        .collect()
}

/// A direction of `jacobian!(at: &x, ..)` given to the differential: as it is, or, for
/// a point that is an array given to a function taking a slice (`at: &[1.0, 2.0]`), the
/// array's tangent as the slice's (`Vec`).
pub trait IntoDirection<T> {
    /// Converts.
    fn into_direction(self) -> T;
}

impl<T> IntoDirection<T> for T {
    #[inline(always)]
    fn into_direction(self) -> T {
        self
    }
}

impl<T, const N: usize> IntoDirection<Vec<T>> for [T; N] {
    fn into_direction(self) -> Vec<T> {
        self.into()
    }
}

/// The dense Jacobian of `f` at `x` by whichever mode needs fewer passes: `m` reverse
/// sweeps for the rows (`reverse(x)` returns the value and its pullback) when the inputs
/// outnumber twice the outputs, else `n` forward passes for the columns (`forward(x)`
/// returns the value and its differential). The number of outputs `m` is known from the
/// first pass's value: a reverse sweep when there are more than two inputs (its pullback
/// gives the first row when rows are taken; a pass lost otherwise), else a forward pass.
/// Each pass but the last takes a clone of `x`; the last takes `x`.
pub fn jacobian_auto<X, Y, D, F, P>(
    x: X,
    mut forward: impl FnMut(X) -> (Y, F),
    mut reverse: impl FnMut(X) -> (Y, P),
) -> Vec<Vec<D>>
where
    X: Clone + Differentiable,
    X::TangentVector: Coordinates<Scalar = D>,
    Y: Differentiable,
    Y::TangentVector: Coordinates<Scalar = D>,
    F: FnOnce(X::TangentVector) -> Y::TangentVector,
    P: FnOnce(Y::TangentVector) -> X::TangentVector,
    D: Copy,
{
    let zero = x.zero_tangent();
    let n = zero.dimension();
    if n == 0 {
        return Vec::new();
    }
    let mut first_column = None;
    let mut first_row = None;
    let y = if n > 2 {
        let (y, pullback) = reverse(x.clone());
        first_row = Some(pullback);
        y
    } else {
        let (y, differential) = forward(x.clone());
        first_column = Some(differential);
        y
    };
    let y_zero = y.zero_tangent();
    let m = y_zero.dimension();
    let mut x = Some(x);
    let mut point = move |last: bool| {
        let x = if last { x.take() } else { x.clone() };
        x.expect("a pass after the last")
    };
    if 2 * m < n {
        return each_pass(
            m,
            first_row,
            |last| reverse(point(last)).1,
            |pullback, i| dense(pullback(y_zero.unit_vector(i)), &zero),
        );
    }
    let columns = each_pass(
        n,
        first_column,
        |last| forward(point(last)).1,
        |differential, j| dense(differential(zero.unit_vector(j)), &y_zero),
    );
    (0..m)
        .map(|i| columns.iter().map(|c| c[i]).collect())
        .collect()
}

/// `count` linear maps applied, the `k`-th to the `k`-th unit vector: the first is the
/// one a pass made already, if any; `again(last)` runs a pass for each of the others,
/// `last` for the last one.
fn each_pass<L, D>(
    count: usize,
    mut first: Option<L>,
    mut again: impl FnMut(bool) -> L,
    mut apply: impl FnMut(L, usize) -> Vec<D>,
) -> Vec<Vec<D>> {
    (0..count)
        .map(|k| {
            let map = first.take().unwrap_or_else(|| again(k + 1 == count));
            apply(map, k)
        })
        .collect()
}

/// The coordinates of a tangent in the space of `zero`, where a tangent may also be
/// written shorter (an empty `Vec` is zero).
fn dense<T: Coordinates>(t: T, zero: &T) -> Vec<T::Scalar> {
    if t.dimension() == zero.dimension() {
        t.into_coordinates()
    } else {
        zero.coordinates()
    }
}

/// [`Dual`](crate::Dual), for generated code (`::diff::__private::Dual`).
pub use crate::Dual;

/// Inputs of `hessian!`: the shapes whose coordinates can be lifted to dual numbers.
#[diagnostic::on_unimplemented(
    message = "hessian! takes a point that is a scalar, a `Vec` or an array of `f64` or `f32` (or a reference to one), or several of those; `{Self}` is not",
    label = "not a scalar, `Vec` or array",
    note = "pass its coordinates as a `Vec` and build the value inside a closure: `hessian!(at: vec![m.w, m.b], of: |v: Vec<f64>| loss(&Model {{ w: v[0], b: v[1] }}))`"
)]
pub trait Lift {
    /// The scalar of a coordinate (`f64` or `f32`).
    type Scalar: num_traits::Float;
    /// The input with its scalars replaced by `Dual<Self::Scalar>`.
    type Lifted;
    /// The number of coordinates.
    fn dimension(&self) -> usize;
    /// The input as dual numbers whose dual parts are the `direction`-th unit vector
    /// (all zero except a one at coordinate `direction`; all zero when `direction` is
    /// not below the dimension).
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
    )*};
}
lift_scalars!(f32, f64);

// Collections are lifted element by element, nested ones too (`[[f64; 2]; 2]`,
// `Vec<Vec<f64>>`), the coordinates numbered in the elements' order.

impl<T: Lift> Lift for [T] {
    type Scalar = T::Scalar;
    type Lifted = Vec<T::Lifted>;
    fn dimension(&self) -> usize {
        self.iter().map(Lift::dimension).sum()
    }
    fn lift(&self, direction: usize) -> Vec<T::Lifted> {
        let mut offset = 0;
        self.iter()
            .map(|t| lift_part(t, direction, &mut offset))
            .collect()
    }
    fn lift_constant(&self) -> Vec<T::Lifted> {
        self.iter().map(Lift::lift_constant).collect()
    }
}

impl<T: Lift> Lift for Vec<T> {
    type Scalar = T::Scalar;
    type Lifted = Vec<T::Lifted>;
    fn dimension(&self) -> usize {
        self.as_slice().dimension()
    }
    fn lift(&self, direction: usize) -> Vec<T::Lifted> {
        self.as_slice().lift(direction)
    }
    fn lift_constant(&self) -> Vec<T::Lifted> {
        self.as_slice().lift_constant()
    }
}

impl<T: Lift, const N: usize> Lift for [T; N] {
    type Scalar = T::Scalar;
    type Lifted = [T::Lifted; N];
    fn dimension(&self) -> usize {
        self.as_slice().dimension()
    }
    fn lift(&self, direction: usize) -> [T::Lifted; N] {
        let mut offset = 0;
        let mut parts = self.iter().map(|t| lift_part(t, direction, &mut offset));
        core::array::from_fn(|_| parts.next().expect("N elements"))
    }
    fn lift_constant(&self) -> [T::Lifted; N] {
        core::array::from_fn(|i| self[i].lift_constant())
    }
}

/// The part `t` of a point built of parts lifted along coordinate `direction`, `t`'s
/// coordinates starting at `offset` (moved past them): along its own coordinate when
/// `direction` is among them, else constant (as [`unit_part`] builds unit vectors).
fn lift_part<T: Lift>(t: &T, direction: usize, offset: &mut usize) -> T::Lifted {
    let start = *offset;
    *offset += t.dimension();
    // Below `start` the index wraps past every dimension: constant.
    t.lift(direction.wrapping_sub(start))
}

/// Several inputs (`hessian!(at: (x, y), of: f)`): the coordinates of one point, in order.
macro_rules! lift_tuples {
    ($(($($i:tt $t:ident),+)),*) => {$(
        impl<S: num_traits::Float, $($t: Lift<Scalar = S>),+> Lift for ($($t,)+) {
            type Scalar = S;
            type Lifted = ($($t::Lifted,)+);
            fn dimension(&self) -> usize {
                0 $(+ self.$i.dimension())+
            }
            fn lift(&self, direction: usize) -> Self::Lifted {
                let mut offset = 0;
                ($(lift_part(&self.$i, direction, &mut offset),)+)
            }
            fn lift_constant(&self) -> Self::Lifted {
                ($(self.$i.lift_constant(),)+)
            }
        }

        impl<S: num_traits::Float, $($t: LiftAlong<Scalar = S>),+> LiftAlong for ($($t,)+) {
            type Tangent = ($($t::Tangent,)+);
            fn lift_along(&self, direction: &Self::Tangent) -> Self::Lifted {
                ($(self.$i.lift_along(&direction.$i),)+)
            }
        }

        impl<$($t: DualEps),+> DualEps for ($($t,)+) {
            type Eps = ($($t::Eps,)+);
            fn eps(self) -> Self::Eps {
                ($(self.$i.eps(),)+)
            }
        }

        impl<S, $($t: DualParts<Scalar = S>),+> DualParts for ($($t,)+) {
            type Scalar = S;
            fn dual_parts(&self) -> Vec<S> {
                let mut parts = Vec::new();
                $(parts.extend(self.$i.dual_parts());)+
                parts
            }
        }
    )*};
}

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

/// Points of an operator nested in a differentiable body (`gradient!(at: x, of: f)`):
/// lifted to dual numbers along a tangent, so that the operator's dual parts are the
/// second derivative applied to it. The values its closure reads from the body and
/// differentiates are lifted too.
#[diagnostic::on_unimplemented(
    message = "an operator inside a differentiable body is differentiated at its point and in the values its closure reads, each a scalar, a `Vec` or an array of `f64` or `f32` (or a reference to one); `{Self}` is not",
    label = "not a scalar, `Vec` or array",
    note = "read the fields the closure needs (`m.w`, `m.b`) rather than calling a method of the whole value, or pass the value's coordinates through `at:`"
)]
pub trait LiftAlong: Lift {
    /// The tangent of the point.
    type Tangent;
    /// The point as dual numbers whose dual parts are `direction` (an empty `Vec` is zero).
    fn lift_along(&self, direction: &Self::Tangent) -> Self::Lifted;
}

macro_rules! lift_scalars_along {
    ($($t:ty),*) => {$(
        impl LiftAlong for $t {
            type Tangent = $t;
            fn lift_along(&self, direction: &$t) -> Dual<$t> {
                Dual::new(*self, *direction)
            }
        }
    )*};
}
lift_scalars_along!(f32, f64);

impl<T: LiftAlong> LiftAlong for [T] {
    type Tangent = Vec<T::Tangent>;
    fn lift_along(&self, direction: &Vec<T::Tangent>) -> Vec<T::Lifted> {
        if direction.is_empty() {
            return self.lift_constant();
        }
        crate::vector_space::check_lengths("a direction", direction.len(), self.len());
        self.iter()
            .zip(direction)
            .map(|(x, d)| x.lift_along(d))
            .collect()
    }
}

impl<T: LiftAlong> LiftAlong for Vec<T> {
    type Tangent = Vec<T::Tangent>;
    fn lift_along(&self, direction: &Vec<T::Tangent>) -> Vec<T::Lifted> {
        self.as_slice().lift_along(direction)
    }
}

impl<T: LiftAlong, const N: usize> LiftAlong for [T; N] {
    type Tangent = [T::Tangent; N];
    fn lift_along(&self, direction: &[T::Tangent; N]) -> [T::Lifted; N] {
        core::array::from_fn(|i| self[i].lift_along(&direction[i]))
    }
}

// A dual number lifts to a dual number of dual numbers: an operator nested in code that
// already runs on dual numbers (a third derivative).
impl<T: num_traits::Float> Lift for Dual<T> {
    type Scalar = Dual<T>;
    type Lifted = Dual<Dual<T>>;
    fn dimension(&self) -> usize {
        1
    }
    fn lift(&self, direction: usize) -> Dual<Dual<T>> {
        let unit = if direction == 0 {
            Dual::constant(T::one())
        } else {
            Dual::constant(T::zero())
        };
        Dual::new(*self, unit)
    }
    fn lift_constant(&self) -> Dual<Dual<T>> {
        Dual::new(*self, Dual::constant(T::zero()))
    }
}

impl<T: num_traits::Float> LiftAlong for Dual<T> {
    type Tangent = Dual<T>;
    fn lift_along(&self, direction: &Dual<T>) -> Dual<Dual<T>> {
        Dual::new(*self, *direction)
    }
}

impl<X: LiftAlong + ?Sized> LiftAlong for &X {
    type Tangent = X::Tangent;
    fn lift_along(&self, direction: &X::Tangent) -> X::Lifted {
        (**self).lift_along(direction)
    }
}

/// A result in dual numbers, and its dual parts in the same shape (`Dual<T>` to `T`,
/// `Vec<Dual<T>>` to `Vec<T>`, `[Dual<T>; N]` to `[T; N]`).
pub trait DualEps {
    /// The shape of the dual parts.
    type Eps;
    /// The dual parts.
    fn eps(self) -> Self::Eps;
}

impl<T> DualEps for Dual<T> {
    type Eps = T;
    fn eps(self) -> T {
        self.eps
    }
}

impl<G: DualEps> DualEps for Vec<G> {
    type Eps = Vec<G::Eps>;
    fn eps(self) -> Vec<G::Eps> {
        self.into_iter().map(DualEps::eps).collect()
    }
}

impl<G: DualEps, const N: usize> DualEps for [G; N] {
    type Eps = [G::Eps; N];
    fn eps(self) -> [G::Eps; N] {
        self.map(DualEps::eps)
    }
}

/// An owned copy of a point given by reference to a nested operator (`gradient!(at: p,
/// of: f)` with `p: &[f64]`), which the operator's derivative reads later.
#[inline]
pub fn to_owned_point<P>(p: &P) -> P::Owned
where
    P: ToOwned + ?Sized,
{
    p.to_owned()
}

/// Reverse mode of [`to_owned_point`]: the identity on tangents.
#[allow(clippy::type_complexity)]
#[inline]
pub fn __vjp_to_owned_point<P>(
    p: &P,
) -> (
    P::Owned,
    impl FnOnce(P::TangentVector) -> (Option<P::TangentVector>,) + use<P>,
)
where
    P: ToOwned + crate::Differentiable + ?Sized,
{
    (p.to_owned(), |s| (Some(s),))
}

/// Forward mode of [`to_owned_point`]: the identity on tangents.
#[allow(clippy::type_complexity)]
#[inline]
pub fn __jvp_to_owned_point<P>(
    p: &P,
) -> (
    P::Owned,
    impl FnOnce((Option<P::TangentVector>,)) -> Option<P::TangentVector> + use<P>,
)
where
    P: ToOwned + crate::Differentiable + ?Sized,
{
    (p.to_owned(), |(d,)| d)
}

/// Checks that a value the closure of a nested operator reads can be lifted along its
/// tangent (generated code calls it at the closure, where rustc reports one that cannot).
#[inline(always)]
pub fn captured_lifts<C: LiftAlong + ?Sized>(_: &C) {}

/// The derivative of a nested operator `y = op(f)(x)` along `direction` (forward mode),
/// or its transpose applied to an adjoint (reverse mode, the same for a gradient, whose
/// derivative, a Hessian, is symmetric): the operator run at `x + ε·direction`, its dual
/// parts. `None` (zero) in, `None` out.
#[inline]
pub fn nested_derivative<X, G>(
    x: &X,
    direction: Option<X::Tangent>,
    operator: impl FnOnce(X::Lifted) -> G,
) -> Option<G::Eps>
where
    X: LiftAlong + ?Sized,
    G: DualEps,
{
    direction.map(|d| operator(x.lift_along(&d)).eps())
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

impl<G: DualParts> DualParts for [G] {
    type Scalar = G::Scalar;
    fn dual_parts(&self) -> Vec<G::Scalar> {
        self.iter().flat_map(DualParts::dual_parts).collect()
    }
}

impl<G: DualParts> DualParts for Vec<G> {
    type Scalar = G::Scalar;
    fn dual_parts(&self) -> Vec<G::Scalar> {
        self.as_slice().dual_parts()
    }
}

impl<G: DualParts, const N: usize> DualParts for [G; N] {
    type Scalar = G::Scalar;
    fn dual_parts(&self) -> Vec<G::Scalar> {
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

lift_tuples!((0 A, 1 B), (0 A, 1 B, 2 C), (0 A, 1 B, 2 C, 3 D), (0 A, 1 B, 2 C, 3 D, 4 E), (0 A, 1 B, 2 C, 3 D, 4 E, 5 F));

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_vectors_of_nested_spaces() {
        let t: (f64, Vec<[f64; 2]>) = (0.0, vec![[0.0; 2]; 2]);
        assert_eq!(Coordinates::dimension(&t), 5);
        assert_eq!(Lift::dimension(&t), 5);
        assert_eq!(t.unit_vector(0), (1.0, vec![[0.0; 2]; 2]));
        assert_eq!(t.unit_vector(3), (0.0, vec![[0.0, 0.0], [1.0, 0.0]]));
        assert_eq!(t.unit_vector(7), (0.0, vec![[0.0; 2]; 2]));
        let mut out = vec![9.0];
        (2.0, vec![[3.0, 4.0]]).extend_coordinates(&mut out);
        assert_eq!(out, [9.0, 2.0, 3.0, 4.0]);
    }

    /// `f(x) = A x` in both modes, with the passes counted: the Jacobian is `A` whichever
    /// mode is taken, and the mode is the one with fewer passes (one lost at most).
    fn linear(a: Vec<Vec<f64>>) -> (Vec<Vec<f64>>, usize, usize) {
        let n = a[0].len();
        let x = vec![0.5; n];
        let (mut forward_passes, mut reverse_passes) = (0, 0);
        let times = |a: &Vec<Vec<f64>>, v: &[f64]| -> Vec<f64> {
            a.iter()
                .map(|r| r.iter().zip(v).map(|(p, q)| p * q).sum())
                .collect()
        };
        let j = jacobian_auto(
            x,
            |x: Vec<f64>| {
                forward_passes += 1;
                let a = a.clone();
                (times(&a, &x), move |dx: Vec<f64>| times(&a, &dx))
            },
            |x: Vec<f64>| {
                reverse_passes += 1;
                let a = a.clone();
                let transposed: Vec<Vec<f64>> =
                    (0..n).map(|j| a.iter().map(|r| r[j]).collect()).collect();
                (times(&a, &x), move |s: Vec<f64>| {
                    // A zero adjoint may come back empty.
                    if s.iter().all(|v| *v == 0.0) {
                        Vec::new()
                    } else {
                        times(&transposed, &s)
                    }
                })
            },
        );
        (j, forward_passes, reverse_passes)
    }

    #[test]
    fn jacobians_take_the_mode_with_fewer_passes() {
        let wide = vec![
            vec![1.0, 2.0, 3.0, 4.0, 5.0],
            vec![0.0, -1.0, 0.0, 2.0, 0.0],
        ];
        assert_eq!(linear(wide.clone()), (wide, 0, 2));
        let square = vec![
            vec![1.0, 2.0, 0.0],
            vec![0.0, 3.0, 1.0],
            vec![4.0, 0.0, 1.0],
        ];
        assert_eq!(linear(square.clone()), (square, 3, 1));
        let small = vec![vec![1.0, 2.0], vec![3.0, 4.0], vec![5.0, 6.0]];
        assert_eq!(linear(small.clone()), (small, 2, 0));
        let one = vec![vec![7.0]];
        assert_eq!(linear(one.clone()), (one, 1, 0));
        let zero_row = vec![vec![0.0; 5]];
        assert_eq!(linear(zero_row.clone()), (zero_row, 0, 1));
    }
}
