#![allow(clippy::assign_op_pattern, clippy::ptr_arg)]
use diff::prelude::*;

#[differentiable]
fn sumsq(p: &[f64]) -> f64 {
    p.iter().map(|x| x * x).sum()
}

#[differentiable]
fn dot(a: &[f64], b: &Vec<f64>) -> f64 {
    let mut s = 0.0;
    for (x, y) in a.iter().zip(b.iter()) {
        s += x * y;
    }
    s
}

#[differentiable]
fn weighted(p: &[f64; 3]) -> f64 {
    let [a, b, c] = *p;
    let mut s = a * b * c;
    for (i, &x) in p.iter().enumerate().skip(1) {
        s = s + (i as f64) * x.sin();
    }
    s + p.iter().fold(1.0, |acc, x| acc * x)
}

#[test]
fn chains() {
    let x = vec![1.0, 2.0, -3.0];
    let g = gradient!(at: &x, of: sumsq);
    assert_eq!(g, vec![2.0, 4.0, -6.0]);
    let y = vec![0.5, 0.25, 4.0];
    let (ga, gb) = gradient!(at: (&x, &y), of: dot);
    assert_eq!(ga, y);
    assert_eq!(gb, x);
    let p = [0.3, 0.7, 1.1];
    let g = gradient!(at: &p, of: weighted);
    let prod = 0.3 * 0.7 * 1.1;
    let expect = [
        2.0 * prod / 0.3,
        2.0 * prod / 0.7 + 0.7f64.cos(),
        2.0 * prod / 1.1 + 2.0 * 1.1f64.cos(),
    ];
    for i in 0..3 {
        assert!((g[i] - expect[i]).abs() < 1e-12, "{g:?} {expect:?}");
    }
}
