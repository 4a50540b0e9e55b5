//! Reduction loops (`s += term` the only value a loop carries with a derivative), whose
//! pullback the forward pass runs for the seed 1 and the loop's pullback scales
//! (diff-macros' `fused_loops.rs`). Each function is checked against finite differences
//! (and an exact formula where short), forward mode against reverse mode, and the value
//! against the function's. The sums are used after the loop other than as the result,
//! so the seed the loop's pullback scales by is not 1.

// The bodies index in loops on purpose: a loop over `0..len` is the common form.
#![allow(clippy::needless_range_loop)]

mod common;
use common::{assert_close, assert_vec_close, fd_grad};
use diff::prelude::*;

/// A gradient against central finite differences.
fn check(name: &str, f: impl Fn(&[f64]) -> f64, x: &[f64], g: Vec<f64>) {
    assert_vec_close(&g, &fd_grad(f, x), 1e-6, name);
}

#[differentiable]
fn squares_then_square(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i] * x[i];
    }
    s * s + s
}

#[differentiable]
fn plus_and_minus(x: &[f64]) -> f64 {
    let mut s = 1.0;
    for i in 0..x.len() {
        s = (s + x[i].sin()) - 0.5 * x[i];
        s -= x[i] * x[i] * 0.25;
    }
    s.exp()
}

#[differentiable]
fn branch_and_break(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        if x[i] > 5.0 {
            break;
        }
        s += if x[i] > 0.0 {
            x[i].sqrt()
        } else {
            -x[i] * x[i]
        };
    }
    3.0 * s * s
}

#[differentiable]
fn scaled_by_outer(x: &[f64], w: f64, k: usize) -> f64 {
    // `c` and `w`, from outside the loop, carry a derivative into every term.
    let c = x[k];
    let mut s = 0.0;
    for i in 0..x.len() {
        s += w * x[i] * c;
    }
    s.tanh()
}

#[differentiable]
fn outer_element(x: &[f64], k: usize, n: usize) -> f64 {
    // `x[k]`, an element at an index from outside the loop, summed in a local.
    let mut s = 0.0;
    for j in 0..n {
        s += x[k] * (j as f64 + 1.0).ln() + x[k] * x[k];
    }
    s * s
}

#[differentiable]
fn bump(a: f64, w: f64) -> f64 {
    (-(a - w) * (a - w)).exp()
}

#[differentiable]
fn calls_in_the_loop(x: &[f64], w: f64) -> f64 {
    let mut s = 0.0;
    for &a in x {
        s += bump(a, w);
    }
    s.ln()
}

#[differentiable]
fn zipped_mean(xs: &[f64], ys: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut n = 0;
    for (a, b) in xs.iter().zip(ys) {
        s += a * b;
        n += 1;
    }
    let m = s / n as f64;
    m * m
}

#[differentiable]
fn in_a_branch(x: &[f64], squares: bool) -> f64 {
    let y = if squares {
        let mut s = 0.0;
        for v in x {
            s += v * v;
        }
        s
    } else {
        x[0]
    };
    y * y
}

#[differentiable]
fn two_loops(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for v in x {
        s += v;
    }
    let mean = s / x.len() as f64;
    let mut q = 0.0;
    for v in x {
        q += (v - mean) * (v - mean);
    }
    (q + 1.0).sqrt() + mean * mean
}

// Neighbouring elements (`x[i - 1]`, `x[i + 1]`): their adjoints are summed in a window
// of locals that slides with the index (`fused_loops.rs`, `Window`).

#[differentiable]
fn neighbours(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 1..x.len() {
        s += x[i] * x[i - 1];
    }
    s * s
}

#[differentiable]
fn rosenbrock(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        let a = x[i + 1] - x[i] * x[i];
        let b = 1.0 - x[i];
        s += 100.0 * a * a + b * b;
    }
    s
}

#[differentiable]
fn stencil(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 1..x.len() - 1 {
        let d = x[i - 1] - 2.0 * x[i] + x[1 + i];
        s += d * d;
    }
    (s + 1.0).sqrt() + s
}

/// Reads past either end guarded by branches: the window's offsets the loop never read
/// hold zero.
#[differentiable]
fn guarded_ends(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n {
        let mut t = x[i];
        if i + 2 < n {
            t *= x[i + 2];
        }
        if i > 0 {
            t += x[i - 1].cos();
        }
        s += t.sin();
    }
    s * s
}

#[differentiable]
fn neighbours_until(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        if x[i] > 5.0 {
            break;
        }
        s -= x[i] * x[i + 1];
    }
    s.exp()
}

#[differentiable]
fn behind_only(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 2..=x.len() {
        s += x[i - 2] * x[i - 1] * x[i - 1];
    }
    s
}

#[differentiable]
fn differences(x: &[f64]) -> f64 {
    x.windows(2).map(|w| (w[1] - w[0]).powi(2)).sum::<f64>() * 0.5
}

/// Not a sum (a product): the tape, reading `w[0]` and `w[1]` as `x[i]`, `x[i + 1]`.
#[differentiable]
fn window_product(x: &[f64]) -> f64 {
    let mut p = 1.0;
    for w in x.windows(3) {
        p *= 1.0 + w[0] * w[2] - 0.5 * w[1];
    }
    p
}

#[differentiable]
fn crossed(x: &[f64], y: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        s += x[i] * y[i + 1] - y[i] * x[i + 1];
    }
    s * s
}

/// Not fused (two sums, a product): the tape.
#[differentiable]
fn sum_and_product(x: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut p = 1.0;
    for v in x {
        s += v;
        p *= v;
    }
    s * p
}

#[differentiable]
fn single(x: f32, n: usize) -> f32 {
    let mut s = 0.0f32;
    for k in 0..n {
        s += (x * k as f32).cos();
    }
    s * s
}

// Sums through branches: each branch of an `if` or `match` adds to the sum, leaves it
// (`break`, `continue`, an empty arm), or (`halved`) scales it, which keeps the tape.

#[differentiable]
fn branchy_sum(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        if x[i] > 0.0 {
            s += x[i].sqrt() * 2.0;
        } else if x[i] < -1.0 {
            s -= x[i];
        } else {
            s = s + x[i] * x[i] - 1.0;
        }
    }
    s * s
}

#[differentiable]
fn by_arm(x: &[f64]) -> f64 {
    let mut s = 0.5;
    for i in 0..x.len() {
        match i % 3 {
            0 => s += x[i],
            1 => s -= x[i].sin(),
            _ => {}
        }
        if x[i] < -2.0 {
            continue;
        }
        s += 0.1 * x[i] * x[i];
    }
    s.exp()
}

#[differentiable]
fn halved(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        if x[i] > 0.0 {
            s += x[i];
        } else {
            s *= 0.5;
        }
    }
    s
}

fn inputs() -> Vec<Vec<f64>> {
    vec![
        vec![0.7],
        vec![-1.1, 0.4],
        vec![0.3, -0.8, 1.9, -2.2, 0.05, 1.3, -0.45],
        vec![0.5, 6.0, 1.5],
    ]
}

/// `f(&[f64]) -> f64` at `x`: its value, reverse mode against finite differences, and
/// forward mode along a direction against the gradient.
macro_rules! check_all {
    ($f:expr, $x:expr) => {{
        let x: &Vec<f64> = $x;
        let name = stringify!($f);
        let (v, g) = value_with_gradient!(at: &x[..], of: $f);
        assert_eq!(v, $f(&x[..]), "{name}({x:?}): value");
        check(name, |x| $f(x), x, g.clone());
        let (_, df) = value_with_differential!(at: &x[..], of: $f);
        let dir: Vec<f64> = (0..x.len()).map(|k| 0.3 - 0.2 * k as f64).collect();
        let d: f64 = df(dir.clone());
        let e: f64 = g.iter().zip(&dir).map(|(a, b)| a * b).sum();
        assert_close(d, e, 1e-10, name);
    }};
}

#[test]
fn reductions_against_finite_differences_and_forward_mode() {
    for x in inputs() {
        check_all!(squares_then_square, &x);
        check_all!(plus_and_minus, &x);
        check_all!(branch_and_break, &x);
        check_all!(two_loops, &x);
        check_all!(sum_and_product, &x);
        check_all!(neighbours, &x);
        check_all!(branchy_sum, &x);
        check_all!(by_arm, &x);
        check_all!(halved, &x);
        check_all!(|x| in_a_branch(x, true), &x);
        let exact: Vec<f64> = {
            let s: f64 = x.iter().map(|v| v * v).sum();
            x.iter().map(|v| (2.0 * s + 1.0) * 2.0 * v).collect()
        };
        assert_vec_close(
            &gradient!(at: &x[..], of: squares_then_square),
            &exact,
            1e-12,
            "exact",
        );
    }
}

#[test]
fn reductions_over_neighbouring_elements() {
    let mut xs = inputs();
    xs.push((0..23).map(|k| (k as f64 * 0.37).sin()).collect());
    for x in &xs {
        check_all!(neighbours, x);
        check_all!(rosenbrock, x);
        check_all!(guarded_ends, x);
        check_all!(neighbours_until, x);
        check_all!(behind_only, x);
        check_all!(differences, x);
        check_all!(window_product, x);
        // Second order (the dual companion, with its tape): the path graph's Laplacian.
        let h = hessian!(at: &x[..], of: differences);
        let n = x.len();
        for i in 0..n {
            for j in 0..n {
                let e = if i == j {
                    (i > 0) as usize as f64 + (i + 1 < n) as usize as f64
                } else if i.abs_diff(j) == 1 {
                    -1.0
                } else {
                    0.0
                };
                assert_eq!(h[i][j], e, "differences hessian [{i}][{j}]");
            }
        }
        if x.len() >= 2 {
            check_all!(stencil, x);
        }
        // Rosenbrock's gradient, written out.
        let n = x.len();
        let mut e = vec![0.0; n];
        for i in 0..n - 1 {
            let a = x[i + 1] - x[i] * x[i];
            e[i] += -400.0 * x[i] * a - 2.0 * (1.0 - x[i]);
            e[i + 1] += 200.0 * a;
        }
        assert_vec_close(
            &gradient!(at: &x[..], of: rosenbrock),
            &e,
            1e-12,
            "rosenbrock",
        );
        let y: Vec<f64> = x.iter().map(|v| v * v - 0.5).collect();
        let (v, (gx, gy)) = value_with_gradient!(at: (&x[..], &y[..]), of: crossed);
        assert_eq!(v, crossed(x, &y), "crossed value");
        check("crossed x", |x| crossed(x, &y), x, gx);
        check("crossed y", |y| crossed(x, y), &y, gy);
    }
}

#[test]
fn reductions_reading_values_from_outside_the_loop() {
    for x in inputs() {
        let k = x.len() / 2;
        let w = 0.8;
        let (v, (gx, gw)) =
            value_with_gradient!(at: (&x[..], w), of: |x, w| scaled_by_outer(x, w, k));
        assert_eq!(v, scaled_by_outer(&x, w, k), "scaled_by_outer value");
        check("scaled_by_outer x", |x| scaled_by_outer(x, w, k), &x, gx);
        let num = common::fd(|w| scaled_by_outer(&x, w, k), w);
        assert_close(gw, num, 1e-6, "scaled_by_outer w");
        for n in [0, 1, 4] {
            let g = gradient!(at: &x[..], of: |x| outer_element(x, k, n));
            let l: f64 = (0..n).map(|j| (j as f64 + 1.0).ln()).sum();
            let s = n as f64 * x[k] * x[k] + x[k] * l;
            let mut e = vec![0.0; x.len()];
            e[k] = 2.0 * s * (2.0 * n as f64 * x[k] + l);
            assert_vec_close(&g, &e, 1e-12, "outer_element");
        }
        let (v, (gx, gw)) = value_with_gradient!(at: (&x[..], w), of: calls_in_the_loop);
        assert_eq!(v, calls_in_the_loop(&x, w), "calls value");
        check("calls x", |x| calls_in_the_loop(x, w), &x, gx);
        assert_close(
            gw,
            common::fd(|w| calls_in_the_loop(&x, w), w),
            1e-6,
            "calls w",
        );
        let ys: Vec<f64> = x.iter().map(|v| 1.0 - v).collect();
        let (v, (gx, gy)) = value_with_gradient!(at: (&x[..], &ys[..]), of: zipped_mean);
        assert_eq!(v, zipped_mean(&x, &ys), "zipped value");
        check("zipped x", |x| zipped_mean(x, &ys), &x, gx);
        check("zipped y", |y| zipped_mean(&x, y), &ys, gy);
        let g = gradient!(at: &x[..], of: |x| in_a_branch(x, false));
        let mut e = vec![0.0; x.len()];
        e[0] = 2.0 * x[0];
        assert_vec_close(&g, &e, 1e-12, "in_a_branch false");
    }
}

#[test]
fn reductions_in_f32_and_at_second_order() {
    let (v, g) = value_with_gradient!(at: 0.7f32, of: |x| single(x, 5));
    assert_eq!(v, single(0.7, 5));
    common::assert_close32(g, common::fd32(|x| single(x, 5), 0.7), 1e-2, "f32");
    // Second order goes through the dual companion, which keeps the tape.
    let x = [0.3, -0.8, 1.9];
    let h = hessian!(at: &x[..], of: squares_then_square);
    let s: f64 = x.iter().map(|v| v * v).sum();
    for i in 0..3 {
        for j in 0..3 {
            let delta = if i == j { 1.0 } else { 0.0 };
            let e = 8.0 * x[i] * x[j] + (4.0 * s + 2.0) * delta;
            assert_close(h[i][j], e, 1e-10, "hessian");
        }
    }
}
