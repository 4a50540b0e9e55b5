//! A method whose `wrt` leaves out a parameter, called with a value that carries a
//! derivative there: refused at the call, naming the method and the parameter (was a
//! type error in generated code).
use diff::prelude::*;

#[derive(Differentiable, Clone, Debug)]
struct Model {
    a: f64,
}

#[differentiable]
impl Model {
    #[differentiable(wrt = (self))]
    fn eval(&self, x: f64) -> f64 {
        self.a * x * x
    }
}

#[differentiable]
fn loss(m: &Model, x: f64) -> f64 {
    m.eval(x) + x
}

fn main() {
    let m = Model { a: 2.0 };
    let _ = gradient!(at: (&m, 3.0), of: loss);
}
