use diff::prelude::*;

#[differentiable]
fn f(x: f64, y: f64) -> f64 {
    let t = x * y + x.sin() / (1.0 + y * y);
    let mut s = t.exp();
    s += t * 3.0;
    -s.powi(2) + y.sqrt()
}

#[test]
fn issue_snippet() {
    let (dx, dy) = gradient!(at: (1.0, 2.0), of: f);
    println!("{dx} {dy}");
    let d = gradient!(at: 4.0_f64, of: |x| x * x * x);
    assert_eq!(d, 48.0);
}
