//! End-to-end tests of loops: `for` over ranges (`..`, `..=`, `.rev()`, `.step_by`),
//! `while` with data-dependent trip counts, `loop`/`break`, `continue`, nested loops,
//! loop-carried recurrences, branches, early returns and calls inside loops, generic and
//! `f32` bodies, closures with loops. Every gradient
//! is checked against an analytic formula (or a hand-written forward recurrence) and a
//! central finite difference, for trip counts 0, 1 and many; forward mode must agree
//! with reverse mode.

// The bodies deliberately use both `a = a * b` and `a *= b`: the macro lowers them apart.
#![allow(clippy::assign_op_pattern)]

#[macro_use]
mod common;
use common::{close, fd};
use diff::prelude::*;

// ---------------------------------------------------------------- for over ranges

#[differentiable]
fn power_sum(x: f64, n: usize) -> f64 {
    // Two carried variables (`let mut p = 1.0; ... p = p * x; acc += p;`) hit bug C1.
    let mut acc = 0.5 * x;
    for i in 0..n {
        acc += x.powi(i as i32 + 1);
    }
    acc
}

/// d/dx (x/2 + sum_{k=1..n} x^k)
fn power_sum_d(x: f64, n: usize) -> f64 {
    0.5 + (1..=n)
        .map(|k| k as f64 * x.powi(k as i32 - 1))
        .sum::<f64>()
}

#[test]
fn for_range_trip_counts_0_1_many() {
    for x in [-1.3, 0.0, 0.6, 1.1] {
        for n in [0, 1, 2, 9] {
            check_n!(power_sum, x, n, power_sum_d(x, n));
        }
    }
}

#[differentiable]
fn horner_inclusive(x: f64, n: usize) -> f64 {
    let mut acc = 0.0;
    for i in 1..=n {
        acc = acc * x + (i as f64);
    }
    acc
}

#[differentiable]
fn horner_rev(x: f64, n: usize) -> f64 {
    let mut acc = 0.0;
    for i in (0..n).rev() {
        acc = acc * x + (i as f64 + 1.0).sqrt();
    }
    acc
}

#[differentiable]
fn stepped(x: f64, n: usize) -> f64 {
    let mut acc = x;
    for i in (0..n).step_by(3) {
        acc = acc + x * x * (i as f64);
    }
    acc
}

#[test]
fn for_inclusive_rev_and_step_by() {
    for x in [-0.9, 0.5, 1.4] {
        for n in [0, 1, 6] {
            // sum_{i=1..n} i x^(n-i)
            let e: f64 = (1..=n)
                .filter(|&i| i < n)
                .map(|i| i as f64 * (n - i) as f64 * x.powi((n - i - 1) as i32))
                .sum();
            check_n!(horner_inclusive, x, n, e);
            // sum_{i=0..n} sqrt(i+1) x^i
            let e: f64 = (1..n)
                .map(|i| ((i + 1) as f64).sqrt() * i as f64 * x.powi(i as i32 - 1))
                .sum();
            check_n!(horner_rev, x, n, e);
        }
        for n in [0, 1, 2, 4, 10] {
            let s: usize = (0..n).step_by(3).sum();
            check_n!(stepped, x, n, 1.0 + 2.0 * x * s as f64);
        }
    }
    // ..= with a single trip: 1..=1
    check_n!(horner_inclusive, 0.3, 1, 0.0);
}

// ---------------------------------------------------------------- while / loop

#[differentiable]
fn grow(x: f64, y0: f64) -> f64 {
    let mut y = y0;
    while y < 10.0 {
        y = y * x;
    }
    y
}

#[test]
fn while_trip_count_depends_on_active_value() {
    // Trip count k: y = y0 * x^k.
    for (x, y0, k) in [(2.0, 20.0, 0), (2.0, 6.0, 1), (1.5, 1.0, 6), (3.0, 0.5, 3)] {
        assert!(close(grow(x, y0), y0 * f64::powi(x, k), 1e-15));
        check2!(
            grow,
            x,
            y0,
            (y0 * k as f64 * f64::powi(x, k - 1), f64::powi(x, k))
        );
    }
}

#[differentiable]
fn loop_break(x: f64, n: usize) -> f64 {
    let mut acc = x;
    let mut i = 0;
    loop {
        if i >= n {
            break;
        }
        acc = acc.sin() + x;
        i += 1;
    }
    acc
}

fn loop_break_d(x: f64, n: usize) -> f64 {
    let (mut a, mut d) = (x, 1.0);
    for _ in 0..n {
        d = a.cos() * d + 1.0;
        a = a.sin() + x;
    }
    d
}

#[differentiable]
fn skip_odd(x: f64, n: usize) -> f64 {
    let mut acc = 1.0;
    for i in 0..n {
        if i % 2 == 1 {
            continue;
        }
        acc = acc * x;
        if acc > 1e6 {
            break;
        }
    }
    acc
}

#[test]
fn loop_break_and_continue() {
    for x in [-0.7, 0.3, 1.9] {
        for n in [0, 1, 2, 12] {
            check_n!(loop_break, x, n, loop_break_d(x, n));
            let k = n.div_ceil(2) as i32;
            check_n!(skip_odd, x, n, k as f64 * x.powi(k - 1));
        }
    }
    // The break on `acc > 1e6` fires: 5^k stops at k = 9.
    check_n!(skip_odd, 5.0, 40, 9.0 * 5f64.powi(8));
}

#[differentiable]
fn mandel(x: f64, c: f64) -> f64 {
    let mut z = x;
    let mut i = 0;
    while i < 6 && z * z < 4.0 {
        z = z * z - c;
        i += 1;
    }
    z
}

fn mandel_d(x: f64, c: f64) -> (f64, f64) {
    let (mut z, mut dx, mut dc, mut i) = (x, 1.0, 0.0, 0);
    while i < 6 && z * z < 4.0 {
        dx = 2.0 * z * dx;
        dc = 2.0 * z * dc - 1.0;
        z = z * z - c;
        i += 1;
    }
    (dx, dc)
}

#[test]
fn recurrence_with_data_dependent_exit() {
    for (x, c) in [(0.1, 0.5), (0.5, 1.2), (1.8, 0.3), (0.9, 2.5), (3.0, 1.0)] {
        check2!(mandel, x, c, mandel_d(x, c));
    }
}

// ---------------------------------------------------------------- nested loops

#[differentiable]
fn nested(x: f64, y: f64, n: usize) -> f64 {
    let mut acc = 0.0;
    for i in 0..n {
        let mut row = x;
        for _ in 0..i {
            row = row * y;
        }
        acc = acc + row;
    }
    acc
}

#[differentiable]
fn nested_while_break(x: f64, n: usize) -> f64 {
    let mut acc = x;
    let mut i = 0;
    while i < n {
        let mut j = 0;
        loop {
            j += 1;
            if j > i {
                break;
            }
            if j == 2 {
                continue;
            }
            acc = acc * 0.5 + x;
        }
        i += 1;
    }
    acc
}

#[test]
fn nested_loops() {
    for (x, y) in [(0.5, 0.9), (-1.2, 1.3)] {
        for n in [0usize, 1, 2, 5] {
            // sum_{i<n} x y^i
            let ex: f64 = (0..n).map(|i| y.powi(i as i32)).sum();
            let ey: f64 = (1..n).map(|i| x * i as f64 * y.powi(i as i32 - 1)).sum();
            let (gx, gy) = gradient!(at: (x, y, n), of: nested);
            assert!(
                close(gx, ex, 1e-12) && close(gy, ey, 1e-12),
                "{x} {y} {n}: ({gx}, {gy}) vs ({ex}, {ey})"
            );
            assert!(close(fd(|y| nested(x, y, n), y), ey, 1e-6));
            let (_, df) = value_with_differential!(at: (x, y, n), of: nested);
            let dy = differential!(at: (x, y, n), of: nested)((0.0, 1.0));
            assert!(close(df((1.0, 0.0)), gx, 1e-12) && close(dy, gy, 1e-12));
        }
    }
}

#[differentiable]
fn for_with_inner_loop(x: f64, n: usize) -> f64 {
    let mut acc = x;
    for i in 0..n {
        let mut j = 0;
        loop {
            j += 1;
            if j > i {
                break;
            }
            if j == 2 {
                continue;
            }
            acc = acc * 0.5 + x;
        }
    }
    acc
}

/// m updates of acc -> acc/2 + x, m = sum_{i<n} #{1<=j<=i, j != 2}
fn halving_d(n: usize) -> f64 {
    let m = (0..n)
        .map(|i| (1..=i).filter(|&j| j != 2).count())
        .sum::<usize>() as i32;
    0.5f64.powi(m) + 2.0 * (1.0 - 0.5f64.powi(m))
}

#[test]
fn for_with_inner_loop_break_continue() {
    for x in [-0.4, 2.0] {
        for n in [0usize, 1, 2, 4] {
            check_n!(for_with_inner_loop, x, n, halving_d(n));
        }
    }
}

#[test]
fn nested_while_in_while() {
    for x in [-0.4, 2.0] {
        for n in [0usize, 1, 2, 4] {
            check_n!(nested_while_break, x, n, halving_d(n));
        }
    }
}

// ---------------------------------------------------------------- generic, f32, closures

#[differentiable]
fn generic_loop<T: Float>(x: T, n: usize) -> T {
    let mut acc = x;
    for _ in 0..n {
        if acc > T::one() {
            acc = acc.sqrt();
        } else {
            acc = acc * x;
        }
    }
    acc
}

/// Forward-mode oracle of `generic_loop`.
fn generic_loop_d(x: f64, n: usize) -> f64 {
    let (mut a, mut d) = (x, 1.0);
    for _ in 0..n {
        if a > 1.0 {
            d = 0.5 * d / a.sqrt();
            a = a.sqrt();
        } else {
            d = d * x + a;
            a *= x;
        }
    }
    d
}

#[differentiable]
fn while_f32(x: f32, n: usize) -> f32 {
    let mut acc = x;
    let mut i = 0;
    while i < n {
        acc = acc * x;
        i += 1;
    }
    acc
}

#[test]
fn generic_f32_and_closure_bodies_with_loops() {
    for x in [0.5, 0.95, 1.3, 4.0] {
        for n in [0usize, 1, 2, 7] {
            check_n!(generic_loop, x, n, generic_loop_d(x, n));
            let g = gradient!(at: (x, n), of: generic_loop::<f64>);
            assert!(close(g, generic_loop_d(x, n), 1e-12));
        }
    }
    for (x, n) in [(2.0f32, 0usize), (2.0, 1), (1.5, 4)] {
        let e = (n + 1) as f32 * x.powi(n as i32);
        let g = gradient!(at: (x, n), of: while_f32);
        assert!((g - e).abs() <= 1e-5 * e.abs(), "{x} {n}: {g} vs {e}");
        let (v, df) = value_with_differential!(at: (x, n), of: while_f32);
        assert_eq!(v, while_f32(x, n));
        assert_eq!(df(1.0), g);
    }
    for x in [-0.7, 2.0] {
        let g = gradient!(at: x, of: |x| {
            let mut a = x;
            for _ in 0..2 {
                a = a * x;
            }
            a
        });
        assert!(close(g, 3.0 * x * x, 1e-12));
        let d = first_derivative!(at: x, of: |x| {
            let mut a = x;
            let mut k = 0;
            while k < 2 {
                a = a * x;
                k += 1;
            }
            a
        });
        assert!(close(d, 3.0 * x * x, 1e-12));
    }
}

// ---------------------------------------------------------------- branches, exits and calls in loops

#[differentiable]
fn softplus(x: f64) -> f64 {
    (1.0 + x.exp()).ln()
}

#[differentiable]
fn branch_in_loop(x: f64, y: f64, n: usize) -> f64 {
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

#[test]
fn loop_with_a_branch_and_a_call() {
    for &(x, y) in &[(0.3, 0.7), (-0.4, 1.3), (1.1, -0.2)] {
        let n = 50;
        let (gx, gy) = gradient!(at: (x, y, n), of: branch_in_loop);
        let fx = fd(|x| branch_in_loop(x, y, n), x);
        let fy = fd(|y| branch_in_loop(x, y, n), y);
        assert!(close(gx, fx, 1e-6), "{gx} {fx}");
        assert!(close(gy, fy, 1e-6), "{gy} {fy}");
        let (v, df) = value_with_differential!(at: (x, y, n), of: branch_in_loop);
        assert_eq!(v, branch_in_loop(x, y, n));
        let d = df((0.3, -0.7));
        assert!(close(d, 0.3 * gx - 0.7 * gy, 1e-9), "{d}");
    }
}

#[differentiable]
fn guard(x: f64) -> f64 {
    if x < 0.0 {
        return -x * 2.0;
    }
    let y = x * x;
    if y > 4.0 {
        return y.sqrt() * 3.0;
    }
    y + 1.0
}

#[differentiable]
fn halve_then_accumulate(x: f64) -> f64 {
    let mut y = x;
    let mut k = 0;
    while y > 1.0 {
        y = y * 0.5;
        k += 1;
    }
    let mut acc = 0.0;
    loop {
        acc = acc + y * x;
        k += 1;
        if k > 6 {
            break;
        }
        if k % 2 == 0 {
            continue;
        }
        acc = acc * 1.5;
    }
    acc
}

#[test]
fn early_return_while_loop_break_continue() {
    for x in [-1.5, 0.5, 1.5, 3.0, 7.3] {
        let g = gradient!(at: x, of: guard);
        assert!(close(g, fd(guard, x), 1e-8), "guard {x}: {g}");
        assert_eq!(first_derivative!(at: x, of: guard), g);
        let g = gradient!(at: x, of: halve_then_accumulate);
        let num = fd(halve_then_accumulate, x);
        assert!(
            close(g, num, 1e-6),
            "halve_then_accumulate {x}: {g} vs {num}"
        );
        let d = first_derivative!(at: x, of: halve_then_accumulate);
        assert!(close(g, d, 1e-9));
    }
}

#[differentiable]
fn carried_feeds(x: f64, n: usize) -> f64 {
    let mut p = 1.0;
    let mut acc = 0.0;
    for _ in 0..n {
        p = p * x;
        acc += p;
    }
    acc
}

#[differentiable]
fn nested_while(x: f64) -> f64 {
    let mut i = 0;
    let mut acc = 0.0;
    while i < 3 {
        let mut j = 0;
        while j < 2 {
            acc = acc + x * 0.1;
            j += 1;
        }
        i += 1;
    }
    acc
}

/// A carried value feeding another carried value, and a `while` in a `while` counting on
/// inactive integers.
#[test]
fn carried_value_feeding_another_and_nested_whiles() {
    for x in [0.3, 1.7] {
        let g = gradient!(at: (x, 4), of: carried_feeds);
        let d = first_derivative!(at: x, of: |x| carried_feeds(x, 4));
        let expect = 1.0 + 2.0 * x + 3.0 * x * x + 4.0 * x * x * x;
        assert!(
            close(g, expect, 1e-12) && close(d, expect, 1e-12),
            "{g} {d} {expect}"
        );
        assert!(close(nested_while(x), 6.0 * x * 0.1, 1e-12));
        assert!(close(gradient!(at: x, of: nested_while), 0.6, 1e-12));
    }
}

/// A loop over a range whose length does not fit in a `usize`, stopped early.
#[differentiable]
fn unbounded_inclusive(x: f64) -> f64 {
    let mut y = x;
    for i in 0..=usize::MAX {
        y = y * x;
        if i == 2 {
            break;
        }
    }
    y
}

/// Its tape is reserved for the range's length, which cannot be: a panic that says so
/// (README, "Known limits"), never a wrong value.
#[test]
#[should_panic(expected = "does not fit in a usize")]
fn a_range_longer_than_a_usize_is_refused_at_run_time() {
    assert_eq!(unbounded_inclusive(2.0), 16.0);
    let _ = gradient!(at: 2.0, of: unbounded_inclusive);
}
