//! Gradients through loops, in one run and one table: the function alone (`primal`), a
//! gradient written by hand, `gradient!`, and num-dual's forward-mode duals of dynamic
//! size (`DualDVec64`, one number per input carrying a vector of that size).
//!
//! Workloads: Rosenbrock's function as a loop (n = 10, 100, 1000), a Huber loss (a
//! three-way branch in a loop, n = 1000), a 8-16-1 `tanh` network's squared error (161
//! parameters, nested loops), and a damped spring integrated by explicit Euler steps
//! (100 steps, 4 parameters). Every gradient is checked against the hand-written one
//! before it is timed; each cell is the median of 31 samples. The primal and
//! `gradient!` columns include a copy of the input (both take it by value).
//!
//! Run: `cargo bench --bench loops` (about a minute).
use diff::prelude::*;
use num_dual::{DualDVec64, DualNum};
use std::hint::black_box;
use std::time::{Duration, Instant};

// ------------------------------------------------------------------ Rosenbrock, a loop

#[differentiable]
fn rosenbrock(x: Vec<f64>) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        let a = x[i + 1] - x[i] * x[i];
        let b = 1.0 - x[i];
        s += 100.0 * a * a + b * b;
    }
    s
}

/// Term `i` depends on `x[i]` and `x[i + 1]`: its part of `x[i + 1]`'s derivative is
/// carried to the next iteration in a register, and the gradient is pushed, not zeroed.
fn rosenbrock_hand(x: &[f64]) -> Vec<f64> {
    let mut g = Vec::with_capacity(x.len());
    let mut carry = 0.0;
    for i in 0..x.len() - 1 {
        let a = x[i + 1] - x[i] * x[i];
        g.push(carry - 400.0 * a * x[i] - 2.0 * (1.0 - x[i]));
        carry = 200.0 * a;
    }
    g.push(carry);
    g
}

fn rosenbrock_nd(x: &[DualDVec64]) -> DualDVec64 {
    let mut s = DualDVec64::from_re(0.0);
    for i in 0..x.len() - 1 {
        let a = x[i + 1].clone() - x[i].clone() * x[i].clone();
        let b = -x[i].clone() + 1.0;
        s += a.clone() * a * 100.0 + b.clone() * b;
    }
    s
}

// ------------------------------------------------------------------ Huber, a branch in a loop

#[differentiable(wrt = (p))]
fn huber(p: Vec<f64>, t: &[f64], delta: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..p.len() {
        let r = p[i] - t[i];
        let l = if r > delta {
            delta * (r - 0.5 * delta)
        } else if r < -delta {
            -delta * (r + 0.5 * delta)
        } else {
            0.5 * r * r
        };
        s += l;
    }
    s
}

fn huber_hand(p: &[f64], t: &[f64], delta: f64) -> Vec<f64> {
    p.iter()
        .zip(t)
        .map(|(p, t)| (p - t).clamp(-delta, delta))
        .collect()
}

fn huber_nd(p: &[DualDVec64], t: &[f64], delta: f64) -> DualDVec64 {
    let mut s = DualDVec64::from_re(0.0);
    for (p, t) in p.iter().zip(t) {
        let r = p.clone() - *t;
        s += if r.re() > delta {
            (r - 0.5 * delta) * delta
        } else if r.re() < -delta {
            (r + 0.5 * delta) * -delta
        } else {
            r.clone() * r * 0.5
        };
    }
    s
}

// ------------------------------------------------------------------ an 8-16-1 tanh network

#[differentiable(wrt = (w))]
fn mlp(w: Vec<f64>, x: [f64; 8], y: f64) -> f64 {
    let mut out = w[160];
    for j in 0..16 {
        let mut a = w[128 + j];
        for i in 0..8 {
            a += w[j * 8 + i] * x[i];
        }
        out += w[144 + j] * a.tanh();
    }
    let e = out - y;
    e * e
}

fn mlp_hand(w: &[f64], x: &[f64; 8], y: f64) -> Vec<f64> {
    let mut h = [0.0; 16];
    let mut out = w[160];
    for j in 0..16 {
        let a = w[128 + j] + (0..8).map(|i| w[j * 8 + i] * x[i]).sum::<f64>();
        h[j] = a.tanh();
        out += w[144 + j] * h[j];
    }
    let d_out = 2.0 * (out - y);
    let mut g = vec![0.0; 161];
    g[160] = d_out;
    for j in 0..16 {
        g[144 + j] = d_out * h[j];
        let d_a = d_out * w[144 + j] * (1.0 - h[j] * h[j]);
        g[128 + j] = d_a;
        for i in 0..8 {
            g[j * 8 + i] = d_a * x[i];
        }
    }
    g
}

fn mlp_nd(w: &[DualDVec64], x: &[f64; 8], y: f64) -> DualDVec64 {
    let mut out = w[160].clone();
    for j in 0..16 {
        let mut a = w[128 + j].clone();
        for i in 0..8 {
            a += w[j * 8 + i].clone() * x[i];
        }
        out += w[144 + j].clone() * a.tanh();
    }
    let e = out - y;
    e.clone() * e
}

// ------------------------------------------------------------------ a damped spring, Euler steps

const STEPS: usize = 100;
const DT: f64 = 0.05;
const TARGET: f64 = 0.2;

#[differentiable]
fn spring(p: Vec<f64>) -> f64 {
    let (k, c) = (p[0], p[1]);
    let mut x = p[2];
    let mut v = p[3];
    for _ in 0..STEPS {
        let a = -k * x - c * v;
        x += DT * v;
        v += DT * a;
    }
    let e = x - TARGET;
    e * e
}

/// The reverse sweep by hand, over the stored trajectory.
fn spring_hand(p: &[f64]) -> Vec<f64> {
    let (k, c) = (p[0], p[1]);
    let mut states = Vec::with_capacity(STEPS);
    let (mut x, mut v) = (p[2], p[3]);
    for _ in 0..STEPS {
        states.push((x, v));
        let a = -k * x - c * v;
        x += DT * v;
        v += DT * a;
    }
    let (mut ax, mut av, mut ak, mut ac) = (2.0 * (x - TARGET), 0.0, 0.0, 0.0);
    for &(x, v) in states.iter().rev() {
        // x' = x + DT v, v' = v + DT (-k x - c v): (ax, av) are the adjoints of (x', v').
        ak -= av * DT * x;
        ac -= av * DT * v;
        let new_ax = ax - av * DT * k;
        av = ax * DT + av * (1.0 - DT * c);
        ax = new_ax;
    }
    vec![ak, ac, ax, av]
}

fn spring_nd(p: &[DualDVec64]) -> DualDVec64 {
    let (k, c) = (p[0].clone(), p[1].clone());
    let mut x = p[2].clone();
    let mut v = p[3].clone();
    for _ in 0..STEPS {
        let a = -k.clone() * x.clone() - c.clone() * v.clone();
        x += v.clone() * DT;
        v += a * DT;
    }
    let e = x - TARGET;
    e.clone() * e
}

// ------------------------------------------------------------------ the harness

/// num-dual's gradient of `f` at `x`.
fn num_dual_gradient(x: &[f64], f: impl Fn(&[DualDVec64]) -> DualDVec64) -> Vec<f64> {
    // `Vec<f64>.into()` builds the nalgebra `DVector` num-dual takes, without naming it.
    let (_, g) = num_dual::gradient(|v| f(v.as_slice()), x.to_vec().into());
    g.iter().copied().collect()
}

/// The median time of one call of `f` in nanoseconds, over 31 samples of at least 2 ms.
fn time<T>(mut f: impl FnMut() -> T) -> f64 {
    let mut reps = 1u32;
    loop {
        let start = Instant::now();
        for _ in 0..reps {
            black_box(f());
        }
        if start.elapsed() >= Duration::from_millis(2) {
            break;
        }
        reps *= 2;
    }
    let mut samples: Vec<f64> = (0..31)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..reps {
                black_box(f());
            }
            start.elapsed().as_secs_f64() * 1e9 / f64::from(reps)
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    samples[15]
}

/// `ns` nanoseconds, with three significant digits and a unit.
fn show(ns: f64) -> String {
    let (v, unit) = match ns {
        n if n >= 1e6 => (n / 1e6, "ms"),
        n if n >= 1e3 => (n / 1e3, "µs"),
        n => (n, "ns"),
    };
    let decimals = if v >= 100.0 {
        0
    } else if v >= 10.0 {
        1
    } else {
        2
    };
    format!("{v:.decimals$} {unit}")
}

fn check(got: &[f64], want: &[f64], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (a, b)) in got.iter().zip(want).enumerate() {
        assert!(
            (a - b).abs() <= 1e-9 * (1.0 + b.abs()),
            "{what}[{i}]: {a} against the hand-written {b}"
        );
    }
}

/// One row: the four columns, after checking both gradients against the hand-written one.
fn row(
    name: &str,
    primal: impl FnMut() -> f64,
    mut hand: impl FnMut() -> Vec<f64>,
    mut ours: impl FnMut() -> Vec<f64>,
    mut dual: impl FnMut() -> Vec<f64>,
) {
    let want = hand();
    check(&ours(), &want, &format!("{name}: gradient!"));
    check(&dual(), &want, &format!("{name}: num-dual"));
    let (p, h, o, d) = (time(primal), time(hand), time(ours), time(dual));
    println!(
        "| {name} | {} | {} | {} ({:.2}x) | {} ({:.1}x) |",
        show(p),
        show(h),
        show(o),
        o / h,
        show(d),
        d / h
    );
}

/// Deterministic points in `[-1.5, 1.5]`.
fn point(n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 11) as f64 / (1u64 << 53) as f64) * 3.0 - 1.5
        })
        .collect()
}

fn main() {
    println!("| workload | primal | hand-written | `gradient!` (/ hand) | num-dual (/ hand) |");
    println!("| --- | ---: | ---: | ---: | ---: |");
    for n in [10, 100, 1000] {
        let x = point(n, n as u64);
        row(
            &format!("Rosenbrock n={n}"),
            || rosenbrock(black_box(&x).clone()),
            || rosenbrock_hand(black_box(&x)),
            || gradient!(at: black_box(&x).clone(), of: rosenbrock),
            || num_dual_gradient(black_box(&x), rosenbrock_nd),
        );
    }
    let (p, t) = (point(1000, 7), point(1000, 8));
    row(
        "Huber n=1000",
        || huber(black_box(&p).clone(), &t, 1.0),
        || huber_hand(black_box(&p), &t, 1.0),
        || gradient!(at: black_box(&p).clone(), of: |p| huber(p, &t, 1.0)),
        || num_dual_gradient(black_box(&p), |p| huber_nd(p, &t, 1.0)),
    );
    let w: Vec<f64> = point(161, 3).iter().map(|v| v / 3.0).collect();
    let (x, y) = ([0.1, -0.4, 0.3, 0.8, -0.2, 0.5, -0.7, 0.05], 0.3);
    row(
        "MLP 8-16-1 tanh",
        || mlp(black_box(&w).clone(), x, y),
        || mlp_hand(black_box(&w), &x, y),
        || gradient!(at: black_box(&w).clone(), of: |w| mlp(w, x, y)),
        || num_dual_gradient(black_box(&w), |w| mlp_nd(w, &x, y)),
    );
    let s = vec![4.0, 0.5, 1.0, 0.25];
    row(
        "spring, 100 Euler steps",
        || spring(black_box(&s).clone()),
        || spring_hand(black_box(&s)),
        || gradient!(at: black_box(&s).clone(), of: spring),
        || num_dual_gradient(black_box(&s), spring_nd),
    );
}
