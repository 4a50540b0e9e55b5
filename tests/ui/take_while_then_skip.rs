// A `take_while` followed by an adapter that renumbers the items is refused at the
// chain, naming both.
use diff::prelude::*;

#[differentiable]
fn rest_of_the_run(x: &[f64]) -> f64 {
    x.iter().take_while(|v| **v > 0.0).skip(1).map(|v| v * v).sum::<f64>()
}

fn main() {
    let _ = rest_of_the_run(&[1.0, 2.0]);
}
