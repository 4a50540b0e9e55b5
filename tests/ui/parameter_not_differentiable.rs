//! A parameter whose type is not Differentiable, through which a derivative flows (a
//! float field in the result): the error names the type and the ways out. (One from which
//! no derivative flows, an enum only matched on, is left out by itself.)
use diff::prelude::*;

struct Config {
    scale: f64,
}

#[differentiable]
fn scaled(x: f64, cfg: &Config) -> f64 {
    cfg.scale * x
}

fn main() {
    let cfg = Config { scale: 2.0 };
    let _ = gradient!(at: 0.5, of: |x| scaled(x, &cfg));
}
