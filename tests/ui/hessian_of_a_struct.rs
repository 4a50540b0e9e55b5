// hessian! takes its point as a scalar, a Vec or an array: a struct is refused with
// what to write instead.
use diff::prelude::*;

#[derive(Differentiable, Clone, Debug)]
struct Model {
    w: f64,
    b: f64,
}

#[differentiable]
fn loss(m: &Model) -> f64 {
    (m.w * 2.0 + m.b).powi(2)
}

fn main() {
    let m = Model { w: 0.5, b: 0.1 };
    let _ = hessian!(at: m, of: |m: Model| loss(&m));
}
