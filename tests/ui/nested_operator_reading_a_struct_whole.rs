use diff::prelude::*;

#[derive(Differentiable, Clone, Debug)]
struct Pot {
    k: f64,
}

impl Pot {
    #[differentiable]
    fn energy(&self, x: f64) -> f64 {
        0.5 * self.k * x * x
    }
}

#[differentiable]
fn force_squared(m: &Pot, x: f64) -> f64 {
    // The closure reads `m` whole (a method of it): refused at the closure, asking for
    // its fields.
    let f = first_derivative!(at: x, of: |t: f64| m.energy(t));
    f * f
}

fn main() {
    let _ = gradient!(at: &Pot { k: 2.0 }, of: |p: &Pot| force_squared(p, 3.0));
}
