#![allow(clippy::assign_op_pattern)]
use diff::prelude::*;

#[differentiable]
fn step(x: &mut f64, k: f64) {
    *x = *x * k + k.sin();
}

#[differentiable]
fn scale_and_report(x: &mut f64, k: f64) -> f64 {
    let before = *x;
    *x *= k;
    before * k
}

#[differentiable]
fn run(x0: f64, k: f64) -> f64 {
    let mut x = x0;
    for _ in 0..3 {
        step(&mut x, k);
    }
    let r = scale_and_report(&mut x, 2.0);
    x + r
}

fn fd(f: impl Fn(f64, f64) -> f64, x: f64, k: f64) -> (f64, f64) {
    let h = 1e-6;
    (
        (f(x + h, k) - f(x - h, k)) / (2.0 * h),
        (f(x, k + h) - f(x, k - h)) / (2.0 * h),
    )
}

#[test]
fn mutable_parameters() {
    let mut y = 1.5;
    step(&mut y, 2.0);
    assert_eq!(y, 3.0 + 2f64.sin());
    for (x, k) in [(0.3, 0.7), (1.2, -0.4)] {
        let (gx, gk) = gradient!(at: (x, k), of: run);
        let (fx, fk) = fd(run, x, k);
        assert!(
            (gx - fx).abs() < 1e-6 && (gk - fk).abs() < 1e-6,
            "{gx} {fx} {gk} {fk}"
        );
        let dx = differential!(at: (x, k), of: run)((1.0, 0.0));
        let dk = differential!(at: (x, k), of: run)((0.0, 1.0));
        assert!((dx - gx).abs() < 1e-12 && (dk - gk).abs() < 1e-12);
    }
}
