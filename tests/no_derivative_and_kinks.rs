//! Stop-gradient (`no_derivative`, JAX's `stop_gradient` tests), derivatives at kinks
//! (PyTorch's and JAX's documented conventions for `abs`, `max`, `relu` at ties), and the
//! value returned by every operator being the original function's, bit for bit.
//!
//! Conventions checked here (the ones diff implements, pinned so that a change is seen):
//! - `x.abs()` at `x = 0` (either sign): derivative 0 (PyTorch and JAX: 0).
//! - `x.max(y)` / `x.min(y)` at a tie `x == y`: the whole derivative goes to the receiver
//!   `x`, none to `y` (JAX splits 1/2-1/2; PyTorch's `maximum` also splits). So
//!   `x.max(0.0)` (relu) has derivative 1 at 0, while `0.0f64.max(x)` has 0.
//! - `x.clamp(lo, hi)` at a bound: derivative 1 (the bound counts as inside).
//! - `if x > c { .. } else { .. }` at `x == c`: the derivative of the branch taken.
//!
//! Forward and reverse mode agree at every kink.
#![allow(clippy::assign_op_pattern, clippy::needless_range_loop)]

mod common;
use common::{assert_close, assert_close32, assert_vec_close, fd_grad, fd_step};
use diff::prelude::*;

// ------------------------------------------------------------------ no_derivative

#[differentiable]
fn half_stopped(x: f64) -> f64 {
    x * no_derivative(x)
}

#[differentiable]
fn fully_stopped(x: f64, y: f64) -> f64 {
    no_derivative(x * y).powi(2) + y
}

/// A TD-style loss: the target is treated as a constant (JAX's stop_gradient example).
#[differentiable]
fn td_loss(w: f64, s: f64, s_next: f64, r: f64) -> f64 {
    let v = w * s;
    let target = r + 0.9 * no_derivative(w * s_next);
    let e = target - v;
    e * e
}

/// Straight-through estimator: the value is rounded, the derivative is the identity's.
#[differentiable]
fn straight_through_round(x: f64) -> f64 {
    x + no_derivative(x.round() - x)
}

/// Stopping inside a loop cuts only the stopped path.
#[differentiable]
fn stopped_in_loop(x: f64) -> f64 {
    let mut acc = x;
    for i in 0..4 {
        if i % 2 == 0 {
            acc = acc * no_derivative(acc);
        } else {
            acc = acc * x;
        }
    }
    acc
}

#[derive(Differentiable, Clone, Debug)]
struct Pair {
    a: f64,
    b: f64,
}

#[differentiable]
fn stop_a_field(p: &Pair) -> f64 {
    no_derivative(p.a) * p.b + p.a
}

#[test]
fn no_derivative_cuts_exactly_the_wrapped_path() {
    for x in [-1.5, 0.3, 2.0] {
        // d/dx x·sg(x) = sg(x) = x (not 2x).
        let (v, g) = value_with_gradient!(at: x, of: half_stopped);
        assert_eq!(v, x * x);
        assert_eq!(g, x);
        assert_eq!(first_derivative!(at: x, of: half_stopped), x);

        let (gx, gy) = gradient!(at: (x, 0.7), of: fully_stopped);
        assert_eq!((gx, gy), (0.0, 1.0));
        let df = differential!(at: (x, 0.7), of: fully_stopped);
        assert_eq!(df((1.0, 1.0)), 1.0);

        // Closure literal.
        assert_eq!(
            gradient!(at: x, of: |t| no_derivative(t).sin() * t),
            x.sin()
        );
    }

    let (w, s, s_next, r) = (0.5, 2.0, 3.0, 1.0);
    let e = r + 0.9 * w * s_next - w * s;
    let (gw, gs, gsn, gr) = gradient!(at: (w, s, s_next, r), of: td_loss);
    assert_close(gw, -2.0 * e * s, 1e-15, "td dw");
    assert_close(gs, -2.0 * e * w, 1e-15, "td ds");
    assert_eq!(gsn, 0.0, "td d s_next is cut");
    assert_close(gr, 2.0 * e, 1e-15, "td dr");

    for x in [0.2, 1.7, -2.4] {
        let (v, g) = value_with_gradient!(at: x, of: straight_through_round);
        assert_eq!(v, x.round());
        assert_eq!(g, 1.0);
        assert_eq!(first_derivative!(at: x, of: straight_through_round), 1.0);
    }

    // acc: x -> x·sg(x) -> ·x -> ·sg -> ·x. With c_k the values, d = product of the
    // non-stopped factors: acc4 = x^2 · x^2 ... by hand: a1 = x·sg(x) (d1 = x),
    // a2 = a1 x (d2 = d1 x + a1), a3 = a2 sg(a2) (d3 = d2 a2), a4 = a3 x (d4 = d3 x + a3).
    for x in [0.5, 1.3] {
        let a1 = x * x;
        let d1 = x;
        let a2 = a1 * x;
        let d2 = d1 * x + a1;
        let a3 = a2 * a2;
        let d3 = d2 * a2;
        let d4 = d3 * x + a3;
        assert_close(gradient!(at: x, of: stopped_in_loop), d4, 1e-14, "loop rev");
        assert_close(
            first_derivative!(at: x, of: stopped_in_loop),
            d4,
            1e-14,
            "loop fwd",
        );
    }

    let p = Pair { a: 2.0, b: -3.0 };
    let t = gradient!(at: &p, of: stop_a_field);
    assert_eq!((t.a, t.b), (1.0, 2.0));
}

#[differentiable]
fn stop_half<T: Float>(p: &[T]) -> T {
    p[0] * no_derivative(p[0])
}

#[test]
fn hessian_respects_no_derivative() {
    // The gradient of x * sg(x) is sg(x), a constant for AD, so the Hessian is 0 (JAX's
    // stop_gradient gives the same).
    let p = vec![3.0f64];
    let h = hessian!(at: &p, of: stop_half);
    assert_eq!(h, vec![vec![0.0]]);
    assert_eq!(gradient!(at: &p, of: stop_half), vec![3.0]);
    assert_eq!(stop_half(&[3.0]), 9.0);
}

// ------------------------------------------------------------------ kinks

#[differentiable]
fn abs_of(x: f64) -> f64 {
    x.abs()
}

#[differentiable]
fn max_of(x: f64, y: f64) -> f64 {
    x.max(y)
}

#[differentiable]
fn min_of(x: f64, y: f64) -> f64 {
    x.min(y)
}

#[differentiable]
fn relu_recv(x: f64) -> f64 {
    x.max(0.0)
}

#[differentiable]
fn relu_arg(x: f64) -> f64 {
    0.0f64.max(x)
}

#[differentiable]
fn clamp_unit(x: f64) -> f64 {
    x.clamp(-1.0, 1.0)
}

#[differentiable]
fn step_branch(x: f64) -> f64 {
    if x > 1.0 {
        3.0 * x
    } else {
        x * x
    }
}

#[differentiable]
fn max_fold(x: &[f64]) -> f64 {
    let mut m = x[0];
    for i in 1..x.len() {
        m = m.max(x[i]);
    }
    m
}

#[test]
fn abs_at_zero_is_zero() {
    for x in [0.0, -0.0] {
        assert_eq!(gradient!(at: x, of: abs_of), 0.0);
        assert_eq!(first_derivative!(at: x, of: abs_of), 0.0);
    }
    for x in [-2.0, -1e-300, 1e-300, 3.0] {
        assert_eq!(gradient!(at: x, of: abs_of), x.signum());
        assert_eq!(first_derivative!(at: x, of: abs_of), x.signum());
    }
}

#[test]
fn max_and_min_ties_go_to_the_receiver() {
    for (x, y) in [(1.0, 1.0), (0.0, -0.0), (-0.0, 0.0), (-2.5, -2.5)] {
        assert_eq!(gradient!(at: (x, y), of: max_of), (1.0, 0.0));
        assert_eq!(gradient!(at: (x, y), of: min_of), (1.0, 0.0));
        let fwd = |dx: (f64, f64)| differential!(at: (x, y), of: max_of)(dx);
        assert_eq!((fwd((1.0, 0.0)), fwd((0.0, 1.0))), (1.0, 0.0));
        let fwd = |dx: (f64, f64)| differential!(at: (x, y), of: min_of)(dx);
        assert_eq!((fwd((1.0, 0.0)), fwd((0.0, 1.0))), (1.0, 0.0));
        // Whatever the split, it is a subgradient: the parts sum to 1.
        let (a, b) = gradient!(at: (x, y), of: max_of);
        assert_eq!(a + b, 1.0);
    }
    // Away from ties, the larger (smaller) argument gets it all.
    assert_eq!(gradient!(at: (1.0, 2.0), of: max_of), (0.0, 1.0));
    assert_eq!(gradient!(at: (1.0, 2.0), of: min_of), (1.0, 0.0));

    // relu written both ways: receiver first wins at 0.
    assert_eq!(gradient!(at: 0.0, of: relu_recv), 1.0);
    assert_eq!(first_derivative!(at: 0.0, of: relu_recv), 1.0);
    assert_eq!(gradient!(at: 0.0, of: relu_arg), 0.0);
    assert_eq!(first_derivative!(at: 0.0, of: relu_arg), 0.0);

    // A running max over ties: m = m.max(x[i]) keeps the receiver, i.e. the first of
    // the tied maxima.
    let g = gradient!(at: &[1.0, 3.0, 3.0, 2.0][..], of: max_fold);
    assert_eq!(g, vec![0.0, 1.0, 0.0, 0.0]);
}

#[test]
fn clamp_and_branch_boundaries() {
    for (x, e) in [(-2.0, 0.0), (-1.0, 1.0), (0.3, 1.0), (1.0, 1.0), (1.5, 0.0)] {
        assert_eq!(gradient!(at: x, of: clamp_unit), e, "clamp at {x}");
        assert_eq!(
            first_derivative!(at: x, of: clamp_unit),
            e,
            "clamp fwd at {x}"
        );
    }
    // At x == 1 the else branch (x^2) is taken: derivative 2, not 3.
    assert_eq!(gradient!(at: 1.0, of: step_branch), 2.0);
    assert_eq!(first_derivative!(at: 1.0, of: step_branch), 2.0);
    assert_eq!(gradient!(at: 1.0 + 1e-12, of: step_branch), 3.0);
}

// ------------------------------------------------------------------ values unchanged

#[differentiable]
fn messy(x: f64, y: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..7 {
        let t = (x * i as f64 + y).sin() / (1.0 + x * x);
        s += t.exp().ln_1p() * y.hypot(x) - (i as f64).sqrt() * x.atan2(y);
    }
    s.tanh() * x.powf(1.3) + y.mul_add(x, 0.1)
}

#[differentiable]
fn messy_vec(v: &[f64]) -> f64 {
    v.iter()
        .enumerate()
        .map(|(i, a)| (a * (i as f64 + 1.0)).cos())
        .sum::<f64>()
        * v.iter().fold(1.0, |p, a| p * (1.0 + a * a)).ln()
}

#[test]
fn every_operator_returns_the_original_value_bit_for_bit() {
    for (x, y) in [(0.7, -1.2), (2.3, 0.4), (1e-3, 5.0)] {
        let v = messy(x, y);
        assert_eq!(value_with_gradient!(at: (x, y), of: messy).0, v);
        assert_eq!(value_with_pullback!(at: (x, y), of: messy).0, v);
        assert_eq!(value_with_differential!(at: (x, y), of: messy).0, v);
        assert_eq!(
            value_with_derivative!(at: x, of: |t| messy(t, y)).0,
            messy(x, y)
        );
        // And the derivative agrees across modes and with finite differences.
        let (gx, gy) = gradient!(at: (x, y), of: messy);
        let df = |d: (f64, f64)| differential!(at: (x, y), of: messy)(d);
        assert_close(df((1.0, 0.0)), gx, 1e-12, "messy fwd dx");
        assert_close(df((0.0, 1.0)), gy, 1e-12, "messy fwd dy");
        // A step relative to x: messy is defined for x > 0 only (x.powf(1.3)).
        assert_close(
            gx,
            fd_step(|t| messy(t, y), x, 1e-3 * x),
            1e-7,
            "messy fd dx",
        );
    }
    let w = vec![0.1, -0.4, 0.9, 1.6];
    let (v, g) = value_with_gradient!(at: &w, of: messy_vec);
    assert_eq!(v, messy_vec(&w));
    assert_vec_close(&g, &fd_grad(messy_vec, &w), 1e-7, "messy_vec fd");
    // The original function is still a plain fn item.
    let f: fn(f64, f64) -> f64 = messy;
    assert_eq!(f(0.7, -1.2), messy(0.7, -1.2));
}

// ------------------------------------------------------------------ f32

#[differentiable]
fn f32_mix(x: f32, y: f32) -> f32 {
    (x * y).sin() + x.abs().max(y) * no_derivative(y)
}

#[test]
fn f32_kinks_and_stops() {
    for (x, y) in [(0.5f32, 0.25f32), (-1.5, 2.0), (2.0, 2.0)] {
        let (v, (gx, gy)) = value_with_gradient!(at: (x, y), of: f32_mix);
        assert_eq!(v, f32_mix(x, y));
        let (ex, ey) = if x.abs() >= y {
            ((x * y).cos() * y + x.signum() * y, (x * y).cos() * x)
        } else {
            ((x * y).cos() * y, (x * y).cos() * x + y)
        };
        assert_close32(gx, ex, 1e-5, "f32_mix dx");
        assert_close32(gy, ey, 1e-5, "f32_mix dy");
    }
}

/// A function with no derivative, called inside `no_derivative(..)` on a value that
/// carries one (as the error for calling it outside suggests).
fn lookup_rate(x: f64) -> f64 {
    if x < 1.0 {
        0.5
    } else {
        0.25 + 0.1 * x
    }
}

#[differentiable]
fn with_a_plain_helper(x: f64) -> f64 {
    no_derivative(lookup_rate(x)) * x * x + x.copysign(-1.0) * 3.0
}

#[test]
fn a_plain_function_inside_no_derivative_in_every_mode() {
    let x = 1.5;
    let r = lookup_rate(x);
    assert_eq!(
        value_with_gradient!(at: x, of: with_a_plain_helper),
        (with_a_plain_helper(x), 2.0 * r * x - 3.0)
    );
    assert_eq!(
        first_derivative!(at: x, of: with_a_plain_helper),
        2.0 * r * x - 3.0
    );
    assert_eq!(second_derivative!(at: x, of: with_a_plain_helper), 2.0 * r);
}

// ------------------------------------------------------------------ Euclidean remainder

/// An angle wrapped into `[0, 2π)` with `rem_euclid`, and the number of turns from
/// `div_euclid` (piecewise constant: no derivative).
#[differentiable]
fn wrapped(theta: f64, k: f64) -> f64 {
    let tau = std::f64::consts::TAU;
    let phase = (k * theta).rem_euclid(tau);
    let turns = (k * theta).div_euclid(tau);
    phase * phase + turns * theta + (-theta).rem_euclid(k)
}

#[test]
fn rem_euclid_and_div_euclid() {
    let tau = std::f64::consts::TAU;
    // k θ = 9.1: one turn; -θ = -3.5 wrapped by k = 2.6: -3.5 + 2 * 2.6 = 1.7.
    let (theta, k): (f64, f64) = (3.5, 2.6);
    let phase = (k * theta).rem_euclid(tau);
    let turns = (k * theta).div_euclid(tau);
    assert_eq!(turns, 1.0);
    let (gt, gk) = gradient!(at: (theta, k), of: wrapped);
    assert_close(gt, 2.0 * phase * k + turns - 1.0, 1e-12, "d/dtheta");
    // d/dk of (-θ).rem_euclid(k) = -q for -θ = q k + r: q = -2.
    assert_close(gk, 2.0 * phase * theta + 2.0, 1e-12, "d/dk");
    assert_close(
        first_derivative!(at: theta, of: |t| wrapped(t, k)),
        gt,
        1e-12,
        "forward",
    );
    assert_close(
        second_derivative!(at: theta, of: |t| wrapped(t, k)),
        2.0 * k * k,
        1e-12,
        "second",
    );
    assert_eq!(
        value_with_gradient!(at: (theta, k), of: wrapped).0,
        wrapped(theta, k)
    );
}

/// A plain function of the crate returning indices (`Vec<usize>`) called with values
/// that carry a derivative: its result carries none, so the call is primal code, as one
/// returning an integer is.
fn ranking(x: &[f64]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..x.len()).collect();
    idx.sort_by(|&a, &b| x[a].partial_cmp(&x[b]).unwrap());
    idx
}

#[differentiable]
fn weighted_by_rank(x: &[f64]) -> f64 {
    let idx = ranking(x);
    let mut s = 0.0;
    for (r, &i) in idx.iter().enumerate() {
        s += (r as f64 + 1.0) * x[i];
    }
    s
}

#[test]
fn a_plain_function_returning_indices() {
    let x = vec![0.3, 2.0, 0.1];
    let (v, g) = value_with_gradient!(at: &x, of: weighted_by_rank);
    assert_eq!((v, g), (weighted_by_rank(&x), vec![2.0, 3.0, 1.0]));
}
