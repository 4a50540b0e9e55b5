//! End-to-end tests of loops over collections of active values: `for v in xs.iter()`,
//! `for &v in xs.iter()`, `for v in xs`, `enumerate`, `while let Some(v) = it.next()`,
//! and iterator chains (`map`/`zip`/`fold` + `sum`), over
//! slices, arrays and `Vec`s, for lengths 0, 1 and many. Gradients are checked against
//! analytic formulas and central finite differences; forward mode against reverse mode.

// The bodies deliberately use both `a = a * b` and `a *= b`: the macro lowers them apart.
#![allow(clippy::assign_op_pattern)]

mod common;
use common::{close, fd_grad};
use diff::prelude::*;

fn inputs() -> Vec<Vec<f64>> {
    vec![
        vec![],
        vec![0.7],
        vec![-1.1, 0.4],
        vec![0.3, -0.8, 1.9, -2.2, 0.05, 1.3, -0.45],
    ]
}

/// Checks `f(&[f64]) -> f64`: reverse-mode gradient against `exact` and finite differences,
/// and the forward-mode differential along each unit vector against the gradient.
macro_rules! check_slice {
    ($f:ident, $xs:expr, $exact:expr) => {{
        let xs: Vec<f64> = $xs;
        let exact: Vec<f64> = $exact;
        let name = stringify!($f);
        let num = fd_grad(|p| $f(p), &xs);
        for k in 0..xs.len() {
            assert!(close(exact[k], num[k], 1e-6), "{name}({xs:?})[{k}]: oracle {} vs fd {}", exact[k], num[k]);
        }
        let (v, g) = value_with_gradient!(at: &xs[..], of: $f);
        assert_eq!(v, $f(&xs), "{name}({xs:?}): value");
        let g: Vec<f64> = g;
        assert_eq!(g.len(), xs.len(), "{name}({xs:?}): gradient length");
        for k in 0..xs.len() {
            assert!(close(g[k], exact[k], 1e-12), "{name}({xs:?})[{k}]: gradient {} vs {}", g[k], exact[k]);
            let mut e = vec![0.0; xs.len()];
            e[k] = 1.0;
            let (v, df) = value_with_differential!(at: &xs[..], of: $f);
            assert_eq!(v, $f(&xs));
            let d: f64 = df(e);
            assert!(close(d, g[k], 1e-12), "{name}({xs:?})[{k}]: forward {d} vs reverse {}", g[k]);
        }
    }};
}

#[differentiable]
fn sum_sq_iter(xs: &[f64]) -> f64 {
    let mut s = 0.0;
    for v in xs.iter() {
        s += v * v;
    }
    s
}

#[differentiable]
fn sum_cubes_pattern(xs: &[f64]) -> f64 {
    let mut s = 1.0;
    // `for &v in xs` (without `.iter()`) does not compile: bug C6.
    for &v in xs.iter() {
        s = s + v * v * v;
    }
    s
}

#[differentiable]
fn sum_by_ref(xs: &[f64]) -> f64 {
    let mut s = 0.0;
    for v in xs {
        s = s + v * v.cos();
    }
    s
}

#[test]
fn for_over_slice_iter_and_ref_pattern() {
    for xs in inputs() {
        check_slice!(
            sum_by_ref,
            xs.clone(),
            xs.iter().map(|x| x.cos() - x * x.sin()).collect()
        );
        check_slice!(
            sum_sq_iter,
            xs.clone(),
            xs.iter().map(|x| 2.0 * x).collect()
        );
        check_slice!(
            sum_cubes_pattern,
            xs.clone(),
            xs.iter().map(|x| 3.0 * x * x).collect()
        );
    }
}

#[differentiable]
fn relu_mix(xs: &[f64]) -> f64 {
    let mut s = 0.0;
    // `for v in xs` binds `v` by value, so `*v` does not compile: bug C6.
    for v in xs.iter() {
        if *v > 0.0 {
            s += v.sin();
        } else {
            s -= 0.5 * v * v;
        }
    }
    s * 2.0
}

#[differentiable]
fn product_until_small(xs: &[f64]) -> f64 {
    let mut p = 1.0;
    for v in xs.iter() {
        let v = *v;
        if v.abs() < 0.1 {
            break;
        }
        if v < 0.0 {
            continue;
        }
        p = p * v;
    }
    p
}

#[test]
fn branches_break_and_continue_over_slices() {
    for xs in inputs() {
        let e = xs
            .iter()
            .map(|&v| if v > 0.0 { 2.0 * v.cos() } else { -2.0 * v })
            .collect();
        check_slice!(relu_mix, xs.clone(), e);
        // Elements after the first |v| < 0.1 and negative ones do not count.
        let stop = xs.iter().position(|v| v.abs() < 0.1).unwrap_or(xs.len());
        let used: Vec<bool> = (0..xs.len()).map(|k| k < stop && xs[k] >= 0.0).collect();
        let p: f64 = (0..xs.len()).filter(|&k| used[k]).map(|k| xs[k]).product();
        let e = (0..xs.len())
            .map(|k| if used[k] { p / xs[k] } else { 0.0 })
            .collect();
        check_slice!(product_until_small, xs.clone(), e);
    }
}

#[differentiable]
fn weighted(xs: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, v) in xs.iter().enumerate() {
        s += (i as f64 + 1.0) * v.sin();
    }
    s
}

#[test]
fn for_enumerate() {
    for xs in inputs() {
        let e = xs
            .iter()
            .enumerate()
            .map(|(i, v)| (i as f64 + 1.0) * v.cos())
            .collect();
        check_slice!(weighted, xs.clone(), e);
    }
}

const WEIGHTS: [f64; 3] = [0.5, -1.0, 2.0];
static OFFSETS: [f64; 3] = [0.25, 0.0, -0.75];
mod tables {
    pub const SQUARES: [f64; 3] = [1.0, 4.0, 9.0];
}
struct Cubic;
impl Cubic {
    /// Highest power first.
    const COEFFS: [f64; 4] = [2.0, -1.0, 0.5, 3.0];
}

/// Constants and statics iterated as a user writes it: their items are references to
/// the table (each saved as a copy of the element it points to).
#[differentiable]
fn from_tables(x: Vec<f64>) -> f64 {
    let mut s = 0.0;
    for (k, w) in WEIGHTS.iter().enumerate() {
        s += w * x[k] * x[k];
    }
    for (o, q) in OFFSETS.iter().zip(tables::SQUARES.iter()) {
        s += (x[0] - o) * q * x[2];
    }
    let dot: f64 = x.iter().zip(WEIGHTS).map(|(a, w)| a * w).sum();
    let largest = WEIGHTS.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    s + dot * largest + Cubic::COEFFS.iter().fold(0.0, |acc, c| acc * x[1] + c)
}

#[test]
fn constant_tables() {
    let x = vec![0.3, -1.2, 0.8];
    let (v, g) = value_with_gradient!(at: x.clone(), of: from_tables);
    assert_eq!(v, from_tables(x.clone()));
    let (o, q) = (OFFSETS, tables::SQUARES);
    let cross: f64 = (0..3).map(|k| q[k]).sum::<f64>();
    let off: f64 = (0..3).map(|k| o[k] * q[k]).sum::<f64>();
    let t = x[1];
    let expected = [
        2.0 * WEIGHTS[0] * x[0] + cross * x[2] + 2.0 * WEIGHTS[0],
        2.0 * WEIGHTS[1] * x[1] + 2.0 * WEIGHTS[1] + 3.0 * 2.0 * t * t - 2.0 * 1.0 * t + 0.5,
        2.0 * WEIGHTS[2] * x[2] + cross * x[0] - off + 2.0 * WEIGHTS[2],
    ];
    let f = |x: &[f64]| from_tables(x.to_vec());
    let numeric = fd_grad(f, &x);
    for k in 0..3 {
        for (oracle, tol) in [(expected[k], 1e-12), (numeric[k], 1e-6)] {
            assert!(close(g[k], oracle, tol), "{k}: {} against {oracle}", g[k]);
        }
        let mut e = vec![0.0; 3];
        e[k] = 1.0;
        let (_, d) = value_with_differential!(at: x.clone(), of: from_tables);
        assert!(close(d(e), g[k], 1e-12), "forward {k}");
    }
}

#[differentiable]
fn chain_sum(xs: &[f64]) -> f64 {
    xs.iter().map(|x| x * x).sum()
}

#[differentiable]
fn chain_fold(xs: &[f64]) -> f64 {
    xs.iter().fold(0.5, |acc, x| acc * 0.9 + x.exp())
}

#[differentiable]
fn chain_after_let(xs: &[f64]) -> f64 {
    let s: f64 = xs.iter().map(|x| x.sin()).sum();
    let t: f64 = xs.iter().skip(1).map(|x| x * 3.0).sum();
    s * t
}

#[test]
fn iterator_chains_map_sum_fold_skip() {
    for xs in inputs() {
        check_slice!(chain_sum, xs.clone(), xs.iter().map(|x| 2.0 * x).collect());
        let n = xs.len();
        let e = (0..n)
            .map(|k| 0.9f64.powi((n - 1 - k) as i32) * xs[k].exp())
            .collect();
        check_slice!(chain_fold, xs.clone(), e);
        let s: f64 = xs.iter().map(|x| x.sin()).sum();
        let t: f64 = xs.iter().skip(1).map(|x| x * 3.0).sum();
        let e = (0..n)
            .map(|k| xs[k].cos() * t + if k >= 1 { 3.0 * s } else { 0.0 })
            .collect();
        check_slice!(chain_after_let, xs.clone(), e);
    }
}

#[differentiable]
fn dot(xs: &[f64], ys: &[f64]) -> f64 {
    xs.iter().zip(ys.iter()).map(|(a, b)| a * b).sum()
}

#[test]
fn zip_two_slices() {
    for xs in inputs() {
        let ys: Vec<f64> = xs.iter().map(|x| 1.0 - 2.0 * x).collect();
        let (gx, gy) = gradient!(at: (&xs[..], &ys[..]), of: dot);
        let (gx, gy): (Vec<f64>, Vec<f64>) = (gx, gy);
        assert_eq!(gx, ys);
        assert_eq!(gy, xs);
        let num = fd_grad(|p| dot(p, &ys), &xs);
        for k in 0..xs.len() {
            assert!(close(num[k], ys[k], 1e-6));
        }
        let (v, df) = value_with_differential!(at: (&xs[..], &ys[..]), of: dot);
        assert_eq!(v, dot(&xs, &ys));
        let dx: Vec<f64> = (0..xs.len()).map(|k| 0.1 * k as f64 - 0.2).collect();
        let d: f64 = df((dx.clone(), vec![0.0; xs.len()]));
        let e: f64 = dx.iter().zip(&ys).map(|(a, b)| a * b).sum();
        assert!(close(d, e, 1e-12), "{d} vs {e}");
    }
}

/// Σ x[i]·x[i+1] around a ring (the last with the first): `zip` with `cycle().skip(1)`.
#[differentiable]
fn ring_products(xs: &[f64]) -> f64 {
    xs.iter()
        .zip(xs.iter().cycle().skip(1))
        .map(|(a, b)| a * b)
        .sum()
}

/// Σ x[i]·w[i mod 3], the weights repeated by `cycle()`.
#[differentiable]
fn repeated_weights(xs: &[f64]) -> f64 {
    let w = [1.0, -2.0, 0.5];
    let mut s = 0.0;
    for (x, w) in xs.iter().zip(w.iter().cycle()) {
        s += x * x * w;
    }
    s
}

#[test]
fn zip_with_a_cycled_collection() {
    for xs in inputs() {
        let n = xs.len();
        // d/dx_k of Σ x_i x_{i+1 mod n} is x_{k+1} + x_{k-1} (2 x_0 for a single element).
        let exact: Vec<f64> = (0..n)
            .map(|k| xs[(k + 1) % n] + xs[(k + n - 1) % n])
            .collect();
        check_slice!(ring_products, xs.clone(), exact);
        let w = [1.0, -2.0, 0.5];
        let exact: Vec<f64> = (0..n).map(|k| 2.0 * xs[k] * w[k % 3]).collect();
        check_slice!(repeated_weights, xs.clone(), exact);
    }
}

#[differentiable]
fn array_poly(p: &[f64; 3]) -> f64 {
    let mut s = 0.0;
    for (i, v) in p.iter().enumerate() {
        s += v.powi(i as i32 + 1);
    }
    s
}

#[differentiable]
#[allow(clippy::ptr_arg)] // `&Vec<T>` parameters are part of the contract (API.md)
fn vec_norm(v: &Vec<f64>) -> f64 {
    let mut s = 0.0;
    for x in v.iter() {
        s += x * x;
    }
    s.sqrt()
}

#[test]
fn arrays_and_vecs() {
    let p = [0.5, -1.5, 2.0];
    let g: [f64; 3] = gradient!(at: &p, of: array_poly);
    let e = [1.0, 2.0 * p[1], 3.0 * p[2] * p[2]];
    let num = fd_grad(|q| array_poly(&[q[0], q[1], q[2]]), &p);
    for k in 0..3 {
        assert!(close(g[k], e[k], 1e-12), "{g:?} vs {e:?}");
        assert!(close(num[k], e[k], 1e-6));
    }
    let d: f64 = differential!(at: &p, of: array_poly)([1.0, 1.0, 1.0]);
    assert!(close(d, e.iter().sum(), 1e-12));

    for v in inputs().into_iter().skip(1) {
        let n = vec_norm(&v);
        let g: Vec<f64> = gradient!(at: &v, of: vec_norm);
        let num = fd_grad(|q| vec_norm(&q.to_vec()), &v);
        for k in 0..v.len() {
            assert!(close(g[k], v[k] / n, 1e-12), "{g:?}");
            assert!(close(num[k], v[k] / n, 1e-6));
        }
        let d: f64 = differential!(at: &v, of: vec_norm)(v.clone());
        assert!(close(d, n, 1e-12), "{d} vs {n}");
    }
}

#[test]
fn ten_thousand_elements() {
    let xs: Vec<f64> = (0..10_000).map(|i| (i as f64 * 0.37).sin()).collect();
    let g: Vec<f64> = gradient!(at: &xs[..], of: sum_sq_iter);
    assert_eq!(g, xs.iter().map(|x| 2.0 * x).collect::<Vec<_>>());
    let g: Vec<f64> = gradient!(at: &xs[..], of: chain_sum);
    assert_eq!(g, xs.iter().map(|x| 2.0 * x).collect::<Vec<_>>());
    let g: Vec<f64> = gradient!(at: &xs[..], of: weighted);
    for (i, (gi, x)) in g.iter().zip(&xs).enumerate() {
        assert!(close(*gi, (i as f64 + 1.0) * x.cos(), 1e-14));
    }
}

#[differentiable]
fn slice_loop(xs: &[f64]) -> f64 {
    let mut s = 0.0;
    for &v in xs {
        s += v * v;
    }
    for v in xs {
        s += *v;
    }
    s
}

/// `for &v in xs` and `for v in xs` over the same slice parameter: both loops' adjoints
/// reach it.
#[test]
fn two_loops_over_one_slice() {
    check_slice!(slice_loop, vec![1.0, -2.0], vec![3.0, -3.0]);
    for xs in inputs() {
        let exact = xs.iter().map(|x| 2.0 * x + 1.0).collect();
        check_slice!(slice_loop, xs, exact);
    }
}

// ---------------------------------------------------------------------------------------
// Selecting an element: `min_by` / `max_by` / `*_by_key` + `unwrap` / `expect`. The
// derivative reaches the selected element only; ties pick as std does (the first minimum,
// the last maximum).

#[differentiable]
fn smallest(xs: &[f64]) -> f64 {
    *xs.iter().min_by(|a, b| a.partial_cmp(b).unwrap()).unwrap()
}

#[differentiable]
fn largest_squared(xs: &[f64]) -> f64 {
    let m = xs
        .iter()
        .copied()
        .max_by(f64::total_cmp)
        .expect("not empty");
    m * m
}

#[differentiable]
fn weight_of_largest(xs: &[f64], w: &[f64]) -> f64 {
    let (i, best) = xs
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(b.1))
        .unwrap();
    best * w[i]
}

#[differentiable]
fn smallest_doubled_by_key(xs: &[f64]) -> f64 {
    xs.iter()
        .map(|a| a * 2.0)
        .min_by_key(|a| (*a * 100.0) as i64)
        .unwrap()
}

/// The `Option` of a reference copied before the unwrap.
#[differentiable]
fn largest_minus_smallest(xs: &[f64]) -> f64 {
    let hi = xs.iter().max_by(|a, b| a.total_cmp(b)).copied().unwrap();
    let lo = xs
        .iter()
        .min_by_key(|a| (**a * 100.0) as i64)
        .cloned()
        .expect("not empty");
    hi * hi - lo
}

#[differentiable]
fn log_sum_exp(xs: &[f64]) -> f64 {
    let m = xs.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let s: f64 = xs.iter().map(|v| (v - m).exp()).sum();
    m + s.ln()
}

/// The one-hot vector of position `i` among `n`.
fn one_hot(n: usize, i: usize, v: f64) -> Vec<f64> {
    (0..n).map(|k| if k == i { v } else { 0.0 }).collect()
}

#[test]
fn selecting_an_element() {
    let xs = vec![3.0, -1.0, 5.0, 5.0, -1.0];
    assert_eq!(
        value_with_gradient!(at: &xs, of: smallest),
        (-1.0, one_hot(5, 1, 1.0))
    );
    assert_eq!(
        value_with_gradient!(at: &xs, of: largest_squared),
        (25.0, one_hot(5, 3, 10.0))
    );
    let w = vec![1.0, 2.0, 3.0, 4.0, 5.0];
    assert_eq!(
        value_with_gradient!(at: (&xs, &w), of: weight_of_largest),
        (20.0, (one_hot(5, 3, 4.0), one_hot(5, 3, 5.0)))
    );
    assert_eq!(
        value_with_gradient!(at: &xs, of: smallest_doubled_by_key),
        (-2.0, one_hot(5, 1, 2.0))
    );
    let mut want = one_hot(5, 3, 10.0);
    want[1] = -1.0;
    assert_eq!(
        value_with_gradient!(at: &xs, of: largest_minus_smallest),
        (26.0, want)
    );
    // Forward mode agrees, direction by direction.
    for i in 0..xs.len() {
        let e = one_hot(5, i, 1.0);
        let df = differential!(at: &xs, of: largest_squared);
        assert_eq!(df(e), if i == 3 { 10.0 } else { 0.0 });
    }
    // Away from ties, against finite differences.
    let ys = vec![0.3, -1.2, 2.5, 0.7];
    macro_rules! against_fd {
        ($($f:ident),*) => {$(
            let g = gradient!(at: &ys, of: $f);
            let want = fd_grad($f, &ys);
            for (a, b) in g.iter().zip(&want) {
                assert!(close(*a, *b, 1e-5), "{}: {g:?} vs {want:?}", stringify!($f));
            }
        )*};
    }
    against_fd!(
        smallest,
        largest_squared,
        smallest_doubled_by_key,
        largest_minus_smallest,
        log_sum_exp
    );
    let d = first_derivative!(at: 2.0, of: |t: f64| largest_minus_smallest(&[t, -t, 0.5]));
    assert!(close(d, 2.0 * 2.0 + 1.0, 1e-12), "forward: {d}");
    let g = gradient!(at: &ys, of: log_sum_exp);
    assert!(
        close(g.iter().sum(), 1.0, 1e-12),
        "softmax sums to one: {g:?}"
    );
}

/// A selection kept as an `Option` (`unwrap_or`, `map(..).unwrap_or(..)`, `map_or`, a
/// `match`), of values or copied from references, and `reduce(..).unwrap_or_default()`.
#[differentiable]
fn selections_kept_as_options(xs: &[f64]) -> f64 {
    let a = xs
        .iter()
        .copied()
        .max_by(|a, b| a.total_cmp(b))
        .unwrap_or(0.0);
    let b = xs
        .iter()
        .max_by(|a, b| a.total_cmp(b))
        .copied()
        .unwrap_or(0.0);
    let c = xs
        .iter()
        .map(|v| v * 2.0)
        .min_by(|a, b| a.total_cmp(b))
        .map(|m| m * m)
        .unwrap_or(1.0);
    let d = xs
        .iter()
        .min_by_key(|v| (**v * 10.0) as i64)
        .cloned()
        .map_or(0.0, |m| m.sin());
    let e = match xs.iter().copied().max_by_key(|v| (v * 10.0) as i64) {
        Some(m) => m * 3.0,
        None => -1.0,
    };
    let f = xs.iter().cloned().reduce(f64::max).unwrap_or_default();
    a + b + c + d + e + f
}

/// Selections among the items a filter keeps: unwrapped, kept as an `Option` (none
/// kept: `None`), over references and values.
#[differentiable]
fn selections_after_filters(xs: &[f64], t: f64) -> f64 {
    let a = *xs
        .iter()
        .filter(|v| **v > t)
        .min_by(|a, b| a.total_cmp(b))
        .expect("one above t");
    let b = xs
        .iter()
        .copied()
        .enumerate()
        .filter(|(i, _)| i % 2 == 1)
        .map(|(_, v)| v * t)
        .max_by(|p, q| p.total_cmp(q))
        .unwrap_or(-1.0);
    let c = xs
        .iter()
        .copied()
        .filter(|v| *v > 100.0)
        .max_by(f64::total_cmp)
        .map_or(0.5, |m| m * m);
    a * a + b + c
}

/// A selection held in a variable, then mapped with a function's path.
#[differentiable]
fn largest_exp(x: &[f64]) -> f64 {
    let largest = x.iter().copied().max_by(f64::total_cmp);
    largest.map_or(0.0, f64::exp)
}

/// Selections over references, mapped where they are made: the closure is given a
/// reference to the selected item (`|m|`, `|&m|`, `*v`).
#[differentiable]
fn selections_of_references_mapped(x: &[f64]) -> f64 {
    let m = x
        .iter()
        .max_by(|a, b| a.total_cmp(b))
        .map(|m| m * 2.0)
        .unwrap_or(0.0);
    let n = x
        .iter()
        .min_by(|a, b| a.total_cmp(b))
        .map_or(0.0, |&v| v.exp());
    // (Parentheses around a part of the chain change nothing.)
    let k = (x.iter().filter(|v| **v > 10.0))
        .max_by(|a, b| a.total_cmp(b))
        .map(|v| *v * 3.0)
        .unwrap_or(1.5);
    m + n + k
}

#[test]
fn selections_of_references_mapped_where_made() {
    let x = [1.0, 5.0, -2.0];
    let (v, g) = value_with_gradient!(at: &x[..], of: selections_of_references_mapped);
    assert_eq!(v, selections_of_references_mapped(&x));
    assert_eq!(v, 10.0 + (-2f64).exp() + 1.5);
    assert_eq!(g, vec![0.0, 2.0, (-2f64).exp()]);
    let fd = fd_grad(selections_of_references_mapped, &x);
    for (a, b) in g.iter().zip(&fd) {
        assert!(close(*a, *b, 1e-6), "{g:?} vs {fd:?}");
    }
    let d =
        first_derivative!(at: 5.0, of: |t: f64| selections_of_references_mapped(&[1.0, t, -2.0]));
    assert_eq!(d, 2.0);
    // Above 10: 12 (x0) is the largest kept, and the largest overall.
    let g = gradient!(at: &[12.0, 11.0][..], of: selections_of_references_mapped);
    assert_eq!(g, vec![2.0 + 3.0, 11f64.exp()]);
    assert_eq!(
        value_with_gradient!(at: &[][..], of: selections_of_references_mapped),
        (1.5, vec![])
    );
}

#[test]
fn selections_kept_as_options_of_the_selected_item() {
    // Above t = 0.5: 0.7 (x4) is the least; odd places: 0.8 * t (x1) is the largest of
    // x1 t, x3 t; nothing above 100.
    let xs = [1.5, 0.8, 3.0, -2.0, 0.7];
    let (v, (g, gt)) = value_with_gradient!(at: (&xs[..], 0.5), of: selections_after_filters);
    assert_eq!(v, selections_after_filters(&xs, 0.5));
    assert_eq!(v, 0.7 * 0.7 + 0.8 * 0.5 + 0.5);
    assert_eq!(g, vec![0.0, 0.5, 0.0, 0.0, 2.0 * 0.7]);
    assert_eq!(gt, 0.8);
    let fd = fd_grad(
        |p: &[f64]| selections_after_filters(&p[..5], p[5]),
        &[1.5, 0.8, 3.0, -2.0, 0.7, 0.5],
    );
    for (a, b) in g.iter().chain([&gt]).zip(&fd) {
        assert!(close(*a, *b, 1e-6), "{g:?} {gt} vs {fd:?}");
    }
    let d = first_derivative!(at: 0.5, of: |t: f64| selections_after_filters(&xs, t));
    assert_eq!(d, 0.8);
    // t = -1: a is -0.5 (x1), the least above t; b is 2 = x3 t, the largest of x1 t, x3 t.
    let (_, (g, _)) =
        value_with_gradient!(at: (&[0.0, -0.5, 1.0, -2.0][..], -1.0), of: selections_after_filters);
    assert_eq!(g, vec![0.0, -1.0, 0.0, -1.0]);
    let (v, g) = value_with_gradient!(at: &[1.0, 2.0, -3.0][..], of: largest_exp);
    assert_eq!(v, 2f64.exp());
    assert_eq!(g, vec![0.0, 2f64.exp(), 0.0]);
    assert_eq!(
        value_with_gradient!(at: &[][..], of: largest_exp),
        (0.0, vec![])
    );

    let xs = [0.5, -1.5, 2.0];
    // a, b, e, f select 2.0 (x2); c and d select -1.5 (x1).
    let want = [0.0, -12.0 + (-1.5f64).cos(), 1.0 + 1.0 + 3.0 + 1.0];
    let (v, g) = value_with_gradient!(at: &xs[..], of: selections_kept_as_options);
    assert_eq!(v, selections_kept_as_options(&xs));
    assert_eq!(v, 2.0 + 2.0 + 9.0 + (-1.5f64).sin() + 6.0 + 2.0);
    for (a, b) in g.iter().zip(want) {
        assert!(close(*a, b, 1e-12), "{g:?} vs {want:?}");
    }
    let fd = fd_grad(selections_kept_as_options, &xs);
    for (a, b) in g.iter().zip(&fd) {
        assert!(close(*a, *b, 1e-5), "{g:?} vs {fd:?}");
    }
    let d = first_derivative!(at: 2.0, of: |t: f64| selections_kept_as_options(&[0.5, -1.5, t]));
    assert!(close(d, want[2], 1e-12), "forward: {d}");
    let h = hessian!(at: xs.to_vec(), of: |x: Vec<f64>| selections_kept_as_options(&x));
    assert!(close(h[1][1], 8.0 - (-1.5f64).sin(), 1e-12), "{h:?}");
    assert_eq!(
        selections_kept_as_options(&[]),
        0.0 + 0.0 + 1.0 + 0.0 - 1.0 + 0.0
    );
    assert_eq!(
        gradient!(at: &[][..], of: selections_kept_as_options),
        Vec::<f64>::new()
    );
}

#[test]
#[should_panic(expected = "not empty")]
fn selecting_from_nothing_panics_like_std() {
    let empty: Vec<f64> = Vec::new();
    let _ = gradient!(at: &empty, of: largest_squared);
}

// ---------------------------------------------------------------------------------------
// A slice parameter iterated directly (`for &y in ys`, `.zip(ys)`): its items are
// references, as in Rust, so reference patterns bind them.

#[differentiable]
fn least_squares(xs: &[Vec<f64>], ys: &[f64], w: &[f64]) -> f64 {
    let mut total = 0.0;
    for (x, &y) in xs.iter().zip(ys) {
        let p: f64 = w.iter().zip(x).map(|(a, b)| a * b).sum();
        total += (p - y) * (p - y);
    }
    for &y in ys {
        total += 0.1 * y * w[0];
    }
    total
}

#[test]
fn slice_parameters_iterated_by_reference() {
    let xs = vec![vec![1.0, 2.0], vec![-0.5, 0.3]];
    let (ys, w) = (vec![0.7, -0.2], vec![0.4, -1.1]);
    let (v, (gxs, gys, gw)) = value_with_gradient!(at: (&xs, &ys, &w), of: least_squares);
    assert_eq!(v, least_squares(&xs, &ys, &w));
    let want_w = fd_grad(|q| least_squares(&xs, &ys, q), &w);
    let want_ys = fd_grad(|q| least_squares(&xs, q, &w), &ys);
    for (got, want) in [(&gw, &want_w), (&gys, &want_ys)] {
        for (a, b) in got.iter().zip(want.iter()) {
            assert!(close(*a, *b, 1e-6), "{got:?} vs {want:?}");
        }
    }
    let p0 = w[0] * xs[0][0] + w[1] * xs[0][1];
    assert!(
        close(gxs[0][1], 2.0 * (p0 - ys[0]) * w[1], 1e-12),
        "{gxs:?}"
    );
}

/// `filter` before maps and reductions: only the kept items carry derivatives.
#[differentiable]
fn positive_squares(xs: &[f64]) -> f64 {
    let s: f64 = xs.iter().filter(|&&v| v > 0.0).map(|v| v * v).sum();
    let kept: Vec<f64> = xs.iter().copied().filter(|v| v.abs() < 1.0).collect();
    let mut t = 0.0;
    for v in xs.iter().filter(|v| **v < 0.0) {
        t += v.sin();
    }
    s + kept.iter().sum::<f64>() + t
}

/// A method given a closure (`any`) is kept as written: its result carries no derivative.
#[differentiable]
fn guarded_by_any(xs: &[f64]) -> f64 {
    if xs.iter().any(|v| v.is_nan()) {
        return 0.0;
    }
    let n = xs.iter().filter(|v| v.is_finite()).count() as f64;
    xs.iter().map(|v| v * n).sum()
}

#[test]
fn filter_and_methods_given_closures() {
    for xs in inputs() {
        let e = xs
            .iter()
            .map(|&v| {
                let mut d = 0.0;
                if v > 0.0 {
                    d += 2.0 * v;
                }
                if v.abs() < 1.0 {
                    d += 1.0;
                }
                if v < 0.0 {
                    d += v.cos();
                }
                d
            })
            .collect();
        check_slice!(positive_squares, xs.clone(), e);
        let n = xs.len() as f64;
        check_slice!(guarded_by_any, xs.clone(), vec![n; xs.len()]);
    }
}

/// Iterator chains held in variables and consumed once later.
#[differentiable]
fn chains_in_variables(xs: &[f64]) -> f64 {
    let squares = xs.iter().map(|v| v * v);
    let shifted = xs.iter().map(|v| v - 1.0);
    let s: f64 = shifted.map(|d| d * d).sum();
    squares.sum::<f64>() + s
}

#[test]
fn iterators_held_in_variables() {
    for xs in inputs() {
        let e = xs.iter().map(|v| 2.0 * v + 2.0 * (v - 1.0)).collect();
        check_slice!(chains_in_variables, xs.clone(), e);
    }
}

/// `skip` before `zip` skips the collection's items, not the zipped one's:
/// `t.iter().skip(1).zip(y)` pairs `t[i + 1]` with `y[i]` (the value and the derivative
/// once paired `t[i]` with `y[i]`).
#[differentiable]
fn skipped_then_zipped(t: &[f64], y: Vec<f64>) -> f64 {
    let mut s = 0.0;
    for (k, (a, b)) in t.iter().skip(1).zip(y.iter()).enumerate() {
        s += a * b * (k + 1) as f64;
    }
    s + t
        .iter()
        .skip(1)
        .skip(1)
        .zip(y)
        .map(|(a, b)| a - b)
        .sum::<f64>()
}

#[test]
fn skip_before_zip_pairs_the_right_items() {
    let t = vec![1.0, 2.0, 3.0, 4.0];
    let y = vec![0.5, 0.25, 2.0];
    let (v, (gt, gy)) = value_with_gradient!(at: (&t, y.clone()), of: skipped_then_zipped);
    // s = 1 t1 y0 + 2 t2 y1 + 3 t3 y2; then (t2 - y0) + (t3 - y1).
    let expected =
        t[1] * y[0] + 2.0 * t[2] * y[1] + 3.0 * t[3] * y[2] + (t[2] - y[0]) + (t[3] - y[1]);
    assert_eq!(v, skipped_then_zipped(&t, y.clone()));
    assert!(close(v, expected, 1e-12), "{v} vs {expected}");
    let et = [0.0, y[0], 2.0 * y[1] + 1.0, 3.0 * y[2] + 1.0];
    let ey = [t[1] - 1.0, 2.0 * t[2] - 1.0, 3.0 * t[3]];
    for k in 0..4 {
        assert!(
            close(gt[k], et[k], 1e-12),
            "d/dt{k}: {} vs {}",
            gt[k],
            et[k]
        );
    }
    for k in 0..3 {
        assert!(
            close(gy[k], ey[k], 1e-12),
            "d/dy{k}: {} vs {}",
            gy[k],
            ey[k]
        );
    }
}

/// Iterators held in variables before the loop: a reversed range, a range, a stepped
/// chain, a zip.
#[differentiable]
fn horner_reversed(xs: &[f64], w: f64) -> f64 {
    let idx = (0..xs.len()).rev();
    let mut s = 0.0;
    for i in idx {
        s = s * w + xs[i];
    }
    s
}

#[differentiable]
fn iterators_in_variables(xs: &[f64], ys: &[f64], w: f64) -> f64 {
    let pairs = 1..xs.len();
    let evens = xs.iter().step_by(2);
    let both = xs.iter().zip(ys.iter());
    let mut s = 0.0;
    for i in pairs {
        s += xs[i] * xs[i - 1] * w;
    }
    for &x in evens {
        s += x * x;
    }
    for (a, b) in both {
        s += a * b * w;
    }
    s
}

#[test]
fn loops_over_iterators_held_in_variables() {
    let (xs, w) = ([1.0, 2.0, 3.0, -0.5], 2.0);
    let (v, (gx, gw)) = value_with_gradient!(at: (&xs[..], w), of: horner_reversed);
    assert_eq!(v, horner_reversed(&xs, w));
    // s = ((x3 w + x2) w + x1) w + x0
    assert_eq!(gx, vec![1.0, w, w * w, w * w * w]);
    assert!(close(
        gw,
        3.0 * xs[3] * w * w + 2.0 * xs[2] * w + xs[1],
        1e-12
    ));

    let ys = [0.5, -1.0, 2.0, 1.5];
    let f = |xs: &[f64], ys: &[f64], w: f64| iterators_in_variables(xs, ys, w);
    let (v, (gx, gy, gw)) =
        value_with_gradient!(at: (&xs[..], &ys[..], w), of: iterators_in_variables);
    assert_eq!(v, f(&xs, &ys, w));
    let fx = fd_grad(|x| f(x, &ys, w), &xs);
    let fy = fd_grad(|y| f(&xs, y, w), &ys);
    for k in 0..4 {
        assert!(
            close(gx[k], fx[k], 1e-6),
            "d/dx[{k}]: {} vs {}",
            gx[k],
            fx[k]
        );
        assert!(
            close(gy[k], fy[k], 1e-6),
            "d/dy[{k}]: {} vs {}",
            gy[k],
            fy[k]
        );
    }
    let fw = (f(&xs, &ys, w + 1e-6) - f(&xs, &ys, w - 1e-6)) / 2e-6;
    assert!(close(gw, fw, 1e-6), "d/dw: {gw} vs {fw}");
    let d = first_derivative!(at: w, of: |w| iterators_in_variables(&xs, &ys, w));
    assert!(close(d, gw, 1e-12), "forward d/dw");
}

/// `find` over a chain: the first item accepted, as an `Option` of a value (after
/// `copied`, a `map`, or `.find(p).copied()`); the derivative reaches that item only.
#[differentiable]
fn found(v: &[f64]) -> f64 {
    let a = v.iter().copied().find(|x| *x > 1.5).unwrap_or(0.0);
    let b = match v.iter().find(|&&x| x < 0.0).copied() {
        Some(y) => y * 3.0,
        None => 1.0,
    };
    let c = match v.iter().map(|x| x * 2.0).find(|x| *x > 1.0) {
        Some(x) => x * x,
        None => 0.0,
    };
    a * b + c
}

#[test]
fn find_over_a_chain() {
    for xs in [
        vec![0.7, 1.9, -0.4, 1.2, 0.3],
        vec![0.1, 0.2],
        vec![],
        vec![2.0, 3.0],
    ] {
        let (v, g) = value_with_gradient!(at: &xs[..], of: found);
        assert_eq!(v, found(&xs));
        let fx = fd_grad(found, &xs);
        for k in 0..xs.len() {
            assert!(close(g[k], fx[k], 1e-6), "d/dx[{k}]: {} vs {}", g[k], fx[k]);
            let mut e = vec![0.0; xs.len()];
            e[k] = 1.0;
            let d: f64 = differential!(at: &xs[..], of: found)(e);
            assert!(close(d, g[k], 1e-12), "forward d/dx[{k}]");
        }
    }
}

/// A chain over a row given by an index (`m[i].iter()`), as a matrix-vector product.
#[differentiable]
fn matvec_rows(m: &[[f64; 3]; 2], v: &[f64; 3]) -> [f64; 2] {
    let mut out = [0.0; 2];
    for i in 0..2 {
        out[i] = m[i].iter().zip(v.iter()).map(|(a, b)| a * b).sum();
    }
    out
}

#[test]
fn chains_over_rows_given_by_an_index() {
    let m = [[1.0, 2.0, 3.0], [4.0, 5.0, -6.0]];
    let v = [1.0, 0.5, -1.0];
    let j = jacobian!(at: &v, of: |v: &[f64; 3]| matvec_rows(&m, v));
    assert_eq!(j, vec![m[0].to_vec(), m[1].to_vec()]);
    let (y, pb) = value_with_pullback!(at: (&m, &v), of: matvec_rows);
    assert_eq!(y, matvec_rows(&m, &v));
    let (dm, dv) = pb([1.0, 0.0]);
    assert_eq!(dm, [[1.0, 0.5, -1.0], [0.0, 0.0, 0.0]]);
    assert_eq!(dv, [1.0, 2.0, 3.0]);
}

/// Chains whose results carry no derivative (`position`, `count`, `any`, `all`) read the
/// active values and steer the rest; a chain over a `vec![..]` literal reads it once.
#[allow(clippy::useless_vec)] // a chain over a `vec![..]` literal, as written
#[differentiable]
fn steered_by_chains(x: f64, y: f64) -> f64 {
    let a = x * y;
    let gaps = vec![x, a, y]
        .windows(2)
        .map(|w| w[1] - w[0])
        .map(|d| d * d)
        .sum::<f64>();
    let k = [x, y, a].iter().position(|v| *v > 0.5).unwrap_or(0);
    let c = [x, y, a].iter().filter(|v| **v > 0.0).count();
    let small = [x, y, a].iter().all(|v| *v < 2.0);
    let any_negative = [x, y, a].iter().any(|v| *v < 0.0);
    gaps + k as f64 * x
        + c as f64 * y
        + if small { a } else { 0.0 }
        + if any_negative { x * x } else { y }
}

fn steered_by_hand(x: f64, y: f64) -> (f64, f64) {
    // At (0.7, -0.4): k = 0, c = 1, small, a negative: gaps + y + a + x^2.
    let a = x * y;
    let (d1, d2) = (a - x, y - a);
    let gx = 2.0 * d1 * (y - 1.0) + 2.0 * d2 * (-y) + y + 2.0 * x;
    let gy = 2.0 * d1 * x + 2.0 * d2 * (1.0 - x) + 1.0 + x;
    (gx, gy)
}

#[test]
fn chains_with_discrete_results_steer_the_derivative() {
    let (x, y) = (0.7, -0.4);
    let (value, (gx, gy)) = value_with_gradient!(at: (x, y), of: steered_by_chains);
    let a = x * y;
    let by_hand = (a - x).powi(2) + (y - a).powi(2) + y + a + x * x;
    assert!(close(value, by_hand, 1e-15), "value {value} vs {by_hand}");
    let (hx, hy) = steered_by_hand(x, y);
    assert!(close(gx, hx, 1e-12) && close(gy, hy, 1e-12), "{gx} {gy}");
    let fx = first_derivative!(at: x, of: |t| steered_by_chains(t, y));
    assert!(close(fx, hx, 1e-12), "forward {fx}");
    let h = hessian!(at: vec![x, y], of: |v: Vec<f64>| steered_by_chains(v[0], v[1]));
    let by_hand = |v: &[f64]| {
        let (a, b) = steered_by_hand(v[0], v[1]);
        vec![a, b]
    };
    let e = 1e-6;
    for j in 0..2 {
        let (mut p, mut m) = (vec![x, y], vec![x, y]);
        p[j] += e;
        m[j] -= e;
        let (gp, gm) = (by_hand(&p), by_hand(&m));
        for i in 0..2 {
            let fd = (gp[i] - gm[i]) / (2.0 * e);
            assert!(
                close(h[i][j], fd, 1e-6),
                "hessian {i}{j}: {} vs {fd}",
                h[i][j]
            );
        }
    }
}

/// `a.iter().chain(b.iter())` (also `&b`, a literal, `into_iter`, several `chain`s) at
/// the start of a chain or a `for` loop: the chain runs over the concatenation.
#[differentiable]
fn regularized(w: Vec<f64>, b: Vec<f64>, extra: f64) -> f64 {
    let l2 = w.iter().chain(b.iter()).map(|v| v * v).sum::<f64>();
    let l1: f64 = w
        .iter()
        .chain(&b)
        .chain([extra].iter())
        .map(|v| v.abs())
        .sum();
    let mut s = 0.0;
    for (i, v) in w.iter().chain(b.iter()).enumerate() {
        s += (i as f64 + 1.0) * v;
    }
    let by_value: f64 = w
        .clone()
        .into_iter()
        .chain(b.clone())
        .map(|v| v.sin())
        .sum();
    l2 + 0.5 * l1 + s + by_value
}

#[test]
fn chains_of_collections() {
    let (w, b, e) = (vec![0.5, -1.0], vec![2.0], -0.3);
    let (value, (gw, gb, ge)) =
        value_with_gradient!(at: (w.clone(), b.clone(), e), of: regularized);
    let by_hand = 5.25 + 0.5 * 3.8 + 4.5 + 0.5f64.sin() + (-1.0f64).sin() + 2.0f64.sin();
    assert!(close(value, by_hand, 1e-14), "value {value} vs {by_hand}");
    let expected = [
        2.0 * 0.5 + 0.5 + 1.0 + 0.5f64.cos(),
        -2.0 - 0.5 + 2.0 + (-1.0f64).cos(),
        4.0 + 0.5 + 3.0 + 2.0f64.cos(),
    ];
    for (got, want) in gw.iter().chain(&gb).zip(expected) {
        assert!(close(*got, want, 1e-12), "{got} vs {want}");
    }
    assert!(close(ge, -0.5, 1e-12), "{ge}");
    let forward = first_derivative!(at: e, of: |t| regularized(w.clone(), b.clone(), t));
    assert!(close(forward, ge, 1e-12), "forward {forward}");
    let h = hessian!(at: vec![0.5, -1.0, 2.0], of: |v: Vec<f64>| regularized(vec![v[0], v[1]], vec![v[2]], e));
    for (i, x) in [0.5f64, -1.0, 2.0].into_iter().enumerate() {
        assert!(close(h[i][i], 2.0 - x.sin(), 1e-12), "hessian {i}");
    }
    let fd = fd_grad(
        |v| regularized(vec![v[0], v[1]], vec![v[2]], e),
        &[0.5, -1.0, 2.0],
    );
    for (got, want) in gw.iter().chain(&gb).zip(fd) {
        assert!(
            close(*got, want, 1e-6),
            "finite differences {got} vs {want}"
        );
    }
}

/// `xs.iter().zip(ys.iter().rev())`: the zipped collection read from its back (a
/// convolution's reversed kernel), both collections active.
#[differentiable]
fn convolved_at_end(xs: &[f64], kernel: &[f64]) -> f64 {
    xs.iter()
        .zip(kernel.iter().rev())
        .map(|(x, k)| x * k)
        .sum::<f64>()
}

#[test]
fn zip_with_a_reversed_collection() {
    let (xs, kernel) = ([1.0, 2.0, 3.0], [0.5, -1.0, 2.0, 4.0]);
    // Pairs (1, 4), (2, 2), (3, -1).
    assert!(close(
        convolved_at_end(&xs, &kernel),
        4.0 + 4.0 - 3.0,
        1e-15
    ));
    let (gx, gk) = gradient!(at: (&xs, &kernel), of: convolved_at_end);
    assert_eq!(gx, vec![4.0, 2.0, -1.0]);
    assert_eq!(gk, vec![0.0, 3.0, 2.0, 1.0]);
    let forward = first_derivative!(at: 1.0, of: |t| convolved_at_end(&[t, 2.0, 3.0], &kernel));
    assert!(close(forward, 4.0, 1e-15));
    let fd = fd_grad(|k| convolved_at_end(&xs, k), &kernel);
    for (g, f) in gk.iter().zip(&fd) {
        assert!(close(*g, *f, 1e-6));
    }
}

/// `chain.reduce(f)` kept as an `Option`: then `unwrap_or`, or mapped (`None` for a chain
/// with no items takes the fallback).
#[differentiable]
fn reduced(x: Vec<f64>) -> f64 {
    let largest = x.iter().copied().reduce(f64::max).unwrap();
    let smoothed = x.iter().copied().reduce(|a, b| a * 0.5 + b).unwrap_or(0.0);
    let product = x
        .iter()
        .map(|v| v.sin())
        .reduce(|a, b| a * b)
        .map(|q| q * 2.0)
        .unwrap_or(1.0);
    let none = x.iter().copied().skip(5).reduce(f64::min).unwrap_or(-1.0);
    largest + smoothed + product + none
}

#[test]
fn reduce_kept_as_an_option() {
    let x = vec![0.5, 1.5, -0.3];
    let (v, g) = value_with_gradient!(at: x.clone(), of: reduced);
    let by_hand =
        1.5 + ((0.5 * 0.5 + 1.5) * 0.5 - 0.3) + 2.0 * x.iter().map(|v| v.sin()).product::<f64>()
            - 1.0;
    assert!(close(v, by_hand, 1e-15), "{v} {by_hand}");
    let fd = fd_grad(|x| reduced(x.to_vec()), &x);
    for (a, b) in g.iter().zip(&fd) {
        assert!(close(*a, *b, 1e-6), "{a} vs {b}");
    }
    let forward = first_derivative!(at: 0.5, of: |t| reduced(vec![t, 1.5, -0.3]));
    assert!(close(forward, g[0], 1e-12), "forward {forward}");
    let h = hessian!(at: x.clone(), of: reduced);
    let grad = |p: &[f64]| gradient!(at: p.to_vec(), of: reduced);
    let e = 1e-6;
    for j in 0..3 {
        let (mut p, mut m) = (x.clone(), x.clone());
        p[j] += e;
        m[j] -= e;
        let (gp, gm) = (grad(&p), grad(&m));
        for i in 0..3 {
            let fd = (gp[i] - gm[i]) / (2.0 * e);
            assert!(
                close(h[i][j], fd, 1e-6),
                "hessian {i}{j}: {} vs {fd}",
                h[i][j]
            );
        }
    }
}

// ---------------------------------------------------------------- `for_each` as a loop

/// `for_each` with a closure changing captured sums: a loop (over a `&Vec`, as users
/// write it).
#[allow(clippy::ptr_arg)]
#[differentiable]
fn summed_by_for_each(xs: &Vec<f64>, k: f64) -> f64 {
    let mut s = 0.0;
    let mut p = 1.0;
    xs.iter().for_each(|x| s += x * x * k);
    xs.iter().enumerate().for_each(|(i, &x)| {
        if i % 2 == 0 {
            p *= 1.0 + x;
        }
    });
    s + p
}

/// Elements updated in place by `iter_mut().for_each`, and a `for_each` nested in one.
#[differentiable]
fn updated_by_for_each(xs: &[f64]) -> f64 {
    let mut ys = xs.to_vec();
    ys.iter_mut().for_each(|y: &mut f64| *y = *y * *y);
    let mut t = 0.0;
    (0..2).for_each(|r| {
        ys.iter().for_each(|y| t += y.sin() * (r as f64 + 1.0));
    });
    ys.iter().sum::<f64>() + t
}

#[test]
fn for_each_is_a_loop() {
    let xs = vec![0.5, -1.5, 2.0];
    let k = 0.7;
    let (v, (gx, gk)) = value_with_gradient!(at: (&xs, k), of: summed_by_for_each);
    assert_eq!(v, summed_by_for_each(&xs, k));
    let num = fd_grad(|x| summed_by_for_each(&x.to_vec(), k), &xs);
    assert!(
        gx.iter().zip(&num).all(|(a, b)| close(*a, *b, 1e-8)),
        "{gx:?} {num:?}"
    );
    // ds/dk = sum x^2
    assert!(close(gk, 0.25 + 2.25 + 4.0, 1e-12), "{gk}");
    let g = gradient!(at: &xs, of: updated_by_for_each);
    let num = fd_grad(updated_by_for_each, &xs);
    assert!(
        g.iter().zip(&num).all(|(a, b)| close(*a, *b, 1e-7)),
        "{g:?} {num:?}"
    );
    let d = first_derivative!(at: 0.3, of: |t| updated_by_for_each(&[t, 2.0 * t]));
    let num = common::fd(|t| updated_by_for_each(&[t, 2.0 * t]), 0.3);
    assert!(close(d, num, 1e-7), "{d} {num}");
    let h = hessian!(at: &xs, of: updated_by_for_each);
    // Row j: finite differences of the gradient's j-th component.
    assert_eq!(h.len(), xs.len());
    for (j, h_row) in h.iter().enumerate() {
        let row = fd_grad(|x| gradient!(at: x, of: updated_by_for_each)[j], &xs);
        assert_eq!(h_row.len(), row.len());
        for (i, (a, b)) in h_row.iter().zip(&row).enumerate() {
            assert!(close(*a, *b, 1e-6), "{j} {i}: {a} {b}");
        }
    }
}

// ---------------------------------------------------------------- loops over collections written out

/// `for v in [a, b, a * b]`, `for w in [b; 2]`, `for v in vec![..]`: the collection is
/// consumed by value.
#[differentiable]
fn over_written_out(a: f64, b: f64) -> f64 {
    let mut s = 0.0;
    for v in [a, b, a * b] {
        s += v * v;
    }
    for w in [b; 2] {
        s += w * a;
    }
    for (i, p) in vec![[a, 1.0], [b, a]].into_iter().enumerate() {
        s += p[0] * p[1] * (i as f64 + 1.0);
    }
    s
}

#[test]
fn loops_over_collections_written_out() {
    let (a, b) = (1.5, 0.5);
    let (v, (ga, gb)) = value_with_gradient!(at: (a, b), of: over_written_out);
    assert_eq!(v, over_written_out(a, b));
    // s = a² + b² + a²b² + 2ab + a + 2ab
    assert!(
        close(ga, 2.0 * a + 2.0 * a * b * b + 4.0 * b + 1.0, 1e-12),
        "{ga}"
    );
    assert!(
        close(gb, 2.0 * b + 2.0 * a * a * b + 4.0 * a, 1e-12),
        "{gb}"
    );
    let d = first_derivative!(at: a, of: |a| over_written_out(a, b));
    assert!(close(d, ga, 1e-12), "{d}");
    let dd = second_derivative!(at: a, of: |a| over_written_out(a, b));
    assert!(close(dd, 2.0 + 2.0 * b * b, 1e-12), "{dd}");
}

/// An iterator held in a variable and walked by `while let Some(..) = it.next()` (as a
/// new user writes it, whatever clippy prefers).
#[allow(clippy::while_let_on_iterator)]
#[differentiable]
fn walked_by_next(xs: &[f64], ys: &[f64]) -> f64 {
    let mut it = xs.iter().zip(ys);
    let mut s = 0.0;
    'walk: while let Some((x, &y)) = it.next() {
        if y < 0.0 {
            break 'walk;
        }
        s += x * x * y;
    }
    let mut pairs = xs.windows(2).enumerate();
    while let Some((i, w)) = pairs.next() {
        s += (w[1] - w[0]).powi(2) * (i + 1) as f64;
    }
    s
}

#[test]
fn iterators_walked_by_next() {
    let ys = [0.5, 2.0, -1.0, 3.0];
    for xs in [vec![1.0, -2.0, 3.0, 0.5], vec![0.3], vec![]] {
        let (v, (gx, gy)) = value_with_gradient!(at: (&xs[..], &ys[..]), of: walked_by_next);
        assert_eq!(v, walked_by_next(&xs, &ys));
        let want = fd_grad(|x| walked_by_next(x, &ys), &xs);
        assert!(
            gx.iter().zip(&want).all(|(g, w)| close(*g, *w, 1e-6)),
            "{gx:?} vs {want:?}"
        );
        let want = fd_grad(|y| walked_by_next(&xs, y), &ys);
        assert!(
            gy.iter().zip(&want).all(|(g, w)| close(*g, *w, 1e-6)),
            "{gy:?} vs {want:?}"
        );
        if !xs.is_empty() {
            let h = hessian!(at: &xs[..], of: |x: &[f64]| walked_by_next(x, &ys));
            for (i, row) in h.iter().enumerate() {
                let column = fd_grad(
                    |x| gradient!(at: x, of: |x: &[f64]| walked_by_next(x, &ys))[i],
                    &xs,
                );
                assert!(
                    row.iter().zip(&column).all(|(a, b)| close(*a, *b, 1e-5)),
                    "{row:?} vs {column:?}"
                );
            }
        }
    }
}

/// A fold over indices with an accumulator that carries the derivative (puruspe's
/// rising factorial), also over reversed and stepped ranges.
mod fold_over_indices {
    use super::*;

    #[differentiable]
    fn rising(z: f64, k: usize, l: usize) -> f64 {
        (k..k + l).fold(1f64, |acc, i| acc * (z + i as f64))
    }

    #[differentiable]
    fn alternating(z: f64, n: usize) -> f64 {
        (0..n)
            .rev()
            .step_by(2)
            .fold(0.0, |acc: f64, i: usize| acc * z + (i as f64) * z.sin())
    }

    #[test]
    fn against_formulas_and_differences() {
        let z = 1.3;
        // z (z + 1) (z + 2): 3z^2 + 6z + 2, second derivative 6z + 6.
        let (v, d) = value_with_gradient!(at: z, of: |t: f64| rising(t, 0, 3));
        assert_eq!(v, rising(z, 0, 3));
        assert!((d - (3.0 * z * z + 6.0 * z + 2.0)).abs() < 1e-12);
        let (v, d) = value_with_derivative!(at: z, of: |t: f64| rising(t, 0, 3));
        assert_eq!(v, rising(z, 0, 3));
        assert!((d - (3.0 * z * z + 6.0 * z + 2.0)).abs() < 1e-12);
        let dd = second_derivative!(at: z, of: |t: f64| rising(t, 0, 3));
        assert!((dd - (6.0 * z + 6.0)).abs() < 1e-12);
        let (v, d) = value_with_gradient!(at: z, of: |t: f64| alternating(t, 7));
        assert_eq!(v, alternating(z, 7));
        let want = common::fd(|t| alternating(t, 7), z);
        assert!((d - want).abs() < 1e-6 * (1.0 + want.abs()), "{d} {want}");
        let (_, f) = value_with_derivative!(at: z, of: |t: f64| alternating(t, 7));
        assert!((f - d).abs() < 1e-12);
    }
}

/// libm's j0 (`pzero`): a reference to one of two constant tables, declared first and
/// assigned in the branches. The borrows stay `'static` (not copies dropped with their
/// branch).
mod borrowed_tables {
    use diff::prelude::*;

    const PR8: [f64; 3] = [1.0, 2.0, 3.0];
    const PR2: [f64; 3] = [4.0, 5.0, 6.0];

    #[allow(clippy::needless_late_init)] // as libm writes it
    #[differentiable]
    fn pz(x: f64) -> f64 {
        let p: &[f64; 3];
        if x > 2.0 {
            p = &PR8;
        } else {
            p = &PR2;
        }
        p[0] + x * (p[1] + x * p[2])
    }

    #[test]
    fn a_reference_to_a_table_assigned_in_branches() {
        for (x, t) in [(3.0, PR8), (1.5, PR2)] {
            let (v, g) = value_with_gradient!(at: x, of: pz);
            assert_eq!(v, pz(x));
            assert_eq!(g, t[1] + 2.0 * x * t[2]);
            assert_eq!(first_derivative!(at: x, of: pz), g);
            assert_eq!(second_derivative!(at: x, of: pz), 2.0 * t[2]);
        }
    }
}
