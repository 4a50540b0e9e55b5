//! Emission: Rust tokens for the companions of a differentiable function.
pub mod companion;
pub mod differential;
pub mod dual;
pub mod fields;
pub mod names;
pub mod primal;
pub mod pullback;
