//! Helpers used by code that the `diff` macros generate. Not a public API.

use crate::{Differentiable, VectorSpace};

pub use crate::collections::*;
pub use crate::conversions::*;
pub use crate::dense::*;
pub use crate::differentiable::{
    float_arithmetic, left_out_of_the_derivative, FloatArithmetic, LeftOutOfTheDerivative,
};
pub use crate::dual::Dual;
pub use crate::fields::{zero_sized_place, ConstantField, FieldTangent, TupleField};
pub use crate::lift::{CastSource, DualOf, Lift, LiftElement, LiftGeneric, LiftTo, Plain, Same};
pub use crate::option::{__jvp_some, __vjp_some, some, OptionRules};
/// The partials of the arithmetic operators, for both modes.
pub use crate::partial;
pub use crate::requirements::{requires, Derivatives, Holds};
pub use crate::support::*;
pub use crate::vec_rules::*;
/// The float methods of `Dual`, in scope in a dual companion's body.
pub use num_traits::Float;

/// Adds `v` into an adjoint slot. `None` means zero.
#[inline(always)]
pub fn accumulate<T: VectorSpace>(slot: &mut Option<T>, v: T) {
    *slot = Some(match slot.take() {
        Some(a) => a.add(v),
        None => v,
    });
}

/// Adds an optional `v` into an adjoint slot. `None` means zero on both sides.
#[inline(always)]
pub fn accumulate_opt<T: VectorSpace>(slot: &mut Option<T>, v: Option<T>) {
    if let Some(v) = v {
        accumulate(slot, v);
    }
}

/// The adjoints a reduction loop's pullback gave for the seed 1, run in its forward pass
/// (diff-macros' `fused_loops.rs`), for the seed `by`: scaled, unless it is 1.
#[inline]
pub fn scaled_slot<T: VectorSpace, S: num_traits::ToPrimitive>(
    slot: Option<T>,
    by: &S,
) -> Option<T> {
    // (A float converts; NaN otherwise, never a silent zero.)
    let by = by.to_f64().unwrap_or(f64::NAN);
    if by == 1.0 {
        slot
    } else {
        slot.map(|v| v.scale(by))
    }
}

/// Adds a callee's pullback slot into an argument's adjoint slot: an optional tangent
/// ([`accumulate_opt`]), or the adjoint of a part of the argument ([`AddTo`]).
#[inline(always)]
pub fn accumulate_slot<T, V: AddTo<T>>(slot: &mut Option<T>, v: V) {
    v.add_to(slot);
}

/// An adjoint that adds itself into a slot: an optional tangent of the slot's type, or
/// the adjoint of a sub-slice ([`SubSliceAdjoint`](crate::vec_rules::SubSliceAdjoint)),
/// added to its elements only.
#[diagnostic::on_unimplemented(
    message = "a function called here gives no derivative for an argument whose derivative is asked",
    label = "the callee takes an argument without a derivative (its slot is `{Self}`)",
    note = "a parameter whose type is not Differentiable is left out of the derivative: a generic function needs `Differentiable` among its type parameter's bounds (`M: Model + Differentiable`) to differentiate with respect to it"
)]
pub trait AddTo<T> {
    /// Adds `self` into `slot` (`None` is zero).
    fn add_to(self, slot: &mut Option<T>);
}

impl<T: VectorSpace> AddTo<T> for Option<T> {
    #[inline(always)]
    fn add_to(self, slot: &mut Option<T>) {
        accumulate_opt(slot, self);
    }
}

/// Sum of two optional tangents (`None` = zero).
#[inline(always)]
pub fn tadd<T: VectorSpace>(a: Option<T>, b: Option<T>) -> Option<T> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.add(b)),
        (a, None) => a,
        (None, b) => b,
    }
}

/// The unit seed of a scalar result, or the unit tangent of a scalar input.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a scalar: `gradient!` and `value_with_gradient!` need a function whose result is an `f64` or `f32`, and `first_derivative!` one whose input and result are",
    label = "this is a `{Self}`, not an `f64` or `f32`",
    note = "for a result that is a `Vec`, an array or a struct, take `jacobian!(at: x, of: f)`, or `pullback!(at: x, of: f)` and apply the pullback to a direction"
)]
pub trait Unit {
    /// One, of the type of `self`.
    fn unit(&self) -> Self;
}

impl<T: num_traits::Float> Unit for T {
    #[inline(always)]
    fn unit(&self) -> T {
        T::one()
    }
}

/// A zero tangent shaped like `x`.
#[inline(always)]
pub fn zero_of<T: Differentiable + ?Sized>(x: &T) -> T::TangentVector {
    x.zero_tangent()
}

/// Implemented by every type: a registration names it, under the name of the mode it
/// provides (`__diff_has_jvp_h`), as what that mode's requirement needs
/// ([`Derivatives`]). A mode that neither a registration provides nor follows from one
/// is instead named by a trait with no implementation, whose message asks for the
/// missing registration, at the operator that needs it.
pub trait Available {}

impl<T: ?Sized> Available for T {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accumulate_slots() {
        let mut slot = None;
        accumulate(&mut slot, 1.5);
        assert_eq!(slot, Some(1.5));
        accumulate(&mut slot, 2.0);
        assert_eq!(slot, Some(3.5));
        accumulate_opt(&mut slot, None);
        assert_eq!(slot, Some(3.5));
        accumulate_opt(&mut slot, Some(0.5));
        assert_eq!(slot, Some(4.0));
        let mut empty: Option<f32> = None;
        accumulate_opt(&mut empty, None);
        assert_eq!(empty, None);
        let mut v: Option<Vec<f64>> = None;
        accumulate(&mut v, vec![1.0, 2.0]);
        accumulate(&mut v, Vec::zero_vector());
        assert_eq!(v, Some(vec![1.0, 2.0]));
    }

    #[test]
    fn tangent_algebra() {
        assert_eq!(tadd(Some(1.0), Some(2.0)), Some(3.0));
        assert_eq!(tadd(Some(1.0), None), Some(1.0));
        assert_eq!(tadd(None, Some(2.0)), Some(2.0));
        assert_eq!(tadd::<f64>(None, None), None);
    }

    #[test]
    fn unit_and_zero() {
        assert_eq!(3.0f64.unit(), 1.0);
        assert_eq!(3.0f32.unit(), 1.0);
        assert_eq!(zero_of(&2.0), 0.0);
        assert_eq!(zero_of(&[1.0, 2.0][..]), vec![0.0, 0.0]);
        assert_eq!(zero_of(&(1.0, [2.0f32])), (0.0, [0.0]));
    }
}
