#![allow(clippy::assign_op_pattern)]
use diff::prelude::*;

#[differentiable]
fn polar(r: f64, t: f64) -> (f64, f64) {
    (r * t.cos(), r * t.sin())
}

#[differentiable]
fn owned(p: Vec<f64>) -> f64 {
    let y = p[0] * p[1];
    println!("y = {y}, p0 = {}", p[0]);
    y
}

#[differentiable]
fn lift(p: &[f64]) -> Vec<f64> {
    vec![p[0] * p[1], p[1].sin(), 2.0 * p[0]]
}

#[differentiable]
fn arr(p: [f64; 2]) -> [f64; 2] {
    [p[0] * p[1], (p[0] as f32 * 2.0f32) as f64]
}

#[test]
fn tuples_vecs_arrays_casts() {
    let (v, pb) = value_with_pullback!(at: (2.0, 0.5), of: polar);
    assert_eq!(v, polar(2.0, 0.5));
    let (dr, dt) = pb((1.0, 0.0));
    assert!((dr - 0.5f64.cos()).abs() < 1e-15 && (dt + 2.0 * 0.5f64.sin()).abs() < 1e-15);
    assert_eq!(gradient!(at: vec![3.0, 4.0], of: owned), vec![4.0, 3.0]);
    let j = jacobian!(at: vec![0.5, 2.0], of: |p| lift(&p));
    let expect = vec![vec![2.0, 0.5], vec![0.0, 2.0f64.cos()], vec![2.0, 0.0]];
    assert_eq!(j, expect);
    let (_, pb) = value_with_pullback!(at: [1.5, 3.0], of: arr);
    assert_eq!(pb([1.0, 1.0]), [3.0 + 2.0, 1.5]);
    let (_, df) = value_with_differential!(at: [1.5, 3.0], of: arr);
    assert_eq!(df([1.0, 0.0]), [3.0, 2.0]);
}
