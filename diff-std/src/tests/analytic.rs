//! sin, exp, ln, powf, atan2 and hypot against their derivatives written out by hand.

use super::harness::{close, of, to, TestFloat};
use crate::prelude::*;

/// Checks `rule(x) ≈ formula(x)` (both as `f64` arrays) at every point, in `T`.
fn against<T: TestFloat, const N: usize>(
    name: &str,
    points: &[[f64; N]],
    rule: impl Fn([T; N]) -> [Option<T>; N],
    formula: impl Fn([f64; N]) -> [f64; N],
) {
    // Both sides are the same formula up to rounding: much tighter than finite differences.
    let tol = if T::NAME == "f64" { 1e-13 } else { 1e-6 };
    for p in points {
        let x: [T; N] = p.map(of);
        let got = rule(x).map(|d| to(d.expect("a smooth rule gives Some")));
        let want = formula(x.map(to));
        for i in 0..N {
            assert!(
                close(got[i], want[i], tol),
                "{name}{p:?} in {}: d/dx{i} = {}, formula {}",
                T::NAME,
                got[i],
                want[i]
            );
        }
    }
}

fn all<T: TestFloat>() {
    let line = [[-2.0], [-0.4], [0.0], [0.9], [3.1]];
    against::<T, 1>(
        "sin",
        &line,
        |[x]| [x.__vjp_sin().1(T::one()).0],
        |[x]| [x.cos()],
    );
    against::<T, 1>(
        "exp",
        &line,
        |[x]| [x.__vjp_exp().1(T::one()).0],
        |[x]| [x.exp()],
    );
    let positive = [[0.01], [0.5], [1.0], [4.2], [250.0]];
    against::<T, 1>(
        "ln",
        &positive,
        |[x]| [x.__vjp_ln().1(T::one()).0],
        |[x]| [1.0 / x],
    );
    let powers = [[0.5, 3.0], [2.0, -0.5], [1.3, 1.7], [9.0, 0.5]];
    against::<T, 2>(
        "powf",
        &powers,
        |[x, e]| {
            let (dx, de) = x.__vjp_powf(e).1(T::one());
            [dx, de]
        },
        |[x, e]| [e * x.powf(e - 1.0), x.powf(e) * x.ln()],
    );
    let plane = [[1.0, 2.0], [-3.0, 0.5], [0.2, -0.1], [-1.0, -1.0]];
    against::<T, 2>(
        "atan2",
        &plane,
        |[a, b]| {
            let (da, db) = a.__vjp_atan2(b).1(T::one());
            [da, db]
        },
        |[a, b]| [b / (a * a + b * b), -a / (a * a + b * b)],
    );
    against::<T, 2>(
        "hypot",
        &plane,
        |[a, b]| {
            let (da, db) = a.__vjp_hypot(b).1(T::one());
            [da, db]
        },
        |[a, b]| [a / (a * a + b * b).sqrt(), b / (a * a + b * b).sqrt()],
    );
}

#[test]
fn analytic_f64() {
    all::<f64>();
}

#[test]
fn analytic_f32() {
    all::<f32>();
}
