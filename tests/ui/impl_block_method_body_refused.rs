//! A block marked as a whole whose one function the macro cannot differentiate: the
//! reason, at the construct, once (was "none here does" at the block, and errors naming
//! generated methods at each caller).
use diff::prelude::*;

#[derive(Differentiable, Clone, Copy, Debug)]
struct S {
    a: f64,
    b: f64,
}

#[differentiable]
impl S {
    fn get(&self, k: f64) -> f64 {
        let running: f64 = [self.a, k]
            .iter()
            .scan(0.0, |s, v| {
                *s += v;
                Some(*s)
            })
            .sum();
        running * self.b
    }
}

#[differentiable]
fn f(x: f64) -> f64 {
    let s = S { a: x, b: 2.0 * x };
    s.get(x)
}

fn main() {
    let _ = gradient!(at: 1.0, of: f);
}
