//! Core traits of the `diff` automatic-differentiation crate.
//!
//! - [`VectorSpace`]: the algebra of tangent vectors (zero, addition, scaling).
//! - [`Differentiable`]: a type with a tangent space, and a way to step along it.
//! - [`Real`]: the scalars (`f32`, `f64`, and any later dual number).
//! - [`InnerProduct`]: the pairing of two tangents, used to derive one mode from the other.
//! - [`no_derivative`]: the identity, which the macros treat as cutting the derivative.
//!
//! Implementations are provided for `f32`, `f64`, integers and `bool` (tangent `()`), `()`, tuples of up to six elements,
//! arrays `[T; N]`, `Vec<T>`, slices `[T]` and `Option<T>`.
//!
//! Users depend on the facade crate `diff`, which re-exports everything here.
#![warn(missing_docs)]

mod collections;
mod conversions;
mod dense;
mod differentiable;
mod discrete;
mod dual;
mod dual_float;
mod fields;
#[doc(hidden)]
pub mod float_rules;
mod inner_product;
mod lift;
mod option;
#[doc(hidden)]
pub mod partial;
mod real;
mod requirements;
mod support;
mod tuples;
mod vec_rules;
mod vector_space;

#[doc(hidden)]
pub mod __private;

pub use differentiable::Differentiable;
pub use discrete::NoTangent;
pub use dual::Dual;
pub use inner_product::{DotIn, InnerProduct};
pub use real::{no_derivative, Real};
pub use vector_space::VectorSpace;
