// An associated function with no derivative called on an active value.
use diff::prelude::*;
struct Params { a: f64 }
impl Params {
    fn scale(x: f64, k: f64) -> f64 { x * k }
}
#[differentiable]
fn loss(x: f64) -> f64 {
    let p = Params { a: 2.0 };
    Params::scale(x, p.a) * x
}
fn main() { println!("{}", gradient!(at: 3.0, of: loss)); }
