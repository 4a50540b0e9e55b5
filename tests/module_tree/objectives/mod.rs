// A private module named like its function, glob re-exported (argmin's layout).
mod sphere;
pub use sphere::*;
