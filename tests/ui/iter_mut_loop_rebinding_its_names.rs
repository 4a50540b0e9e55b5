use diff::prelude::*;

#[differentiable]
fn scale(xs: Vec<f64>, k: f64) -> f64 {
    let mut xs = xs;
    let mut s = 0.0;
    for x in xs.iter_mut() {
        *x *= k;
        // The element's name bound again inside the loop: refused, naming it.
        let x = 2.0;
        s += x;
    }
    s + xs.iter().sum::<f64>()
}

fn main() {
    let _ = gradient!(at: (vec![1.0, 2.0], 3.0), of: scale);
}
