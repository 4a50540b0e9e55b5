// `2.0 * p` whose implementation (`impl Mul<V2> for f64`) is not #[differentiable].
use diff::prelude::*;
use std::ops::Mul;

#[derive(Differentiable, Clone, Copy, Debug)]
struct V2 {
    x: f64,
    y: f64,
}

impl Mul<V2> for f64 {
    type Output = V2;
    fn mul(self, v: V2) -> V2 {
        V2 {
            x: self * v.x,
            y: self * v.y,
        }
    }
}

#[differentiable]
fn doubled_x(p: V2) -> f64 {
    let d = 2.0 * p;
    d.x
}

fn main() {
    let _ = gradient!(at: V2 { x: 1.0, y: 2.0 }, of: doubled_x);
}
