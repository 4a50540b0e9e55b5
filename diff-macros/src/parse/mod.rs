//! The checked input of the attribute macros: attributes and signatures.
pub mod aliases;
pub mod attr;
pub mod closure_returns;
pub mod derivative_attr;
pub mod signature;
pub mod types;
pub mod ungroup;
