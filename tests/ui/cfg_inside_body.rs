//! `#[cfg(..)]` on a statement of a differentiable body is refused at the attribute: the
//! macro runs before rustc decides what to keep, so the derivatives could follow code the
//! function does not run. The function itself still compiles (no cascade at its caller).
use diff::prelude::*;

#[differentiable]
fn scaled(x: f64) -> f64 {
    let mut y = x * 2.0;
    #[cfg(debug_assertions)]
    {
        y = y * 100.0;
    }
    y
}

fn main() {
    let _ = scaled(1.0);
    let _ = gradient!(at: 1.0, of: scaled);
}
