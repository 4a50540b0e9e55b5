//! An operand the macro cannot see is a struct with operators of its own (a tuple's
//! field): its arithmetic would be differentiated by the rules of floats, so the program
//! does not compile, at the operator, saying how to name the operand's type.
use diff::prelude::*;
use std::ops::Mul;

#[derive(Differentiable, Clone, Copy, Debug)]
pub struct V2 {
    pub x: f64,
    pub y: f64,
}

impl Mul<f64> for V2 {
    type Output = V2;
    #[differentiable]
    fn mul(self, k: f64) -> V2 {
        V2 {
            x: self.x * k,
            y: self.y + k,
        }
    }
}

#[differentiable]
fn f(k: f64) -> f64 {
    let pair = (V2 { x: k, y: 1.0 }, 2.0);
    let q = pair.0 * pair.1;
    q.x * q.y
}

fn main() {}
