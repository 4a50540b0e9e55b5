//! Parameters taken by reference, as numeric code takes them (API.md): `&[T]`, `&[T; N]`,
//! `&Vec<T>` and `&Struct` are differentiable inputs whose tangent is the referent's; and
//! what such bodies use: `let [a, b, c] = *p;`, iterator chains with closure literals
//! (`map`, `sum`, `zip`, `skip`, `enumerate`, `fold`), generic bounds beyond `Float` and
//! constants such as `T::from_f64(2.0).unwrap()`. Gradients against closed forms.
#![allow(
    clippy::assign_op_pattern,
    clippy::needless_range_loop,
    clippy::ptr_arg,
    clippy::useless_vec
)]
mod common;
use common::assert_vec_close;
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
fn slices_structs_and_generic_bounds() {
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
fn iterator_chains_over_slices_vecs_and_arrays() {
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
    assert_vec_close(&g, &expect, 1e-12, "weighted");
}

/// A linear model whose `predict` takes a slice, and a data set of `(features, label)`.
#[derive(Differentiable, Clone, Debug)]
struct Linear {
    w: Vec<f64>,
    b: f64,
}

impl Linear {
    #[differentiable]
    fn predict(&self, x: &[f64]) -> f64 {
        self.w.iter().zip(x).map(|(w, x)| w * x).sum::<f64>() + self.b
    }
}

/// `for (x, y) in data` binds `x: &Vec<f64>` and `y: &f64`, as Rust does: `x` is passed
/// on as a slice, `y` used in arithmetic through the reference.
#[differentiable]
fn cross_entropy(m: &Linear, data: &[(Vec<f64>, f64)]) -> f64 {
    let mut total = 0.0;
    for (x, y) in data {
        let p = 1.0 / (1.0 + (-m.predict(x)).exp());
        total += -(y * p.ln() + (1.0 - y) * (1.0 - p).ln());
    }
    let (first, label) = &data[0];
    total / data.len() as f64 + 0.01 * m.predict(first) * label
}

#[test]
fn tuple_patterns_on_references_bind_references() {
    let m = Linear {
        w: vec![0.5, -0.3],
        b: 0.1,
    };
    let data = vec![(vec![1.0, 2.0], 1.0), (vec![-0.5, 0.3], 0.0)];
    let (v, g) = value_with_gradient!(at: &m, of: |m: &Linear| cross_entropy(m, &data));
    assert_eq!(v, cross_entropy(&m, &data));
    // d/dw = mean of (p - y) x, d/db = mean of (p - y); plus the 0.01 w . x0 term.
    let (mut gw, mut gb) = (vec![0.0, 0.0], 0.0);
    for (x, y) in &data {
        let p = 1.0 / (1.0 + (-m.predict(x)).exp());
        for j in 0..2 {
            gw[j] += (p - y) * x[j] / 2.0;
        }
        gb += (p - y) / 2.0;
    }
    for j in 0..2 {
        gw[j] += 0.01 * data[0].0[j] * data[0].1;
    }
    gb += 0.01 * data[0].1;
    assert_vec_close(&g.w, &gw, 1e-12, "d/dw");
    assert_vec_close(&[g.b], &[gb], 1e-12, "d/db");
    let d = first_derivative!(at: 0.1, of: |b: f64| cross_entropy(&Linear { w: m.w.clone(), b }, &data));
    assert_vec_close(&[d], &[gb], 1e-12, "forward d/db");
}

/// `.sum()` over items that are not floats (tuples, structs), its type given by the
/// function's result or a typed `let`, as Rust infers it.
#[differentiable]
fn squared_residuals(w: f64, data: &[(f64, f64)]) -> f64 {
    let first: f64 = data.iter().take(1).map(|(x, y)| x * w - y).sum();
    first * 0.0 + data.iter().map(|(x, y)| (x * w - y).powi(2)).sum::<f64>() + {
        let tail: f64 = data.iter().map(|&(x, _)| x * w).product();
        tail
    }
}

#[differentiable]
fn mean_of_predictions(m: &Linear, data: &[(Vec<f64>, f64)]) -> f64 {
    data.iter().map(|(x, _)| m.predict(x)).sum()
}

#[test]
fn sums_over_tuples_typed_by_where_they_go() {
    let data = vec![(1.0, 2.0), (2.0, 3.5), (-1.0, 0.5)];
    let w = 1.3;
    let (v, g) = value_with_gradient!(at: w, of: |w| squared_residuals(w, &data));
    assert_eq!(v, squared_residuals(w, &data));
    let expected: f64 = data.iter().map(|(x, y)| 2.0 * (x * w - y) * x).sum::<f64>()
        + 3.0 * w * w * data.iter().map(|(x, _)| x).product::<f64>();
    assert_vec_close(&[g], &[expected], 1e-12, "d/dw");
    let m = Linear {
        w: vec![0.5, -0.3],
        b: 0.1,
    };
    let d = vec![(vec![1.0, 2.0], 1.0), (vec![-0.5, 0.3], 0.0)];
    let (v, g) = value_with_gradient!(at: &m, of: |m: &Linear| mean_of_predictions(m, &d));
    assert_eq!(v, mean_of_predictions(&m, &d));
    assert_vec_close(&g.w, &[0.5, 2.3], 1e-12, "d/dw");
    assert_vec_close(&[g.b], &[2.0], 1e-12, "d/db");
}

/// Helpers taking a slice they were given, passing it to an operator as it is
/// (`at: xs`, `xs: &[f64]`) to a closure whose parameter is typed as a reference.
fn gradient_at(xs: &[f64]) -> (f64, Vec<f64>) {
    value_with_gradient!(at: xs, of: |p: &[f64]| sumsq(p))
}

fn hessian_at(xs: &[f64]) -> Vec<Vec<f64>> {
    hessian!(at: xs, of: |p: &[f64]| sumsq(p) * p[0])
}

fn jacobian_at(xs: &Vec<f64>) -> Vec<Vec<f64>> {
    jacobian!(at: xs, of: |p: &Vec<f64>| vec![p[0] * p[1], p[1]])
}

#[test]
fn a_slice_given_as_it_is_to_a_closure_taking_a_reference() {
    let x = vec![1.5, -2.0];
    assert_eq!(gradient_at(&x), (sumsq(&x), vec![3.0, -4.0]));
    // (x0² + x1²) x0: [[6 x0, 2 x1], [2 x1, 2 x0]]
    assert_eq!(hessian_at(&x), vec![vec![9.0, -4.0], vec![-4.0, 3.0]]);
    assert_eq!(jacobian_at(&x), vec![vec![-2.0, 1.5], vec![0.0, 1.0]]);
}

#[differentiable]
fn squares(p: &[f64]) -> Vec<f64> {
    p.iter().map(|v| v * v).collect()
}

#[test]
fn jacobian_at_a_sub_slice() {
    let v = vec![1.0, 2.0, 3.0];
    assert_eq!(
        jacobian!(at: &v[..2], of: squares),
        vec![vec![2.0, 0.0], vec![0.0, 4.0]]
    );
    assert_eq!(
        jacobian!(at: &v[1..], of: |p: &[f64]| vec![p[0] * p[1]]),
        vec![vec![3.0, 2.0]]
    );
}

#[differentiable]
fn curved(w: &[f64]) -> f64 {
    w[0] * w[0] * w[1] + 3.0 * w[1]
}

#[differentiable]
fn curved32(w: &[f32]) -> f32 {
    w[0] * w[0] * w[1] + 3.0 * w[1]
}

/// An array given by reference to a closure whose parameter is a slice (declared
/// `|w: &[f64]|`, or inferred from the call inside): the gradient is the slice's, a `Vec`,
/// in every operator that takes the point.
#[test]
fn an_array_given_to_a_closure_taking_a_slice() {
    let w = [0.5, -0.2];
    let expected = vec![2.0 * 0.5 * -0.2, 0.25 + 3.0];
    let typed: Vec<f64> = gradient!(at: &w, of: |w: &[f64]| curved(w));
    assert_vec_close(&typed, &expected, 1e-12, "declared slice");
    let inferred: Vec<f64> = gradient!(at: &w, of: |w| curved(w));
    assert_vec_close(&inferred, &expected, 1e-12, "inferred slice");
    let (v, pb) = value_with_pullback!(at: &w, of: |w: &[f64]| curved(w));
    assert_eq!(v, curved(&w));
    assert_vec_close(&pb(1.0), &expected, 1e-12, "pullback");
    let h = hessian!(at: &w, of: |w: &[f64]| curved(w));
    assert_vec_close(&h[0], &[2.0 * -0.2, 2.0 * 0.5], 1e-12, "hessian row 0");
    assert_vec_close(&h[1], &[2.0 * 0.5, 0.0], 1e-12, "hessian row 1");
    let w32 = [0.5f32, -0.2];
    let g32: Vec<f32> = gradient!(at: &w32, of: |w: &[f32]| curved32(w));
    assert!(
        (g32[0] + 0.2).abs() < 1e-6 && (g32[1] - 3.25).abs() < 1e-6,
        "{g32:?}"
    );
}

/// A closure given to an operator iterating its `&[f64]` parameter directly (`for &v in
/// p`, `for v in p { *v .. }`, `.zip(p)` with `&xi`), as a function's body may.
#[test]
fn a_closure_iterating_its_slice_parameter() {
    let x = vec![1.0, 2.0, -0.5];
    let (v, g) = value_with_gradient!(at: &x, of: |p: &[f64]| {
        let mut s = 0.0;
        for &v in p {
            s += v * v;
        }
        for v in p {
            s += *v * *v * *v;
        }
        s
    });
    assert_eq!(v, x.iter().map(|v| v * v + v * v * v).sum::<f64>());
    let want: Vec<f64> = x.iter().map(|v| 2.0 * v + 3.0 * v * v).collect();
    assert_eq!(g, want);
    let j = jacobian!(at: &x, of: |p: &[f64]| {
        let mut y = vec![0.0; p.len()];
        for (yi, &xi) in y.iter_mut().zip(p) {
            *yi = xi * xi;
        }
        y
    });
    for i in 0..3 {
        for k in 0..3 {
            assert_eq!(j[i][k], if i == k { 2.0 * x[i] } else { 0.0 });
        }
    }
}
