//! Derivatives of the float operations of std and [`num_traits::Float`], for the `diff`
//! automatic-differentiation crate.
//!
//! Every rule is a method of one of two extension traits with a blanket impl for every
//! `T: Float`: [`FloatVjp`] (reverse mode, `x.__vjp_sin()` returns `(value, pullback)`) and
//! [`FloatJvp`] (forward mode, `x.__jvp_sin()` returns `(value, differential)`). Both are
//! generated from the rule table of diff-core (`diff_core::float_rules!`), which lists,
//! for each operation, the numbers its derivative needs and its partial derivatives; the
//! dual number `diff_core::Dual` is built from the same table.
//!
//! ```
//! use diff_std::prelude::*;
//!
//! let (y, pullback) = 0.5_f64.__vjp_sin();
//! assert_eq!(y, 0.5_f64.sin());
//! assert_eq!(pullback(2.0), (Some(2.0 * 0.5_f64.cos()),));
//!
//! let (y, differential) = 2.0_f64.__jvp_powi(3);
//! assert_eq!(y, 8.0);
//! assert_eq!(differential((Some(1.0), ())), Some(12.0));
//! ```
//!
//! Generated code reaches them through the facade: `use ::diff::__private::rules::*;`.
#![warn(missing_docs)]

#[macro_use]
mod table;
mod rules;

pub use rules::{FloatJvp, FloatVjp};

/// The rule traits, imported anonymously: `use diff_std::prelude::*;` brings their
/// methods into scope without bringing any name.
pub mod prelude {
    pub use crate::rules::FloatJvp as _;
    pub use crate::rules::FloatVjp as _;
}

#[cfg(test)]
mod tests;
