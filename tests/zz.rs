use diff::prelude::*;
#[differentiable]
fn softplus(x: f64) -> f64 {
    (1.0 + x.exp()).ln()
}
#[differentiable]
fn looped(x: f64, y: f64, n: usize) -> f64 {
    let mut acc = y;
    for i in 0..n {
        if acc > x {
            acc = acc * 0.5 + x.sin();
        } else {
            acc += softplus(x * y) * (i as f64);
        }
    }
    acc * acc
}
#[test]
fn t() {
    let _ = gradient!(at: (1.0, 2.0, 3), of: looped);
}
