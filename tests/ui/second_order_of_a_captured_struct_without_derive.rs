//! Second order through a method of a captured struct generic over its floats that does
//! not derive Differentiable: it cannot be taken at dual numbers, and the error says to
//! derive it. (First order works as it is.)
use diff::prelude::*;
use num_traits::Float;

#[derive(Clone, Debug)]
struct Poly<T> {
    c: Vec<T>,
}

impl<T: Float> Poly<T> {
    #[differentiable]
    fn eval(&self, x: T) -> T {
        let mut acc = T::zero();
        for &ci in self.c.iter().rev() {
            acc = acc * x + ci;
        }
        acc
    }
}

fn main() {
    let p = Poly { c: vec![1.0, -3.0, 0.5] };
    let _ = first_derivative!(at: 0.7, of: |x| p.eval(x));
    let _ = second_derivative!(at: 0.7, of: |x| p.eval(x));
}
