use diff::prelude::*;

// The trait does not mark `act`: an `impl` for `f64` has nowhere to put its derivatives.
trait Activation {
    fn act(self) -> Self;
}

#[differentiable]
impl Activation for f64 {
    fn act(self) -> f64 {
        self.tanh() * 2.0
    }
}

fn main() {
    let _ = 0.5f64.act();
}
