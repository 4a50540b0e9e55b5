//! What a function's derivatives need of the functions it calls, checked at compile time
//! where an operator uses them (docs/ARCHITECTURE.md, "Requirements").
//!
//! A mode can be missing deep in a call chain: a callee has a registered reverse-mode
//! derivative and nothing gives its forward mode, or one registered for `f64` only gives
//! no second order.
//! Every caller's companions still compile (they call a stand-in that never runs), and
//! the operator that would run the missing mode checks the requirement of the function
//! it differentiates, which is made of its callees' requirements, so that the error is
//! at the operator, names the callee, and says what to add.

/// Implemented by the carrier of a differentiable free function (and of a registered
/// derivative): what each mode of its derivatives needs, as a type that [`Holds`] when
/// the mode is available. `()` needs nothing, a pair needs both, a callee's requirement
/// is `<callee as Derivatives>::Reverse`, and a missing mode is a type whose `Holds`
/// implementation requires a trait with no implementation, whose message says why.
pub trait Derivatives {
    /// What reverse mode (`gradient!`, `pullback!`, ..) needs.
    type Reverse;
    /// What forward mode (`first_derivative!`, `differential!`, `jacobian!`, ..) needs.
    type Forward;
    /// What second order (`hessian!`, `second_derivative!`, nested operators) needs.
    type Second;
}

/// `&'a (): Holds<N>` when requirement `N` is met. (Implemented for `&'a ()`, so that a
/// missing mode's bound names a lifetime: it is an error only where it is checked, never
/// where it is written.)
pub trait Holds<N> {}

impl Holds<()> for &() {}

impl<'a, A, B> Holds<(A, B)> for &'a () where &'a (): Holds<A> + Holds<B> {}

/// Checks at compile time that requirement `N` is met: an operator calls it with the
/// requirement of the function it differentiates, for the mode it runs.
#[inline(always)]
pub fn requires<N>()
where
    for<'a> &'a (): Holds<N>,
{
}
