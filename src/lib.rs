//! Source-level automatic differentiation for Rust, done by procedural macros.
//!
//! Write `use diff::prelude::*;`, mark functions `#[differentiable]`, and ask for their
//! derivatives with the operators (`gradient!`, `pullback!`, `first_derivative!`, ...).
//! The macros generate reverse-mode (VJP) and forward-mode (JVP) companions beside each
//! function at compile time; the original function is left as it was.
//!
//! This crate only re-exports:
//! - from `diff-core`, the traits: [`Differentiable`] (a type with a tangent space),
//!   [`VectorSpace`] (tangent algebra), [`Real`] (scalars), [`InnerProduct`], and the
//!   function [`no_derivative`], which cuts a derivative;
//! - from `diff-macros`, the macros, among them `#[derive(Differentiable)]`, which
//!   synthesizes a tangent struct for a struct;
//! - from `diff-std`, the derivatives of the float operations (`sin`, `powf`, `hypot`, ...)
//!   for every [`num_traits::Float`], used by generated code.
//!
//! ```
//! use diff::prelude::*;
//!
//! // Tangents of a `Vec` are `Vec`s; the empty `Vec` is the zero of any length.
//! let mut weights = vec![1.0, 2.0];
//! let step = weights.zero_tangent().add(vec![0.5, -0.5]).scale(0.1);
//! weights.move_by(&step);
//! assert_eq!(weights, vec![1.05, 1.95]);
//! assert_eq!(no_derivative(3.0), 3.0);
//! ```
#![warn(missing_docs)]

#[doc(hidden)]
pub use diff_core::__tuple_field_body;
pub use diff_core::{no_derivative, Differentiable, InnerProduct, NoTangent, Real, VectorSpace};
pub use diff_macros::*;

/// Everything a user of `diff` needs: `use diff::prelude::*;`.
pub mod prelude {
    // The traits from diff-core, the derive macro `Differentiable` with the other macros.
    pub use diff_core::{no_derivative, Differentiable, InnerProduct, Real, VectorSpace};
    pub use diff_macros::*;
    // The bounds numeric code generic over its floats writes (`T: Float +
    // FromPrimitive`), for a crate that depends on `diff` only.
    pub use num_traits::{Float, FromPrimitive};
}

/// Runtime items used by generated code, by absolute path. Not a public API.
#[doc(hidden)]
pub mod __private {
    pub use diff_core::__private::*;
    pub use num_traits;

    /// The derivative rules of the float operations, imported anonymously:
    /// `use ::diff::__private::rules::*;` brings their methods into scope.
    pub mod rules {
        pub use diff_core::__private::ArrayRules as _;
        pub use diff_core::__private::ArrayToVecRules as _;
        pub use diff_core::__private::CloneRules as _;
        pub use diff_core::__private::ConcatRules as _;
        pub use diff_core::__private::CopyFromSliceRule as _;
        pub use diff_core::__private::CutDerivative as _;
        pub use diff_core::__private::CutNothing as _;
        pub use diff_core::__private::DrainToVec as _;
        pub use diff_core::__private::FieldTangent as _;
        pub use diff_core::__private::FromRules as _;
        pub use diff_core::__private::IntoRules as _;
        pub use diff_core::__private::MarkerOf as _;
        pub use diff_core::__private::OptionRules as _;
        pub use diff_core::__private::ReverseRule as _;
        pub use diff_core::__private::RotateLeftRule as _;
        pub use diff_core::__private::RotateRightRule as _;
        pub use diff_core::__private::SortOrder as _;
        pub use diff_core::__private::SwapRule as _;
        pub use diff_core::__private::ToVecRules as _;
        pub use diff_core::__private::VecRules as _;
        pub use diff_core::Differentiable as _;
        pub use diff_std::prelude::*;
    }
}
