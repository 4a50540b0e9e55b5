// An operator on a struct whose implementation is not #[differentiable].
use diff::prelude::*;
use std::ops::Sub;

#[derive(Differentiable, Clone, Copy, Debug)]
struct V2 {
    x: f64,
    y: f64,
}

impl Sub for V2 {
    type Output = V2;
    fn sub(self, o: V2) -> V2 {
        V2 {
            x: self.x - o.x,
            y: self.y - o.y,
        }
    }
}

#[differentiable]
fn gap(p: V2, q: V2) -> f64 {
    let d = p - q;
    d.x * d.x + d.y * d.y
}

fn main() {
    let p = V2 { x: 1.0, y: 2.0 };
    let _ = gradient!(at: (p, p), of: gap);
}
