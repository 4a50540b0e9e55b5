//! A parameter whose type is not Differentiable, through which a derivative flows (a
//! float field in the result), when the macro cannot read the type's definition (made by
//! a `macro_rules!` here, or from another crate): the error names the type and the ways
//! out. (A type defined in the crate's source without `Differentiable`, or one from
//! which no derivative flows, is left out by itself.)
use diff::prelude::*;

macro_rules! config {
    () => {
        struct Config {
            scale: f64,
        }
    };
}
config!();

#[differentiable]
fn scaled(x: f64, cfg: &Config) -> f64 {
    cfg.scale * x
}

fn main() {
    let cfg = Config { scale: 2.0 };
    let _ = gradient!(at: 0.5, of: |x| scaled(x, &cfg));
}
