//! Iterator chains as the macro rewrites them (index loops) against the same chains run
//! by std: for each form, the value the operator returns equals the original function's
//! (std's semantics: which items, in which order, paired how), and the gradient and the
//! forward derivative agree with finite differences. One wrong pairing (`skip` before
//! `zip`) once gave a wrong value and derivative.
// Every chain takes `y`; most do not read it.
// The chains are written as users write them, not as clippy would rewrite them.
#![allow(
    clippy::useless_vec,
    unused_variables,
    clippy::filter_map_bool_then,
    clippy::obfuscated_if_else,
    clippy::double_ended_iterator_last,
    clippy::iter_nth_zero,
    clippy::iter_skip_next,
    clippy::filter_next
)]
mod common;
use common::fd_grad;
use diff::prelude::*;

#[differentiable]
fn zip_with_open_range(x: &[f64], y: &[f64]) -> f64 {
    x.iter().zip(1..).map(|(a, k)| a * k as f64).sum::<f64>()
}

#[differentiable]
fn zip_with_closed_range(x: &[f64], y: &[f64]) -> f64 {
    x.iter().zip(2..=3).map(|(a, k)| a * k as f64).sum::<f64>()
}

#[differentiable]
fn rev_then_enumerate(x: &[f64], y: &[f64]) -> f64 {
    x.iter()
        .rev()
        .enumerate()
        .map(|(i, v)| v * (i as f64 + 1.0))
        .sum::<f64>()
}

#[differentiable]
fn enumerate_then_rev(x: &[f64], y: &[f64]) -> f64 {
    x.iter()
        .enumerate()
        .rev()
        .map(|(i, v)| v * (i as f64 + 1.0))
        .sum::<f64>()
}

#[differentiable]
fn skip_then_enumerate(x: &[f64], y: &[f64]) -> f64 {
    x.iter()
        .skip(1)
        .enumerate()
        .map(|(i, v)| v * (i as f64 + 1.0))
        .sum::<f64>()
}

#[differentiable]
fn enumerate_then_skip(x: &[f64], y: &[f64]) -> f64 {
    x.iter()
        .enumerate()
        .skip(1)
        .map(|(i, v)| v * (i as f64 + 1.0))
        .sum::<f64>()
}

#[differentiable]
fn step_by_then_enumerate(x: &[f64], y: &[f64]) -> f64 {
    x.iter()
        .step_by(2)
        .enumerate()
        .map(|(i, v)| v * (i as f64 + 1.0))
        .sum::<f64>()
}

#[differentiable]
fn take_then_rev(x: &[f64], y: &[f64]) -> f64 {
    x.iter()
        .take(3)
        .rev()
        .map(|v| v * v)
        .fold(0.0, |a, b| a * 0.5 + b)
}

#[differentiable]
fn rev_then_take(x: &[f64], y: &[f64]) -> f64 {
    x.iter()
        .rev()
        .take(3)
        .map(|v| v * v)
        .fold(0.0, |a, b| a * 0.5 + b)
}

#[differentiable]
fn zip_with_skipped(x: &[f64], y: &[f64]) -> f64 {
    x.iter()
        .zip(y.iter().skip(2))
        .map(|(a, b)| a * b)
        .sum::<f64>()
}

#[differentiable]
fn skip_then_zip(x: &[f64], y: &[f64]) -> f64 {
    x.iter()
        .skip(2)
        .zip(y.iter())
        .map(|(a, b)| a * b)
        .sum::<f64>()
}

#[differentiable]
fn zip_then_rev(x: &[f64], y: &[f64]) -> f64 {
    x.iter()
        .zip(y.iter())
        .rev()
        .map(|(a, b)| a * b)
        .fold(0.0, |s, t| s * 0.5 + t)
}

#[differentiable]
fn zip_skip_step_by(x: &[f64], y: &[f64]) -> f64 {
    x.iter()
        .zip(y.iter())
        .skip(1)
        .step_by(2)
        .map(|(a, b)| a * b)
        .sum::<f64>()
}

#[differentiable]
fn windows_rev(x: &[f64], y: &[f64]) -> f64 {
    x.windows(2)
        .rev()
        .map(|w| w[0] * w[1])
        .fold(0.0, |s, t| s * 0.5 + t)
}

#[differentiable]
fn chunks_enumerate(x: &[f64], y: &[f64]) -> f64 {
    x.chunks(3)
        .enumerate()
        .map(|(i, c)| c[0] * (i as f64 + 1.0))
        .sum::<f64>()
}

#[differentiable]
fn skip_take_product(x: &[f64], y: &[f64]) -> f64 {
    x.iter().skip(1).take(2).map(|v| v.sin()).product::<f64>()
}

#[differentiable]
fn enumerate_then_zip(x: &[f64], y: &[f64]) -> f64 {
    x.iter()
        .enumerate()
        .zip(y.iter())
        .map(|((i, a), b)| a * b * i as f64)
        .sum::<f64>()
}

#[differentiable]
fn take_then_zip(x: &[f64], y: &[f64]) -> f64 {
    x.iter()
        .take(2)
        .zip(y.iter())
        .map(|(a, b)| a * b)
        .sum::<f64>()
}

#[differentiable]
fn copied_rev_skip_fold(x: &[f64], y: &[f64]) -> f64 {
    x.iter()
        .copied()
        .rev()
        .skip(1)
        .map(|v| v * 3.0)
        .fold(1.0, |s, t| s * t)
}

#[differentiable]
fn sub_slices_zipped(x: &[f64], y: &[f64]) -> f64 {
    x[1..]
        .iter()
        .zip(&x[..x.len() - 1])
        .map(|(a, b)| (a - b).powi(2))
        .sum::<f64>()
}

#[differentiable]
fn filter_map_sum(x: &[f64], y: &[f64]) -> f64 {
    x.iter().filter(|v| **v > 0.0).map(|v| v.exp()).sum::<f64>()
}

#[differentiable]
fn range_rev_fold(x: &[f64], y: &[f64]) -> f64 {
    (0..x.len())
        .rev()
        .map(|i| x[i] * i as f64)
        .fold(0.0, |s, t| s * 0.5 + t)
}

#[differentiable]
fn range_step_by(x: &[f64], y: &[f64]) -> f64 {
    (1..x.len())
        .step_by(2)
        .map(|i| x[i] * x[i - 1])
        .sum::<f64>()
}

#[differentiable]
fn take_while_sum(x: &[f64], y: &[f64]) -> f64 {
    x.iter()
        .take_while(|v| **v < 2.0)
        .map(|v| v * v)
        .sum::<f64>()
}

#[differentiable]
fn filter_then_take_while(x: &[f64], y: &[f64]) -> f64 {
    let kept: Vec<f64> = x
        .iter()
        .filter(|v| **v > 0.0)
        .take_while(|v| **v < 2.6)
        .map(|v| v.sin())
        .collect();
    kept.iter().fold(0.0, |a, b| a * 0.5 + b)
}

#[differentiable]
fn take_while_then_enumerate(x: &[f64], y: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, v) in x.iter().copied().take_while(|v| *v < 2.0).enumerate() {
        s += v * (i as f64 + 1.0);
    }
    s
}

#[differentiable]
fn zip_then_take_while(x: &[f64], y: &[f64]) -> f64 {
    x.iter()
        .zip(y)
        .take_while(|(a, b)| **a < **b + 1.0)
        .map(|(a, b)| a * b)
        .product::<f64>()
}

#[differentiable]
fn take_while_then_take_and_find(x: &[f64], y: &[f64]) -> f64 {
    let first = x
        .iter()
        .copied()
        .take_while(|v| *v < 2.0)
        .find(|v| *v < 0.0)
        .unwrap_or(1.0);
    let two = x
        .iter()
        .take_while(|v| **v > -5.0)
        .take(2)
        .map(|v| v * v)
        .sum::<f64>();
    first * two
}

#[differentiable]
fn take_while_then_select(x: &[f64], y: &[f64]) -> f64 {
    let most = x
        .iter()
        .copied()
        .take_while(|v| *v < 2.0)
        .max_by(|a, b| a.total_cmp(b))
        .unwrap();
    // The first item is rejected: no items.
    let none = x
        .iter()
        .map(|v| v * 2.0)
        .take_while(|v| *v > 1.0)
        .min_by(|a, b| a.total_cmp(b))
        .unwrap_or(-1.0);
    most * none
}

#[differentiable]
fn filter_map_logs(x: &[f64], y: &[f64]) -> f64 {
    x.iter()
        .filter_map(|v| if *v > 0.0 { Some(v.ln()) } else { None })
        .sum::<f64>()
}

#[differentiable]
fn enumerate_filter_map_loop(x: &[f64], y: &[f64]) -> f64 {
    let mut s = 1.0;
    let evens = x
        .iter()
        .enumerate()
        .filter_map(|(i, v)| (i % 2 == 0).then(|| (i, v * v)));
    for (i, v) in evens {
        s += v * i as f64 + v;
    }
    s
}

#[differentiable]
fn filter_map_collect_and_fold(x: &[f64], y: &[f64]) -> f64 {
    let roots: Vec<f64> = x
        .iter()
        .copied()
        .filter_map(|v| (v > 0.0).then(|| v.sqrt()))
        .map(|r| r * 2.0)
        .collect();
    let small = x
        .iter()
        .zip(y)
        .filter_map(|(a, b)| (*a < 1.0).then_some(a * b))
        .fold(0.0, |acc, t| acc * 0.5 + t);
    roots.iter().sum::<f64>() + small
}

#[differentiable]
fn filter_map_then_select(x: &[f64], y: &[f64]) -> f64 {
    let most = x
        .iter()
        .filter_map(|v| if *v > 0.0 { Some(v * 3.0) } else { None })
        .max_by(|a, b| a.total_cmp(b))
        .unwrap_or(0.0);
    let least = x
        .iter()
        .filter_map(|v| (*v > 0.5).then(|| v.sin()))
        .min_by(|a, b| a.total_cmp(b))
        .unwrap();
    let first = x
        .iter()
        .filter_map(|v| (*v < 0.0).then_some(v * v))
        .find(|v| *v > 1.0)
        .unwrap_or(-1.0);
    most * least + first
}

#[differentiable]
fn skip_while_sum(x: &[f64], y: &[f64]) -> f64 {
    x.iter()
        .skip_while(|v| **v < 2.0)
        .map(|v| v * v)
        .sum::<f64>()
}

#[differentiable]
fn skip_while_loop_collect_and_extend(x: &[f64], y: &[f64]) -> f64 {
    let mut s = 0.0;
    for (k, v) in x
        .iter()
        .copied()
        .enumerate()
        .skip_while(|(_, v)| *v > 0.0)
        .map(|(k, v)| (k, v.sin()))
    {
        s += v * k as f64;
    }
    let rest: Vec<f64> = x.iter().skip_while(|v| **v > -1.0).copied().collect();
    let mut out = Vec::new();
    out.extend(x.iter().skip_while(|v| **v < 1.0).filter(|v| **v > 1.0));
    s + rest.iter().fold(0.0, |a, b| a * 0.5 + b) + out.iter().product::<f64>()
}

#[differentiable]
fn skip_while_then_select_and_find(x: &[f64], y: &[f64]) -> f64 {
    let most = x
        .iter()
        .copied()
        .skip_while(|v| *v < 1.0)
        .max_by(|a, b| a.total_cmp(b))
        .unwrap_or(0.0);
    let found = x
        .iter()
        .zip(y)
        .map(|(a, b)| a * b)
        .skip_while(|v| *v < 0.5)
        .find(|v| *v < 1.0)
        .unwrap_or(-1.0);
    most * found
}

#[differentiable]
fn filter_then_enumerate_loop(x: &[f64], y: &[f64]) -> f64 {
    let mut s = 0.0;
    for (k, v) in x.iter().filter(|v| **v > 0.0).enumerate() {
        s += v * (k as f64 + 1.0);
    }
    s
}

#[differentiable]
fn skip_while_filter_map_then_enumerate(x: &[f64], y: &[f64]) -> f64 {
    let a = x
        .iter()
        .copied()
        .skip_while(|v| *v < 0.5)
        .enumerate()
        .map(|(k, v)| v * k as f64)
        .sum::<f64>();
    let b: Vec<f64> = x
        .iter()
        .filter_map(|v| (*v > 0.5).then(|| v.ln()))
        .enumerate()
        .filter(|(k, _)| k % 2 == 0)
        .map(|(_, v)| v)
        .collect();
    let c = x
        .iter()
        .enumerate()
        .filter(|(i, _)| *i > 0)
        .enumerate()
        .map(|(j, (i, v))| v * (i * 10 + j) as f64)
        .sum::<f64>();
    let d = x
        .iter()
        .copied()
        .filter(|v| *v < 2.0)
        .enumerate()
        .find(|(k, v)| *k > 0 && *v > 0.0)
        .map(|(_, v)| v)
        .unwrap_or(0.0);
    a + b.iter().sum::<f64>() + c + d * d
}

#[differentiable]
fn last_of_chains(x: &[f64], y: &[f64]) -> f64 {
    let a = x.iter().map(|v| v * v).last().unwrap();
    let b = match x.iter().filter(|v| **v > 1.0).last().copied() {
        Some(v) => v.sin(),
        None => 0.5,
    };
    let c = x
        .iter()
        .copied()
        .enumerate()
        .filter(|(i, v)| i % 2 == 0 && *v < 2.0)
        .last()
        .map(|(i, v)| v * (i as f64 + 1.0))
        .unwrap_or(0.0);
    // No item kept: `None`.
    let d = x
        .iter()
        .filter(|v| **v > 10.0)
        .last()
        .copied()
        .unwrap_or(0.25);
    let e = x.iter().zip(y).map(|(p, q)| p * q).last().unwrap_or(0.0);
    a + b + c * c + d + e
}

#[differentiable]
fn nth_and_next_of_chains(x: &[f64], y: &[f64]) -> f64 {
    let a = x.iter().map(|v| v * 3.0).nth(2).unwrap();
    let k = x.len() / 2;
    let b = x
        .iter()
        .copied()
        .filter(|v| *v > 0.0)
        .nth(k - 1)
        .unwrap_or(0.0);
    // Past the end: `None`.
    let c = x
        .iter()
        .filter(|v| **v < 0.0)
        .nth(10)
        .copied()
        .unwrap_or(0.5);
    let d = x.iter().skip(1).map(|v| v.exp()).next().unwrap();
    let e = match x
        .iter()
        .zip(y)
        .map(|(p, q)| p - q)
        .filter(|r| *r > 0.0)
        .next()
    {
        Some(r) => r * r,
        None => 0.0,
    };
    a * b + c + d + e
}

/// Searches and selections of a chain of references, matched or unwrapped where they
/// are made, as users write them (no `.copied()`).
#[differentiable]
fn searches_of_references(x: &[f64], y: &[f64]) -> f64 {
    let a = match x.iter().find(|v| **v > 1.0) {
        Some(v) => v * v,
        None => 0.0,
    };
    let mut b = 0.0;
    if let Some(&v) = x.iter().filter(|v| **v < 1.0).last() {
        b += v.sin();
    }
    if let Some(m) = x.iter().max_by(|p, q| p.total_cmp(q)) {
        b += m * 0.5;
    }
    let c = match x.iter().skip(1).nth(2) {
        Some(v) if *v > 0.0 => v.exp(),
        _ => 1.0,
    };
    // Nothing found: the `None` arm.
    let d = match x.iter().filter(|v| **v > 10.0).next() {
        Some(v) => *v,
        None => 0.25,
    };
    // Items that are tuples holding references.
    let numbered = match x
        .iter()
        .filter(|v| **v > 0.0)
        .enumerate()
        .find(|(k, v)| *k > 0 && **v > 0.5)
    {
        Some((k, v)) => v * v * (k as f64 + 1.0),
        None => 0.0,
    };
    let paired = if let Some((i, &v)) = x.iter().enumerate().find(|(_, v)| **v < 0.0) {
        v * (i as f64 + 0.5)
    } else {
        1.0
    };
    let (p, q) = x.iter().zip(y).find(|(p, q)| **p > **q).unwrap();
    let last_pair = match x.iter().zip(y.iter()).last() {
        Some((p, q)) => p * q,
        None => 0.0,
    };
    let e = x.iter().find(|v| **v < 0.0).unwrap() * 3.0;
    let f = *x.iter().rev().find(|v| **v > 0.0).expect("a positive item");
    a + b * c + d + e * f + x.iter().last().unwrap() + numbered + paired + p * q + last_pair
}

/// Searches of references kept in a variable, then matched or unwrapped (also after the
/// variables their closures read change), and a search of a part of zipped items.
#[differentiable]
fn searches_kept_in_variables(x: &[f64], y: &[f64]) -> f64 {
    let mut t = 1.0;
    let first = x.iter().find(|v| **v > t);
    t = 0.0;
    let best = x.iter().max_by(|a, b| a.total_cmp(b));
    let of_pairs = x.iter().zip(y).map(|(p, _)| p).find(|p| **p < 0.0);
    let a = match first {
        Some(v) => v * v,
        None => 0.0,
    };
    let b = if let Some(&p) = of_pairs {
        p.sin()
    } else {
        2.0
    };
    let smallest = x.iter().min_by(|a, b| a.total_cmp(b));
    let c = smallest.map(|m| m * 2.0).unwrap_or(0.0);
    a + best.unwrap() * 2.0 + b + t + c * c
}

/// `zip` with a partner whose items are copied (`y.iter().cloned()`, after `rev` or
/// `skip`), on either side.
#[differentiable]
fn zipped_with_copies(x: &[f64], y: &[f64]) -> f64 {
    let a: f64 = x.iter().zip(y.iter().cloned()).map(|(p, q)| p * q).sum();
    let b: f64 = x
        .iter()
        .zip(y.iter().rev().copied())
        .map(|(p, q)| p * q * q)
        .sum();
    let c: f64 = x
        .iter()
        .copied()
        .zip(y.iter().skip(1).copied())
        .map(|(p, q)| p - q)
        .sum();
    let pairs: Vec<(f64, f64)> = x.iter().cloned().zip(y.iter().cloned()).collect();
    a + b * 0.5 + c * c + pairs[1].0 * pairs[2].1
}

macro_rules! check_against_std {
    ($($f:ident),* $(,)?) => {$({
        let x = vec![0.3, -1.2, 2.5, 0.9, 1.7];
        let y = vec![1.1, 0.4, -0.7, 2.0, 0.6];
        let name = stringify!($f);
        let (v, g) = value_with_gradient!(at: &x, of: |x: &[f64]| $f(x, &y));
        assert_eq!(v, $f(&x, &y), "{name}: value");
        let fd = fd_grad(|x| $f(x, &y), &x);
        for k in 0..x.len() {
            assert!((g[k] - fd[k]).abs() < 1e-5, "{name}: d/dx{k} {} vs {}", g[k], fd[k]);
        }
        // Forward mode along the direction (1, 2, 3, ..).
        let d = first_derivative!(at: 0.0, of: |s: f64| {
            let moved: Vec<f64> = x.iter().enumerate().map(|(i, v)| v + s * (i as f64 + 1.0)).collect();
            $f(&moved, &y)
        });
        let expected: f64 = fd.iter().enumerate().map(|(i, g)| g * (i as f64 + 1.0)).sum();
        assert!((d - expected).abs() < 1e-5, "{name}: forward {d} vs {expected}");
    })*};
}

#[differentiable]
fn chunks_exact_products(x: &[f64], y: &[f64]) -> f64 {
    x.chunks_exact(2).map(|c| c[0] * c[1]).sum::<f64>()
}

#[differentiable]
fn chunks_exact_enumerate(x: &[f64], y: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, c) in x.chunks_exact(3).enumerate() {
        s += c[2] * (i as f64 + 1.0) - c[0];
    }
    s
}

#[differentiable]
fn reduce_max_rev(x: &[f64], y: &[f64]) -> f64 {
    x.iter().copied().rev().reduce(f64::max).unwrap()
}

#[differentiable]
fn reduce_closure_skip(x: &[f64], y: &[f64]) -> f64 {
    x.iter()
        .skip(1)
        .map(|v| v * 2.0)
        .reduce(|a, b| a * 0.5 + b * b)
        .expect("not empty")
}

#[differentiable]
fn zip_of_a_zip(x: &[f64], y: &[f64]) -> f64 {
    x.iter()
        .zip(y.iter().zip(x.iter().skip(1)))
        .map(|(a, (b, c))| a * b * c)
        .sum::<f64>()
}

#[differentiable]
fn zip_of_two_zips(x: &[f64], y: &[f64]) -> f64 {
    x.iter()
        .zip(y.iter().zip(x.iter().rev()).zip(y.iter().skip(2)))
        .map(|(a, ((b, c), d))| a * b + c * d)
        .sum::<f64>()
}

#[differentiable]
fn zip_with_windows(x: &[f64], y: &[f64]) -> f64 {
    x.iter()
        .zip(y.windows(2))
        .map(|(a, w)| a * (w[1] - w[0]))
        .sum::<f64>()
}

#[differentiable]
fn zip_with_chunks(x: &[f64], y: &[f64]) -> f64 {
    x.iter()
        .zip(y.chunks(2))
        .map(|(a, c)| a * c.iter().sum::<f64>())
        .sum::<f64>()
}

#[differentiable]
fn step_by_then_zip(x: &[f64], y: &[f64]) -> f64 {
    x.iter()
        .step_by(2)
        .zip(y.iter())
        .map(|(a, b)| a * a * b)
        .sum::<f64>()
}

#[differentiable]
fn rev_then_zip_then_enumerate(x: &[f64], y: &[f64]) -> f64 {
    x.iter()
        .rev()
        .zip(y.iter().skip(1))
        .enumerate()
        .map(|(k, (a, b))| a * b * (k as f64 + 1.0) + a * a)
        .sum::<f64>()
}

#[differentiable]
fn skip_step_by_zip_take(x: &[f64], y: &[f64]) -> f64 {
    x.iter()
        .skip(1)
        .step_by(2)
        .zip(y.windows(2))
        .take(1)
        .map(|(a, w)| a * (w[0] + w[1]))
        .sum::<f64>()
}

#[differentiable]
fn x_step_by_zipped_with_itself(x: &[f64], y: &[f64]) -> f64 {
    let mut s = 0.0;
    for (a, b) in x.iter().step_by(2).zip(x.iter().rev()) {
        s += a * b;
    }
    s
}

#[test]
fn chains_compute_what_std_computes() {
    check_against_std!(
        step_by_then_zip,
        rev_then_zip_then_enumerate,
        skip_step_by_zip_take,
        x_step_by_zipped_with_itself,
        zip_of_a_zip,
        zip_of_two_zips,
        zip_with_windows,
        zip_with_chunks,
        chunks_exact_products,
        chunks_exact_enumerate,
        reduce_max_rev,
        reduce_closure_skip,
        zip_with_open_range,
        zip_with_closed_range,
        rev_then_enumerate,
        enumerate_then_rev,
        skip_then_enumerate,
        enumerate_then_skip,
        step_by_then_enumerate,
        take_then_rev,
        rev_then_take,
        zip_with_skipped,
        skip_then_zip,
        zip_then_rev,
        zip_skip_step_by,
        windows_rev,
        chunks_enumerate,
        skip_take_product,
        enumerate_then_zip,
        take_then_zip,
        copied_rev_skip_fold,
        sub_slices_zipped,
        filter_map_sum,
        range_rev_fold,
        range_step_by,
        take_while_sum,
        filter_then_take_while,
        take_while_then_enumerate,
        zip_then_take_while,
        take_while_then_take_and_find,
        take_while_then_select,
        filter_map_logs,
        enumerate_filter_map_loop,
        filter_map_collect_and_fold,
        filter_map_then_select,
        skip_while_sum,
        skip_while_loop_collect_and_extend,
        skip_while_then_select_and_find,
        filter_then_enumerate_loop,
        skip_while_filter_map_then_enumerate,
        last_of_chains,
        nth_and_next_of_chains,
        searches_of_references,
        searches_kept_in_variables,
        zipped_with_copies,
    );
}

/// A `take_while` ends the items at the first it rejects, also at second order; the
/// test of a slice's items reads them through two references (`**v`), on dual numbers
/// too.
#[test]
fn take_while_hessian_against_a_formula() {
    // Σ v³ over the positive items before the first from 3.5 on.
    #[differentiable]
    fn cubes(x: &[f64]) -> f64 {
        x.iter()
            .filter(|v| **v > 0.0)
            .take_while(|v| **v < 3.5)
            .map(|v| v * v * v)
            .sum::<f64>()
    }
    let x = vec![1.0, 2.0, -3.0, 4.0, 0.5];
    let h = hessian!(at: &x, of: cubes);
    assert_hessian(
        &h,
        x.len(),
        |i, j| if i == j && i < 2 { 6.0 * x[i] } else { 0.0 },
    );
    assert_eq!(value_with_gradient!(at: &x, of: cubes).0, 9.0);
}

#[differentiable]
fn empty_typed_sum(x: &[f64], y: &[f64]) -> f64 {
    x.iter()
        .filter(|v| **v > 100.0)
        .map(|v| v * 2.0)
        .sum::<f64>()
}

#[differentiable]
fn empty_range_sum(x: &[f64], n: usize) -> f64 {
    let s: f64 = (0..n).map(|i| x[i] * 3.0).sum();
    s
}

#[differentiable]
fn negative_zeros_sum(x: &[f64], y: &[f64]) -> f64 {
    x.iter().map(|v| -0.0 * v * v).sum::<f64>()
}

/// An empty sum of floats is `-0.0` in std (its `Sum` starts there), and so is a sum of
/// negative zeros: the value the operators return has the same sign (`1.0 / v` is
/// `-inf` either way), for a sum given its type (`sum::<f64>()`) or over a range.
#[test]
fn float_sums_start_at_negative_zero_as_in_std() {
    let x = vec![0.3, -1.2, 2.5];
    let y = x.clone();
    let (v, _) = value_with_gradient!(at: &x, of: |x: &[f64]| empty_typed_sum(x, &y));
    assert_eq!(v.to_bits(), empty_typed_sum(&x, &y).to_bits());
    assert!(v.is_sign_negative());
    let (v, _) = value_with_gradient!(at: &x, of: |x: &[f64]| empty_range_sum(x, 0));
    assert_eq!(v.to_bits(), empty_range_sum(&x, 0).to_bits());
    assert!(v.is_sign_negative());
    let (v, g) = value_with_gradient!(at: &x, of: |x: &[f64]| negative_zeros_sum(x, &y));
    assert_eq!(v.to_bits(), negative_zeros_sum(&x, &y).to_bits());
    assert!(v.is_sign_negative());
    assert!(g.iter().all(|d| *d == 0.0));
}

/// The payloads `filter_map` keeps carry their derivative at second order too.
#[test]
fn filter_map_hessian_against_a_formula() {
    // Σ ln v over the positive items, and the product of the first two when positive.
    #[differentiable]
    fn logs(x: &[f64]) -> f64 {
        let product = (x[0] > 0.0).then_some(x[0] * x[1]).unwrap_or(0.0);
        x.iter()
            .filter_map(|v| (*v > 0.0).then(|| v.ln()))
            .sum::<f64>()
            + product
    }
    let x = vec![0.5, -1.5, 2.0, 0.25];
    let h = hessian!(at: &x, of: logs);
    assert_hessian(&h, x.len(), |i, j| match (i, j) {
        (0, 1) | (1, 0) => 1.0,
        _ if i == j && x[i] > 0.0 => -1.0 / (x[i] * x[i]),
        _ => 0.0,
    });
    let (v, g) = value_with_gradient!(at: &x, of: logs);
    assert_eq!(v, logs(&x));
    assert_eq!(g, vec![2.0 - 1.5, 0.5, 0.5, 4.0]);
}

/// An `enumerate` after a `filter` numbers the items kept, at second order too.
#[test]
fn enumerate_after_filter_hessian_against_a_formula() {
    // Σ v² (k + 1) over the positive items, k counting them.
    #[differentiable]
    fn weighted(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for (k, v) in x.iter().filter(|v| **v > 0.0).enumerate() {
            s += v * v * (k as f64 + 1.0);
        }
        s
    }
    let x = vec![0.6, -1.5, 2.2, 0.3, 1.7];
    let h = hessian!(at: &x, of: weighted);
    let diagonal = [2.0, 0.0, 4.0, 6.0, 8.0];
    assert_hessian(&h, x.len(), |i, j| if i == j { diagonal[i] } else { 0.0 });
    // 0.36·1 + 4.84·2 + 0.09·3 + 2.89·4
    let (v, g) = value_with_gradient!(at: &x, of: weighted);
    assert_eq!(v, weighted(&x));
    assert!((v - (0.36 + 9.68 + 0.27 + 11.56)).abs() < 1e-12, "{v}");
    let expected = [1.2, 0.0, 8.8, 1.8, 13.6];
    for (k, (gk, ek)) in g.iter().zip(expected).enumerate() {
        assert!((gk - ek).abs() < 1e-12, "d/dx{k} {gk} vs {ek}");
    }
}

/// Two `enumerate`s around a `filter`: the loop's item is `(counter, (index, value))`,
/// integers joined with the value at second order.
#[test]
fn enumerate_filter_enumerate_hessian_against_a_formula() {
    // Σ v² (10 i + j) over the items after the first, i their index, j counting them.
    #[differentiable]
    fn numbered_twice(x: &[f64]) -> f64 {
        x.iter()
            .enumerate()
            .filter(|(i, _)| *i > 0)
            .enumerate()
            .map(|(j, (i, v))| v * v * (i * 10 + j) as f64)
            .sum::<f64>()
    }
    let x = vec![0.3, -0.5, 0.8, 1.2];
    let h = hessian!(at: &x, of: numbered_twice);
    let diagonal = [0.0, 20.0, 42.0, 64.0];
    assert_hessian(&h, x.len(), |i, j| if i == j { diagonal[i] } else { 0.0 });
    let (v, g) = value_with_gradient!(at: &x, of: numbered_twice);
    assert_eq!(v, numbered_twice(&x));
    let expected = [0.0, -10.0, 0.8 * 42.0, 1.2 * 64.0];
    for (k, (gk, ek)) in g.iter().zip(expected).enumerate() {
        assert!((gk - ek).abs() < 1e-12, "d/dx{k} {gk} vs {ek}");
    }
}

/// `last`, `nth` and `next` keep one item, at second order too.
#[test]
fn last_nth_next_hessian_against_a_formula() {
    // x3² x2 + exp(x1) at this point.
    #[differentiable]
    fn picked(x: &[f64]) -> f64 {
        let a = x.iter().map(|v| v * v).last().unwrap();
        let b = x.iter().copied().filter(|v| *v > 0.0).nth(1).unwrap_or(0.0);
        let c = x.iter().skip(1).map(|v| v.exp()).next().unwrap();
        a * b + c
    }
    let x = vec![0.3, -0.5, 0.8, 1.2];
    let h = hessian!(at: &x, of: picked);
    assert_hessian(&h, x.len(), |i, j| match (i, j) {
        (1, 1) => (-0.5f64).exp(),
        (2, 3) | (3, 2) => 2.0 * 1.2,
        (3, 3) => 2.0 * 0.8,
        _ => 0.0,
    });
    let (v, g) = value_with_gradient!(at: &x, of: picked);
    assert_eq!(v, picked(&x));
    let expected = [0.0, (-0.5f64).exp(), 1.2 * 1.2, 2.0 * 1.2 * 0.8];
    for (k, (gk, ek)) in g.iter().zip(expected).enumerate() {
        assert!((gk - ek).abs() < 1e-12, "d/dx{k} {gk} vs {ek}");
    }
}

/// The Hessian `h` is `n` by `n` and each entry equals `expected(i, j)` exactly.
fn assert_hessian(h: &[Vec<f64>], n: usize, expected: impl Fn(usize, usize) -> f64) {
    assert_eq!(h.len(), n, "rows");
    for (i, row) in h.iter().enumerate() {
        assert_eq!(row.len(), n, "row {i}");
        for (j, hij) in row.iter().enumerate() {
            assert_eq!(*hij, expected(i, j), "h[{i}][{j}]");
        }
    }
}
