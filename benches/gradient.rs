//! `gradient!` against a hand-written analytic gradient and against num-dual's forward-mode
//! vector duals, on two functions of two variables:
//! - `f`, the function of the issue (a product, a quotient, `sin`, `exp`, `powi`, `sqrt`
//!   and a compound assignment);
//! - the 2-D Rosenbrock function;
//! - `looped`, a loop of 50 iterations (the project's first hand-written expansion,
//!   a branch in it, a call of another differentiable function and an inactive integer),
//!   against its hand-written adjoint (num-dual is not run on it).
//!
//! Run: `cargo bench --bench gradient -- --warm-up-time 1 --measurement-time 3`.
//! Every gradient is checked against the analytic one before it is timed.
use criterion::{criterion_group, criterion_main, Criterion};
use diff::prelude::*;
use num_dual::{DualNum, DualSVec64};
use std::hint::black_box;

type Dual2 = DualSVec64<2>;

// ---------------------------------------------------------------- f, the function

#[differentiable]
fn f(x: f64, y: f64) -> f64 {
    let t = x * y + x.sin() / (1.0 + y * y);
    let mut s = t.exp();
    s += t * 3.0;
    -s.powi(2) + y.sqrt()
}

/// The gradient of `f`, derived by hand.
fn f_grad_hand(x: f64, y: f64) -> (f64, f64) {
    let q = 1.0 + y * y;
    let t = x * y + x.sin() / q;
    let s = t.exp() + 3.0 * t;
    // d(-s^2)/dt = -2 s (e^t + 3)
    let ds_dt = -2.0 * s * (t.exp() + 3.0);
    let dt_dx = y + x.cos() / q;
    let dt_dy = x - x.sin() * 2.0 * y / (q * q);
    (ds_dt * dt_dx, ds_dt * dt_dy + 0.5 / y.sqrt())
}

/// `f` on num-dual's vector dual numbers (num-dual has `dual op f64`, not `f64 op dual`).
fn f_dual(v: [Dual2; 2]) -> Dual2 {
    let [x, y] = v;
    let t = x * y + x.sin() / (y * y + 1.0);
    let mut s = t.exp();
    s += t * 3.0;
    -s.powi(2) + y.sqrt()
}

// ---------------------------------------------------------------- 2-D Rosenbrock

#[differentiable]
fn rosenbrock(x: f64, y: f64) -> f64 {
    (1.0 - x) * (1.0 - x) + 100.0 * (y - x * x) * (y - x * x)
}

fn rosenbrock_grad_hand(x: f64, y: f64) -> (f64, f64) {
    let r = y - x * x;
    (-2.0 * (1.0 - x) - 400.0 * x * r, 200.0 * r)
}

fn rosenbrock_dual(v: [Dual2; 2]) -> Dual2 {
    let [x, y] = v;
    let a = -x + 1.0;
    let r = y - x * x;
    a * a + r * r * 100.0
}

// ---------------------------------------------------------------- num-dual driver

/// The gradient of `g` at `(x, y)` with num-dual: one forward pass on vector duals.
fn num_dual_gradient(g: impl Fn([Dual2; 2]) -> Dual2, x: f64, y: f64) -> (f64, f64) {
    // `[f64; 2].into()` builds the nalgebra `SVector` num-dual takes, without naming it.
    let (_, grad) = num_dual::gradient(|v| g([v[0], v[1]]), [x, y].into());
    (grad[0], grad[1])
}

// ---------------------------------------------------------------- checks and benches

fn assert_close(what: &str, got: (f64, f64), want: (f64, f64)) {
    let ok = |a: f64, b: f64| (a - b).abs() <= 1e-9 * (1.0 + b.abs());
    assert!(
        ok(got.0, want.0) && ok(got.1, want.1),
        "{what}: got {got:?}, want {want:?}"
    );
}

/// Before timing anything: all three gradients agree, and `f` is still the plain function.
fn check_gradients(x: f64, y: f64) {
    assert!(f(x, y).is_finite() && rosenbrock(x, y).is_finite());
    let hand = f_grad_hand(x, y);
    assert_close("gradient!(f)", gradient!(at: (x, y), of: f), hand);
    assert_close("num-dual f", num_dual_gradient(f_dual, x, y), hand);
    let hand = rosenbrock_grad_hand(x, y);
    assert_close(
        "gradient!(rosenbrock)",
        gradient!(at: (x, y), of: rosenbrock),
        hand,
    );
    assert_close(
        "num-dual rosenbrock",
        num_dual_gradient(rosenbrock_dual, x, y),
        hand,
    );
}

fn bench_f(c: &mut Criterion) {
    let (x, y) = (0.7, 1.3);
    check_gradients(x, y);
    let mut group = c.benchmark_group("f");
    group.bench_function("gradient!", |b| {
        b.iter(|| gradient!(at: (black_box(x), black_box(y)), of: f))
    });
    group.bench_function("hand", |b| {
        b.iter(|| f_grad_hand(black_box(x), black_box(y)))
    });
    group.bench_function("num-dual", |b| {
        b.iter(|| num_dual_gradient(f_dual, black_box(x), black_box(y)))
    });
    group.finish();
}

fn bench_rosenbrock(c: &mut Criterion) {
    let (x, y) = (-1.2, 1.0);
    check_gradients(x, y);
    let mut group = c.benchmark_group("rosenbrock");
    group.bench_function("gradient!", |b| {
        b.iter(|| gradient!(at: (black_box(x), black_box(y)), of: rosenbrock))
    });
    group.bench_function("hand", |b| {
        b.iter(|| rosenbrock_grad_hand(black_box(x), black_box(y)))
    });
    group.bench_function("num-dual", |b| {
        b.iter(|| num_dual_gradient(rosenbrock_dual, black_box(x), black_box(y)))
    });
    group.finish();
}

// ---------------------------------------------------------------- a loop with a branch

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

/// The adjoint of `looped`, written by hand (the branch taken is recorded in `branch`).
fn looped_grad_hand(x: f64, y: f64, n: usize, branch: &mut Vec<bool>) -> (f64, f64) {
    branch.clear();
    let mut acc = y;
    for i in 0..n {
        if acc > x {
            branch.push(true);
            acc = acc * 0.5 + x.sin();
        } else {
            branch.push(false);
            acc += softplus(x * y) * (i as f64);
        }
    }
    let (cx, e) = (x.cos(), (x * y).exp());
    let dsp = e / (1.0 + e);
    let mut a_acc = 2.0 * acc;
    let (mut gx, mut gy) = (0.0, 0.0);
    for i in (0..n).rev() {
        if branch[i] {
            gx += a_acc * cx;
            a_acc *= 0.5;
        } else {
            let a_p = a_acc * (i as f64) * dsp;
            gx += a_p * y;
            gy += a_p * x;
        }
    }
    (gx, gy + a_acc)
}

fn bench_looped(c: &mut Criterion) {
    let (x, y, n) = (0.3, 0.7, 50);
    let mut branch = Vec::with_capacity(n);
    let (gx, gy) = gradient!(at: (x, y, n), of: looped);
    let (hx, hy) = looped_grad_hand(x, y, n, &mut branch);
    assert!(
        (gx - hx).abs() <= 1e-9 * (1.0 + hx.abs()) && (gy - hy).abs() <= 1e-9 * (1.0 + hy.abs())
    );
    let mut group = c.benchmark_group("looped");
    group.bench_function("gradient!", |b| {
        b.iter(|| gradient!(at: (black_box(x), black_box(y), black_box(n)), of: looped))
    });
    group.bench_function("hand", |b| {
        b.iter(|| looped_grad_hand(black_box(x), black_box(y), black_box(n), &mut branch))
    });
    group.finish();
}

criterion_group!(benches, bench_f, bench_rosenbrock, bench_looped);
criterion_main!(benches);
