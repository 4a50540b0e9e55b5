//! Differentiable functions as a published crate lays them out, for tests/another_crate.rs:
//! each in a private module of its own name, glob re-exported (argmin_testfunctions'
//! layout), and one re-exported by name from a public module.
mod rosenbrock;
mod sphere;
pub use rosenbrock::*;
pub use sphere::*;

pub mod loss;
pub use loss::huber;

pub mod objective;
pub use objective::{Objective, Weighted};

pub mod special;

/// A function of the crate's root calling one re-exported by name out of a private module
/// of its own name.
#[diff::differentiable]
pub fn softplus_squared(x: f64) -> f64 {
    let s = special::softplus(x);
    s * s
}
