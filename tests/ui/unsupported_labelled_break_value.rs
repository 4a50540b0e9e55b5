//! A labelled block left early with `break 'label value`, an active value.
use diff::prelude::*;

#[differentiable]
fn f(x: f64) -> f64 {
    let y = 'found: {
        if x > 1.0 {
            break 'found x * 2.0;
        }
        x * 3.0
    };
    y + x
}

fn main() {}
