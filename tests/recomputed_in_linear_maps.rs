//! Values the linear maps compute again instead of saving (docs/ARCHITECTURE.md, "What a
//! linear map saves"): a place read twice, one arithmetic operation on saved values, and
//! the variable of a loop over a range. Each is checked in both modes against finite
//! differences, with ranges that start elsewhere than 0, are inclusive, have signed
//! items, stop early, and nest. Also the adjoints of parts of values from outside a loop
//! that the loop reads (`x[i]` in a loop over `j`, a tuple's field), which the pullback
//! sums over the loop before adding them in.
#![allow(clippy::needless_range_loop)]

mod common;
use common::{assert_close, fd_grad};
use diff::prelude::*;

#[differentiable]
fn reads_twice(x: Vec<f64>) -> f64 {
    let mut s = 0.0;
    for i in 1..x.len() {
        // x[i] read three times, x[i - 1] twice; 100.0 * a and i - 1 are recomputed.
        let a = x[i] - x[i - 1] * x[i - 1];
        s += 100.0 * a * a + x[i] * x[i];
    }
    s
}

#[differentiable]
fn signed_inclusive(x: Vec<f64>) -> f64 {
    let mut s = 0.0;
    for k in -2i32..=1 {
        let i = (k + 2) as usize;
        s += (k as f64) * x[i] * x[i] - x[i].sin();
    }
    s
}

#[differentiable]
fn stops_early(x: Vec<f64>, limit: f64) -> f64 {
    let mut s = 0.0;
    for i in 2..x.len() {
        s += x[i] * x[i - 2];
        if s > limit {
            break;
        }
    }
    s
}

#[differentiable]
fn nested(x: Vec<f64>) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 1..n {
        for j in i..n {
            s += x[i - 1] * x[j] / ((j - i + 1) as f64);
        }
    }
    s
}

#[differentiable]
fn parts_from_outside(x: Vec<f64>) -> f64 {
    let n = x.len();
    let pair = (x[0] * x[1], x[n - 1]);
    let mut q = vec![0.0; n];
    let mut s = 0.0;
    for i in 0..n {
        for j in (i + 1)..n {
            // x[i] and pair's fields come from outside this loop, x[j] from inside.
            q[j] += x[i] * x[j] + pair.0;
            if x[i] > 0.0 {
                s += x[i].sin() * pair.1;
            } else {
                s -= x[i] * 2.0;
            }
        }
        s += x[i] * q[i] + pair.1 * x[i];
    }
    s + q[n - 1] * pair.0
}

#[derive(Clone, Debug, Differentiable)]
struct Line {
    w: f64,
    b: f64,
}

/// The fields of a parameter read in nested loops.
#[differentiable]
fn fields_from_outside(p: Line, x: Vec<f64>) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        for k in 0..3 {
            s += p.w * x[i] * (k as f64) + p.b;
        }
    }
    s
}

#[test]
fn fields_read_in_loops() {
    let (p, x) = (Line { w: 1.5, b: -0.5 }, vec![0.3, -0.7, 1.1]);
    let (v, (tp, tx)) = value_with_gradient!(at: (p.clone(), x.clone()), of: fields_from_outside);
    assert_eq!(v, fields_from_outside(p.clone(), x.clone()));
    // s = Σ_i Σ_k (w x_i k + b) = 3 w Σx + 3 n b (k = 0, 1, 2 sums to 3).
    assert_close(tp.w, 3.0 * x.iter().sum::<f64>(), 1e-12, "d/dw");
    assert_close(tp.b, 9.0, 1e-12, "d/db");
    for t in &tx {
        assert_close(*t, 4.5, 1e-12, "d/dx");
    }
    let df = differential!(at: (p, x), of: fields_from_outside);
    let d = df((LineTangent { w: 1.0, b: 2.0 }, vec![1.0, 0.0, -1.0]));
    assert_close(d, tp.w + 2.0 * tp.b + tx[0] - tx[2], 1e-12, "forward");
}

/// `of: $f` at `x` in both modes: the values against `plain`, the reverse gradient and
/// the forward one (a differential per coordinate) against finite differences of `plain`.
macro_rules! check_both_modes {
    ($name:expr, $x:expr, $plain:expr, of: $($f:tt)+) => {{
        let (name, x, plain): (&str, Vec<f64>, _) = ($name, $x, $plain);
        let (v, g) = value_with_gradient!(at: x.clone(), of: $($f)+);
        assert_eq!(v, plain(x.clone()), "{name} value");
        let d: Vec<f64> = (0..x.len())
            .map(|i| {
                let (v, df) = value_with_differential!(at: x.clone(), of: $($f)+);
                assert_eq!(v, plain(x.clone()), "{name} forward value");
                df((0..x.len()).map(|k| if k == i { 1.0 } else { 0.0 }).collect())
            })
            .collect();
        let want = fd_grad(|p| plain(p.to_vec()), &x);
        for i in 0..x.len() {
            assert_close(g[i], want[i], 1e-6, &format!("{name} reverse [{i}]"));
            assert_close(d[i], want[i], 1e-6, &format!("{name} forward [{i}]"));
        }
    }};
}

#[test]
fn recomputed_values_give_the_same_derivatives() {
    let x = vec![0.3, -0.7, 1.1, 0.4, -0.2];
    check_both_modes!("reads_twice", x.clone(), reads_twice, of: reads_twice);
    let x4 = vec![0.5, -1.2, 0.8, 2.0];
    check_both_modes!("signed_inclusive", x4, signed_inclusive, of: signed_inclusive);
    let x6 = vec![0.9, 0.8, 0.7, 1.2, 1.5, 0.3];
    for limit in [0.5, 100.0] {
        check_both_modes!(
            "stops_early",
            x6.clone(),
            |p: Vec<f64>| stops_early(p, limit),
            of: |p| stops_early(p, limit)
        );
    }
    check_both_modes!("nested", x.clone(), nested, of: nested);
    check_both_modes!("parts_from_outside", x, parts_from_outside, of: parts_from_outside);
    let signs = vec![-0.6, 0.9, -1.3, 0.2, 0.7, -0.4];
    check_both_modes!("parts_from_outside", signs, parts_from_outside, of: parts_from_outside);
}

/// `c` (not differentiated) and `x` (differentiated) are arrays only indexed: their
/// elements read in the loops come from one copy saved on entry. `m` is updated, so its
/// elements are saved as read.
#[differentiable(wrt = (w, x))]
fn arrays_read_in_loops(w: Vec<f64>, x: [f64; 3], c: [f64; 3], mut m: [f64; 3]) -> f64 {
    let mut s = 0.0;
    for j in 0..2 {
        for i in 0..3 {
            s += w[j * 3 + i] * c[i] * x[i] * m[i];
            m[i] = m[i] * 0.5 + x[i];
        }
    }
    s
}

#[test]
fn array_parameters_read_in_loops() {
    let w = vec![0.3, -0.2, 0.5, 1.1, 0.7, -0.4];
    let x = [0.9, -1.3, 0.2];
    let (c, m) = ([1.5, -0.5, 2.0], [0.1, 0.2, -0.3]);
    let (v, (gw, gx)) =
        value_with_gradient!(at: (w.clone(), x), of: |w, x| arrays_read_in_loops(w, x, c, m));
    assert_eq!(v, arrays_read_in_loops(w.clone(), x, c, m));
    let fw = fd_grad(|p| arrays_read_in_loops(p.to_vec(), x, c, m), &w);
    let fx = fd_grad(
        |p| arrays_read_in_loops(w.clone(), [p[0], p[1], p[2]], c, m),
        &x,
    );
    for i in 0..w.len() {
        assert_close(gw[i], fw[i], 1e-6, &format!("w[{i}]"));
    }
    for i in 0..3 {
        assert_close(gx[i], fx[i], 1e-6, &format!("x[{i}]"));
        let mut e = [0.0; 3];
        e[i] = 1.0;
        let (_, df) = value_with_differential!(at: (w.clone(), x), of: |w, x| arrays_read_in_loops(w, x, c, m));
        assert_close(
            df((vec![0.0; 6], e)),
            fx[i],
            1e-6,
            &format!("forward x[{i}]"),
        );
    }
}

/// `y = A x` with `A` stored by rows: the indices `i * cols + j` are rebuilt from the
/// integer parameters (saved once) and the loop variables, and `y`, written element by
/// element in nested loops, has one shape.
#[differentiable(wrt = (a, x))]
fn matvec_norm(a: &[f64], x: &[f64], rows: usize, cols: usize) -> f64 {
    let mut y = vec![0.0; rows];
    for i in 0..rows {
        for j in 0..cols {
            y[i] += a[i * cols + j] * x[j];
        }
    }
    let mut s = 0.0;
    for i in 0..rows {
        s += y[i] * y[i];
    }
    s.sqrt()
}

/// A loop inside a branch inside a loop, beside a nested loop with a counter carried
/// across its runs: the runs of both inner loops go on stacks.
#[differentiable]
fn triangular(x: Vec<f64>, n: usize) -> f64 {
    let mut acc = vec![0.0; n];
    let mut k = 0;
    for i in 0..n {
        for j in (i + 1)..n {
            acc[j] += x[k % x.len()] * x[i];
            k += 1;
        }
        if i % 2 == 0 {
            for j in 0..i {
                acc[i] -= 0.1 * acc[j] * x[j];
            }
        }
    }
    acc.iter().map(|v| v * v).sum()
}

/// A vector replaced every step by one built in a nested loop (its shape is not the
/// first one's only by what the loop writes).
#[differentiable]
fn smoothed(x: Vec<f64>, steps: usize) -> f64 {
    let mut v = x.clone();
    for _ in 0..steps {
        let mut next = vec![0.0; v.len() + 1];
        for i in 0..v.len() {
            let l = if i > 0 { v[i - 1] } else { 0.0 };
            let r = if i + 1 < v.len() { v[i + 1] } else { 0.0 };
            next[i] = 0.5 * v[i] + 0.25 * (l + r);
        }
        next[v.len()] = v[0];
        v = next;
    }
    v.iter().zip(&x).map(|(a, b)| a * b).sum::<f64>() + v[v.len() - 1]
}

#[test]
fn nested_loops_with_integer_parameters_and_vectors_written_in_place() {
    let a: Vec<f64> = (0..12).map(|i| (i as f64 * 0.37).sin()).collect();
    let x = vec![0.3, -0.7, 1.1, 0.4];
    check_both_modes!(
        "matvec a",
        a.clone(),
        |p: Vec<f64>| matvec_norm(&p, &x, 3, 4),
        of: |p| matvec_norm(&p, &x, 3, 4)
    );
    check_both_modes!(
        "matvec x",
        x.clone(),
        |p: Vec<f64>| matvec_norm(&a, &p, 3, 4),
        of: |p| matvec_norm(&a, &p, 3, 4)
    );
    let t = vec![0.5, -0.3, 0.8, 1.2, -0.4];
    check_both_modes!(
        "triangular",
        t.clone(),
        |p: Vec<f64>| triangular(p, 5),
        of: |p| triangular(p, 5)
    );
    check_both_modes!(
        "smoothed",
        t,
        |p: Vec<f64>| smoothed(p, 3),
        of: |p| smoothed(p, 3)
    );
}

/// Counters a loop carries and adds one to (`k += 1`), read as indices: their value is
/// the count on entry plus the iteration's position. Also a counter bumped before a
/// `continue`, one that stops with a `break`, and one bumped only on some iterations
/// (not a counter: saved).
#[differentiable]
fn counters(x: Vec<f64>, n: usize) -> f64 {
    let mut s = 0.0;
    let mut k = 0;
    for i in 0..n {
        for j in (i + 1)..n {
            s += x[k % x.len()] * x[j];
            k += 1;
        }
    }
    let mut m = 1;
    for v in x.iter() {
        m += 1;
        if *v < 0.0 {
            continue;
        }
        s += v * x[m % x.len()];
    }
    let mut c = 0;
    let mut some = 0;
    loop {
        s += x[c] * x[some];
        c += 1;
        if x[c] > 1.0 {
            some += 1;
        }
        if c + 1 >= x.len() {
            break;
        }
    }
    s
}

#[test]
fn counters_carried_by_loops() {
    let x = vec![0.5, -0.3, 1.8, 1.2, -0.4, 0.9];
    check_both_modes!(
        "counters",
        x,
        |p: Vec<f64>| counters(p, 4),
        of: |p| counters(p, 4)
    );
}

/// Vectors read in loops nested two deep below where they are made: the reads come from
/// a copy taken where each version of the vector is made (`c` once per `r`, `w` before
/// and after its updates), not saved one per innermost iteration.
#[differentiable]
fn far_reads(x: Vec<f64>, n: usize) -> f64 {
    let mut w = vec![0.0; n];
    for i in 0..n {
        w[i] = x[i] * x[i];
    }
    let mut s = 0.0;
    for r in 0..2 {
        let mut c = vec![0.0; n];
        for i in 0..n {
            c[i] = x[i] * (r as f64 + 1.0) + w[i];
        }
        for i in 0..n {
            for j in 0..n {
                s += c[i] * w[j] * x[(i + j) % n];
            }
        }
        for i in 0..n {
            w[i] += s * 0.01 * c[i];
        }
    }
    s
}

#[test]
fn vectors_read_two_loops_below_where_they_are_made() {
    let x = vec![0.5, -0.3, 0.8, 1.2];
    check_both_modes!(
        "far_reads",
        x,
        |p: Vec<f64>| far_reads(p, 4),
        of: |p| far_reads(p, 4)
    );
}

// An owned `Vec` or array the body only reads is read again by the linear map at the
// indices the function read, and only where it read them: reads behind a branch, after
// a `break` or a `continue`, at indices computed in a `while` loop, in nested loops. (The
// tests run with debug assertions, which check each index read again.)
#[differentiable]
fn guarded_reads(x: Vec<f64>, k: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        if i + k < x.len() {
            s += x[i + k] * x[i];
        }
        if i == 5 {
            continue;
        }
        if x[i] > 10.0 {
            break;
        }
        s += x[i].sin();
    }
    let mut j = 1;
    while j < x.len() {
        s += x[j] * x[j - 1];
        j += 2;
    }
    for a in 0..3 {
        for b in a..x.len().min(4) {
            s += x[a] * x[b];
        }
    }
    s
}

#[differentiable]
fn array_reads(p: [f64; 6]) -> f64 {
    let mut s = 0.0;
    let mut i = 0;
    loop {
        if i >= 5 {
            break;
        }
        s += (p[i] - p[i + 1]).powi(2) * p[5 - i];
        i += 1;
    }
    s
}

#[test]
fn reads_again_only_where_the_function_read() {
    let x: Vec<f64> = (0..9).map(|i| 0.3 + 0.7 * (i as f64).cos()).collect();
    for k in [0, 1, 4, 8, 20] {
        let (v, g) = value_with_gradient!(at: x.clone(), of: |x: Vec<f64>| guarded_reads(x, k));
        assert_eq!(v, guarded_reads(x.clone(), k));
        let want = fd_grad(|x| guarded_reads(x.to_vec(), k), &x);
        for (i, (g, w)) in g.iter().zip(&want).enumerate() {
            assert_close(*g, *w, 1e-7, &format!("k = {k}, [{i}]"));
        }
    }
    let mut big = x.clone();
    big[3] = 11.0;
    let g = gradient!(at: big.clone(), of: |x: Vec<f64>| guarded_reads(x, 1));
    let want = fd_grad(|x| guarded_reads(x.to_vec(), 1), &big);
    for (g, w) in g.iter().zip(&want) {
        assert_close(*g, *w, 1e-7, "break");
    }
    let p = [0.5, -0.2, 1.1, 0.7, -0.9, 0.3];
    let (v, g) = value_with_gradient!(at: p, of: array_reads);
    assert_eq!(v, array_reads(p));
    let want = fd_grad(|p| array_reads(p.try_into().unwrap()), &p);
    for (g, w) in g.iter().zip(&want) {
        assert_close(*g, *w, 1e-7, "array");
    }
}
