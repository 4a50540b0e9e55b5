//! The functions whose `#[differentiable]` expansion run.sh times (see README.md):
//! `nested_loops` (four nested loops over a slice) and `long_function` (300 lines of
//! straight-line and branchy arithmetic). Feature `ad` puts the attribute on them; without
//! it they are the same plain functions.

#[cfg(feature = "long")]
mod long_function;
#[cfg(feature = "nested")]
mod nested_loops;

#[cfg(feature = "long")]
pub use long_function::long_function;
#[cfg(feature = "nested")]
pub use nested_loops::nested_loops;
