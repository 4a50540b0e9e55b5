//! Special functions laid out as libm lays them out: each in a private module of its own
//! name, re-exported by name (`mod erf; pub use self::erf::erf;`).
mod erf;
mod softplus;
pub use self::erf::erf;
pub use self::softplus::softplus;

use diff::prelude::*;

/// A function of this module calling the re-exported ones by name.
#[differentiable]
pub fn erf_softplus(x: f64) -> f64 {
    erf(x) * softplus(x)
}
