//! `hessian!` of Rosenbrock's function written for `f64` (a loop over a slice, as a user
//! writes it for the gradient), n = 10 and 100, against the hand-written Hessian and
//! num-dual's second-order vector duals (`num_dual::hessian`, `Dual2DVec64`).
//!
//! Run: `cargo bench --bench hessian -- --warm-up-time 1 --measurement-time 3`.
//! Every Hessian is checked against the hand-written one before it is timed.
use criterion::{criterion_group, criterion_main, Criterion};
use diff::prelude::*;
use num_dual::{Dual2DVec64, DualNum};
use std::hint::black_box;

#[differentiable]
fn rosenbrock(x: &[f64]) -> f64 {
    let mut sum = 0.0;
    for i in 0..x.len() - 1 {
        let a = x[i + 1] - x[i] * x[i];
        let b = 1.0 - x[i];
        sum += 100.0 * a * a + b * b;
    }
    sum
}

/// The Hessian derived by hand (dense, as `hessian!` returns it).
fn rosenbrock_hessian(x: &[f64]) -> Vec<Vec<f64>> {
    let n = x.len();
    let mut h = vec![vec![0.0; n]; n];
    for i in 0..n - 1 {
        h[i][i] += 1200.0 * x[i] * x[i] - 400.0 * x[i + 1] + 2.0;
        h[i][i + 1] -= 400.0 * x[i];
        h[i + 1][i] -= 400.0 * x[i];
        h[i + 1][i + 1] += 200.0;
    }
    h
}

/// The same function over num-dual's numbers.
fn rosenbrock_nd<D: DualNum<f64>>(x: &[D]) -> D {
    let mut sum = D::zero();
    for i in 0..x.len() - 1 {
        let a = x[i + 1].clone() - x[i].clone() * x[i].clone();
        let b = -x[i].clone() + 1.0;
        sum += a.clone() * a * 100.0 + b.clone() * b;
    }
    sum
}

/// num-dual's Hessian: one pass on second-order vector duals of dynamic size (a static
/// size, `Dual2SVec64<100>`, holds a 100 x 100 matrix per number and overflows the stack).
fn num_dual_hessian(x: &[f64]) -> Vec<Vec<f64>> {
    let n = x.len();
    // `Vec<f64>.into()` builds the nalgebra `DVector` num-dual takes, without naming it.
    let (_, _, h) = num_dual::hessian(
        |v| -> Dual2DVec64 { rosenbrock_nd(v.as_slice()) },
        x.to_vec().into(),
    );
    (0..n)
        .map(|i| (0..n).map(|j| h[(i, j)]).collect())
        .collect()
}

fn point(n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| 0.5 + 0.3 * ((i as f64) * 0.7).sin())
        .collect()
}

fn check(h: &[Vec<f64>], want: &[Vec<f64>], what: &str) {
    for (r, w) in h.iter().zip(want) {
        for (a, b) in r.iter().zip(w) {
            assert!(
                (a - b).abs() <= 1e-9 * (1.0 + b.abs()),
                "{what}: {a} != {b}"
            );
        }
    }
}

fn bench_n<const N: usize>(c: &mut Criterion) {
    let x = point(N);
    let want = rosenbrock_hessian(&x);
    check(&hessian!(at: &x, of: rosenbrock), &want, "hessian!");
    check(&num_dual_hessian(&x), &want, "num-dual");
    let mut group = c.benchmark_group(format!("hessian rosenbrock n={N}"));
    group.bench_function("hessian!", |b| {
        b.iter(|| hessian!(at: black_box(&x), of: rosenbrock))
    });
    group.bench_function("hand", |b| b.iter(|| rosenbrock_hessian(black_box(&x))));
    group.bench_function("num-dual", |b| b.iter(|| num_dual_hessian(black_box(&x))));
    group.finish();
}

fn bench_10(c: &mut Criterion) {
    bench_n::<10>(c);
}

fn bench_100(c: &mut Criterion) {
    bench_n::<100>(c);
}

criterion_group!(benches, bench_10, bench_100);
criterion_main!(benches);
