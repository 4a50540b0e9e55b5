// A method with no derivative called on an active value: one error, at the call.
use diff::prelude::*;

struct Params { a: f64, b: f64 }

impl Params {
    fn eval(&self, x: f64) -> f64 { self.a * x + self.b }
}

#[differentiable]
fn loss(p: &Params, x: f64) -> f64 {
    let y = p.eval(x);
    y * y
}

fn main() {
    let p = Params { a: 1.0, b: 2.0 };
    let g = gradient!(at: 3.0, of: |x| loss(&p, x));
    println!("{g}");
}
