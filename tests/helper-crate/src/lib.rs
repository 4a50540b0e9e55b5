//! Plain functions of a crate that knows nothing of `diff`: the tests register their
//! derivatives retroactively.

/// `x^2 + 1`.
pub fn bump(x: f64) -> f64 {
    x * x + 1.0
}

/// `x * y`.
pub fn mul(x: f64, y: f64) -> f64 {
    x * y
}

/// Functions in a module of this crate.
pub mod nested {
    /// `sin x`.
    pub fn wave(x: f64) -> f64 {
        x.sin()
    }
}
