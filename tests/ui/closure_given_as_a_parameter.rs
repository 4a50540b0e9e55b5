use diff::prelude::*;
// The closure a caller passes is not differentiated: one error, at its first call.
#[differentiable]
fn integrate(f: impl Fn(f64) -> f64, a: f64, b: f64) -> f64 {
    let n = 100;
    let h = (b - a) / n as f64;
    let mut s = 0.5 * (f(a) + f(b));
    for i in 1..n {
        s += f(a + i as f64 * h);
    }
    s * h
}
fn main() {
    let _ = gradient!(at: (0.0, 1.0), of: |a, b| integrate(|x: f64| x * x, a, b));
}
