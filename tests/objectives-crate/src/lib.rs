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

pub mod dist;

/// The log-density of 2 under a normal distribution built through its module's path.
#[diff::differentiable]
pub fn normal_ln_pdf_at_2(mean: f64, std_dev: f64) -> f64 {
    let n = dist::Normal::new_unchecked(mean, std_dev);
    n.ln_pdf(2.0)
}

/// The log-probability of 3 under a Poisson distribution, through a trait the crate
/// declares in another file without marking it.
#[diff::differentiable]
pub fn poisson_ln_pmf_at_3(lambda: f64) -> f64 {
    use dist::Discrete;
    let p = dist::Poisson { lambda };
    p.ln_pmf(3.0)
}
