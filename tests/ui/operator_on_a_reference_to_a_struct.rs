// A float times a borrowed struct: its derivatives cannot be the struct's by value.
use diff::prelude::*;
use std::ops::Mul;
#[derive(Differentiable, Clone, Copy, Debug)]
struct V2 { x: f64, y: f64 }
impl Mul<&V2> for f64 {
    type Output = V2;
    #[differentiable]
    fn mul(self, v: &V2) -> V2 { V2 { x: self * v.x, y: self * v.y } }
}
fn main() { println!("{:?}", 2.0 * &V2 { x: 1.0, y: 2.0 }); }
