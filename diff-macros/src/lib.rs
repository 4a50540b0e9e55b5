//! Procedural macros of the `diff` crate. Use them through the facade crate `diff`.
//!
//! Pipeline (see docs/ARCHITECTURE.md): parse -> lower to SSA IR -> activity -> check ->
//! JVP/VJP -> emit.
//! This file holds the entry points only.

mod analysis;
mod check;
mod debug;
mod dependencies;
mod derive;
mod differentiable;
mod emit;
mod errors;
mod fused_loops;
mod hygiene;
mod ir;
mod lifting;
mod linear_map;
mod linearization;
mod lower;
mod operator_impls;
mod operators;
mod parse;
mod pipeline;
mod print;
mod registration;
mod requirements;
#[cfg(test)]
mod robustness;
mod source;
mod twin;
mod warnings;

use proc_macro::TokenStream;

/// Synthesizes `Differentiable` for a struct, with a generated `<Name>Tangent` struct.
#[proc_macro_derive(Differentiable, attributes(no_derivative))]
pub fn derive_differentiable(input: TokenStream) -> TokenStream {
    let input = proc_macro2::TokenStream::from(input);
    errors::guarded(&proc_macro2::TokenStream::new(), || {
        match syn::parse2::<syn::DeriveInput>(input) {
            Ok(input) => derive::expand(input),
            Err(e) => e.to_compile_error(),
        }
    })
    .into()
}

/// Makes a function differentiable: emits its reverse- and forward-mode companions
/// beside it and leaves the function itself unchanged.
///
/// `#[differentiable(wrt = (x, y))]` differentiates with respect to those parameters only.
#[proc_macro_attribute]
pub fn differentiable(args: TokenStream, item: TokenStream) -> TokenStream {
    let item = proc_macro2::TokenStream::from(item);
    hygiene::apart(errors::guarded(&item, || {
        differentiable::expand(args.into(), item.clone())
    }))
    .into()
}

/// Registers a derivative for a function: `#[derivative(of = h)]` on a function returning
/// `(value, pullback)` (reverse mode), or `#[derivative(of = h, jvp)]` on one returning
/// `(value, differential)` (forward mode). Every `#[differentiable]` function that calls
/// `h` where the registration is in scope uses it.
#[proc_macro_attribute]
pub fn derivative(args: TokenStream, item: TokenStream) -> TokenStream {
    let item = proc_macro2::TokenStream::from(item);
    errors::guarded(&item, || registration::expand(args.into(), item.clone())).into()
}

macro_rules! operators {
    ($($(#[$doc:meta])* $name:ident => $op:ident;)*) => {$(
        $(#[$doc])*
        #[proc_macro]
        pub fn $name(input: TokenStream) -> TokenStream {
            let none = proc_macro2::TokenStream::new();
            hygiene::apart(errors::guarded(&none, || operators::expand(operators::Op::$op, input.into()))).into()
        }
    )*};
}

operators! {
    /// `gradient!(at: x, of: f)`: the gradient of a scalar-valued `f` at `x` (a tuple
    /// `(dx, dy)` for `at: (x, y)`).
    gradient => Gradient;
    /// `value_with_gradient!(at: x, of: f)`: `(f(x), gradient)`.
    value_with_gradient => ValueWithGradient;
    /// `pullback!(at: x, of: f)`: the pullback closure `dy -> dx`.
    pullback => Pullback;
    /// `value_with_pullback!(at: x, of: f)`: `(f(x), pullback)`.
    value_with_pullback => ValueWithPullback;
    /// `first_derivative!(at: x, of: f)`: forward mode, `f'(x)` for a scalar `x`.
    first_derivative => FirstDerivative;
    /// `value_with_derivative!(at: x, of: f)`: `(f(x), f'(x))`.
    value_with_derivative => ValueWithDerivative;
    /// `differential!(at: x, of: f)`: the differential closure `dx -> dy`.
    differential => Differential;
    /// `value_with_differential!(at: x, of: f)`: `(f(x), differential)`.
    value_with_differential => ValueWithDifferential;
    /// `jacobian!(at: x, of: f)`: the dense Jacobian (`Vec<Vec<_>>`, one row per output,
    /// one column per input coordinate; with `at: (x, y)`, `x`'s coordinates, then `y`'s).
    jacobian => Jacobian;
    /// `hessian!(at: x, of: f)`: the dense Hessian of a scalar-valued `f` (with `at: (x,
    /// y)`, over `x`'s coordinates, then `y`'s).
    hessian => Hessian;
    /// `second_derivative!(at: x, of: f)`: `f''(x)` for a scalar function of one scalar.
    second_derivative => SecondDerivative;
    /// `value_with_second_derivative!(at: x, of: f)`: `(f(x), f'(x), f''(x))`.
    value_with_second_derivative => ValueWithSecondDerivative;
}
