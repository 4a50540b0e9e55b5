#![allow(
    clippy::assign_op_pattern,
    clippy::needless_range_loop,
    clippy::useless_vec
)]
use diff::prelude::*;
use num_traits::FromPrimitive;
use std::iter::Sum;

#[differentiable]
fn norm2<T: Float + FromPrimitive + Sum>(p: &[T]) -> T {
    let two = T::from_f64(2.0).unwrap();
    p.iter().map(|x| *x * *x).sum::<T>() / two
}

#[differentiable]
fn zipped(p: &[f64], q: &[f64]) -> f64 {
    p.iter().zip(q.iter()).map(|(a, b)| a * b).sum::<f64>()
        + p.iter().skip(1).fold(0.0, |acc, x| acc + x.sin())
}

#[derive(Differentiable, Clone, Debug)]
struct Particle {
    pos: f64,
    vel: f64,
}

impl Particle {
    #[differentiable]
    fn energy(&self, k: f64) -> f64 {
        0.5 * k * self.pos * self.pos + 0.5 * self.vel * self.vel
    }
}

#[differentiable]
fn total(p: &Particle, k: f64) -> f64 {
    p.energy(k) * 2.0
}

#[test]
fn api_patterns() {
    let p = vec![1.0, -2.0, 3.0];
    assert_eq!(gradient!(at: &p, of: norm2), p);
    let pf: Vec<f32> = vec![1.0, 2.0];
    assert_eq!(gradient!(at: &pf, of: norm2::<f32>), pf);
    let q = vec![0.5, 0.25, 2.0];
    let (gp, gq) = gradient!(at: (&p, &q), of: zipped);
    assert_eq!(gq, p);
    assert_eq!(gp, vec![0.5, 0.25 + (-2.0f64).cos(), 2.0 + 3.0f64.cos()]);
    let part = Particle { pos: 2.0, vel: 3.0 };
    let (gpart, gk) = gradient!(at: (&part, 1.5), of: total);
    assert_eq!(gpart.pos, 2.0 * 1.5 * 2.0);
    assert_eq!(gpart.vel, 2.0 * 3.0);
    assert_eq!(gk, 2.0 * 0.5 * 4.0);
    let (t, k) = gradient!(at: (&part, 1.5), of: Particle::energy);
    assert_eq!((t.pos, t.vel, k), (3.0, 3.0, 2.0));
    let (v, pb) = value_with_pullback!(at: part.clone(), of: |p: Particle| p.pos * p.vel);
    assert_eq!(v, 6.0);
    let t: ParticleTangent = pb(1.0);
    assert_eq!((t.pos, t.vel), (3.0, 2.0));
}

#[differentiable]
fn with_inactive_mutation(x: f64, n: usize) -> f64 {
    let mut weights = Vec::new();
    for i in 0..n {
        weights.push(i as f64 + 1.0);
    }
    weights.reverse();
    let mut acc = 0.0;
    for i in 0..n {
        acc += weights[i] * x.powi(i as i32 + 1);
    }
    acc
}

#[test]
fn inactive_mutation_by_methods() {
    let g = gradient!(at: (2.0, 3), of: with_inactive_mutation);
    // 3x + 2x^2 + x^3 -> 3 + 4x + 3x^2
    assert_eq!(g, 3.0 + 8.0 + 12.0);
}

#[differentiable]
fn mix<T: Float>(p: &[T]) -> T {
    p[0] * p[0] * p[1] + (p[0] * p[1]).sin()
}

#[test]
fn hessians() {
    let (x, y) = (0.7f64, -1.3f64);
    let h = hessian!(at: &vec![x, y], of: mix);
    let c = (x * y).cos();
    let s = (x * y).sin();
    let expect = [
        [2.0 * y - y * y * s, 2.0 * x + c - x * y * s],
        [2.0 * x + c - x * y * s, -x * x * s],
    ];
    for i in 0..2 {
        for j in 0..2 {
            assert!((h[i][j] - expect[i][j]).abs() < 1e-12, "{h:?}");
        }
    }
    let h = hessian!(at: vec![x, y], of: |p| p[0] * p[0] * p[1] + (p[0] * p[1]).sin());
    assert!((h[0][1] - expect[0][1]).abs() < 1e-12);
    let h1 = hessian!(at: 0.5, of: |t| t.powi(3));
    let h2 = hessian!(at: vec![1.0, 2.0], of: |p| p[0] * p[1] * p[1]);
    assert_eq!(h2, vec![vec![0.0, 4.0], vec![4.0, 2.0]]);
    assert!((h1[0][0] - 3.0).abs() < 1e-12);
}

#[differentiable]
fn stop_half<T: Float>(p: &[T]) -> T {
    p[0] * no_derivative(p[0])
}

#[test]
fn hessian_respects_no_derivative() {
    // The gradient of x * sg(x) is sg(x), a constant for AD, so the Hessian is 0 (JAX's
    // stop_gradient gives the same).
    let h = hessian!(at: &vec![3.0f64], of: stop_half);
    assert_eq!(h, vec![vec![0.0]]);
    assert_eq!(gradient!(at: &vec![3.0], of: stop_half), vec![3.0]);
}

#[derive(Differentiable, Clone, Debug)]
pub struct GenP<T> {
    x: T,
    y: T,
}
impl<T: Float> GenP<T> {
    #[differentiable]
    fn norm2(&self) -> T {
        self.x * self.x + self.y * self.y
    }
}
/// A method of a generic `impl<T: Float>`: the impl's `T` is a scalar.
#[test]
fn generic_impl_method() {
    let p = GenP { x: 3.0, y: 4.0 };
    let g = gradient!(at: &p, of: GenP::norm2);
    assert_eq!((g.x, g.y), (6.0, 8.0));
}
