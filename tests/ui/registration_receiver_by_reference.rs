use diff::prelude::*;

#[derive(Differentiable, Clone, Debug)]
pub struct Parameter {
    stored_x: f64,
}

impl Parameter {
    pub fn x(&self) -> f64 {
        self.stored_x
    }
}

#[derivative(of = Parameter::x)]
fn vjp_x(p: &Parameter) -> (f64, impl FnOnce(f64) -> ParameterTangent) {
    (p.x(), move |dx| ParameterTangent { stored_x: dx })
}

fn main() {}
