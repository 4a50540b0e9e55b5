use diff::prelude::*;

#[differentiable]
fn scaled_slope(x: f64, k: f64) -> f64 {
    // The closure reads `k` and binds `k` again inside: which `k` each use means is not
    // told from the closure's tokens, so it is refused, asking for another name.
    first_derivative!(at: x, of: |t: f64| {
        let y = t * k;
        let k = 2.0;
        y * k
    })
}

fn main() {
    let _ = gradient!(at: (1.0, 2.0), of: scaled_slope);
}
