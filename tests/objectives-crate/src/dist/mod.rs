//! Distributions laid out as statrs lays them out: each in a private module, re-exported
//! by name, with a trait declared here that does not mark its method, implemented in the
//! distributions' files by a marked `impl` block.
pub use self::normal::Normal;
pub use self::poisson::Poisson;
mod normal;
mod poisson;

/// A discrete distribution's log-probability.
pub trait Discrete {
    /// The log-probability of `x`.
    fn ln_pmf(&self, x: f64) -> f64;
}
