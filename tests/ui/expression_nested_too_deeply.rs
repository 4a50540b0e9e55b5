use diff::prelude::*;

// 260 calls deep: past what the lowering descends into (it would run out of stack).
#[differentiable]
fn deep(x: f64) -> f64 {
    x.sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin().sin()
}

fn main() {
    let _ = gradient!(at: 1.0, of: deep);
}
