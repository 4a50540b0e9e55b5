//! `Option`s of active values: built with `Some(x)`, taken apart with `match`, `if let`,
//! `while let`, `unwrap`, `expect`, `unwrap_or` and `?`, and produced by `Vec::pop`,
//! `first()` and `last()`. Both modes, against formulas and finite differences.

mod common;

use common::{assert_close, assert_vec_close, fd, fd_grad};
use diff::prelude::*;

#[differentiable]
fn matched(x: f64) -> f64 {
    let o = if x > 0.0 { Some(x * 2.0) } else { None };
    match o {
        Some(w) => w * x,
        None => x,
    }
}

#[differentiable]
fn if_let_with_default(x: f64, y: f64) -> f64 {
    let o = if y > x { None } else { Some((x * y, y)) };
    let mut r = 1.0;
    if let Some((p, q)) = o {
        r = p * q;
    }
    let flag = if o.is_some() { 1.0 } else { 0.0 };
    r + flag + o.unwrap_or((0.0, y)).1.sin()
}

#[differentiable]
fn popped_in_a_loop(xs: &[f64]) -> f64 {
    let mut stack = xs.to_vec();
    let mut s = 0.0;
    while let Some(w) = stack.pop() {
        s = s * 0.5 + w * w;
    }
    s
}

#[differentiable]
fn last_two(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    let a = v.pop().unwrap();
    let b = v.pop().expect("two elements");
    let rest: f64 = v.iter().sum();
    a * b + rest
}

#[test]
fn match_and_if_let_on_options() {
    for x in [2.0, -2.0] {
        let (v, d) = value_with_gradient!(at: x, of: matched);
        assert_eq!(v, matched(x));
        assert_close(d, fd(matched, x), 1e-6, "match on Some/None");
        assert_close(first_derivative!(at: x, of: matched), d, 1e-12, "forward");
    }
    for (x, y) in [(1.5, 0.5), (0.5, 1.5)] {
        let (v, (dx, dy)) = value_with_gradient!(at: (x, y), of: if_let_with_default);
        assert_eq!(v, if_let_with_default(x, y));
        assert_close(
            dx,
            fd(|x| if_let_with_default(x, y), x),
            1e-6,
            "d/dx if let",
        );
        assert_close(
            dy,
            fd(|y| if_let_with_default(x, y), y),
            1e-6,
            "d/dy if let",
        );
        let df = differential!(at: (x, y), of: if_let_with_default);
        assert_close(df((1.0, 0.0)), dx, 1e-12, "forward d/dx");
    }
}

#[test]
fn options_from_pop() {
    let xs = vec![1.0, 2.0, 3.0];
    let (v, g) = value_with_gradient!(at: &xs, of: popped_in_a_loop);
    assert_eq!(v, 5.25);
    assert_vec_close(
        &g,
        &[2.0, 2.0, 1.5],
        1e-12,
        "while let Some(w) = stack.pop()",
    );
    let df = differential!(at: &xs, of: popped_in_a_loop);
    assert_close(df(vec![0.0, 0.0, 1.0]), 1.5, 1e-12, "forward");

    let xs = vec![0.5, -1.0, 2.0, 3.0];
    let (v, g) = value_with_gradient!(at: &xs, of: last_two);
    assert_eq!(v, last_two(&xs));
    assert_vec_close(&g, &fd_grad(last_two, &xs), 1e-6, "pop().unwrap()");
}

#[differentiable]
fn ends(xs: &[f64]) -> f64 {
    let a = *xs.last().unwrap();
    let b = xs.first().copied().expect("not empty");
    a * b + xs[1]
}

/// A trajectory extended from its last state, as simulations are written.
#[differentiable]
fn trajectory_end(x0: f64) -> f64 {
    let mut states = vec![x0];
    for i in 0..5 {
        let p = *states.last().unwrap();
        states.push(p * 1.1 + (i as f64) * 0.01 * p * p);
    }
    *states.last().unwrap()
}

#[test]
fn first_and_last_elements() {
    let xs = vec![2.0, 3.0, 5.0];
    assert_eq!(
        value_with_gradient!(at: &xs, of: ends),
        (13.0, vec![5.0, 1.0, 2.0])
    );
    let (v, d) = value_with_gradient!(at: 0.7, of: trajectory_end);
    assert_eq!(v, trajectory_end(0.7));
    assert_close(d, fd(trajectory_end, 0.7), 1e-6, "d/dx0");
    assert_close(
        first_derivative!(at: 0.7, of: trajectory_end),
        d,
        1e-12,
        "forward",
    );
}

/// An end element with a fallback for an empty slice.
#[differentiable]
fn ends_or(xs: &[f64], d: f64) -> f64 {
    let a = xs.last().copied().unwrap_or(d);
    let b: f64 = xs.first().cloned().unwrap_or_default();
    let c = *xs.last().unwrap_or(&d);
    a * c + b
}

/// A stencil reading its neighbours, zero past the ends.
#[differentiable]
fn smoothed(xs: &[f64]) -> f64 {
    let mut total = 0.0;
    for i in 0..xs.len() {
        let left = if i > 0 {
            xs.get(i - 1).copied().unwrap_or(0.0)
        } else {
            0.0
        };
        let right = xs.get(i + 1).copied().unwrap_or(0.0);
        let here = *xs.get(i).unwrap();
        total += (left + 2.0 * here + right).powi(2);
    }
    total
}

#[test]
fn elements_got_by_index_with_a_fallback() {
    let xs = vec![0.5, -1.0, 2.0, 1.5];
    let (v, g) = value_with_gradient!(at: &xs, of: smoothed);
    assert_eq!(v, smoothed(&xs));
    assert_vec_close(&g, &fd_grad(smoothed, &xs), 1e-6, "get(i)");
}

#[test]
fn end_elements_with_a_fallback() {
    let xs = vec![2.0, 3.0, 5.0];
    let (v, (g, gd)) = value_with_gradient!(at: (&xs, 0.5), of: ends_or);
    assert_eq!((v, g, gd), (27.0, vec![1.0, 0.0, 10.0], 0.0));
    let (v, (g, gd)) = value_with_gradient!(at: (&Vec::new(), 0.5), of: ends_or);
    assert_eq!((v, g, gd), (0.25, vec![], 1.0));
    let (v, dd) = value_with_derivative!(at: 0.5, of: |d| ends_or(&[], d));
    assert_eq!((v, dd), (0.25, 1.0));
}

#[test]
#[should_panic(expected = "called `Option::unwrap()` on a `None` value")]
fn last_of_nothing_panics_like_std() {
    let empty: Vec<f64> = Vec::new();
    let _ = gradient!(at: &empty, of: ends);
}

// `match` of an `Option` with guards, `None` arms in any place, and arms binding the
// whole `Option`; `if let` whose body exits the loop.
#[differentiable]
fn largest_sine(xs: &[f64]) -> f64 {
    let mut best: Option<f64> = None;
    for &x in xs {
        best = match best {
            Some(b) if b > x.sin() => Some(b),
            _ => Some(x.sin()),
        };
    }
    best.unwrap_or(0.0)
}

#[differentiable]
fn largest_sine_by_if_let(xs: &[f64]) -> f64 {
    let mut best: Option<f64> = None;
    for &x in xs {
        if let Some(b) = best {
            if b > x.sin() {
                continue;
            }
        }
        best = Some(x.sin());
    }
    match best {
        None => 0.0,
        Some(v) if v > 10.0 => v,
        Some(v) => v * 2.0,
    }
}

#[differentiable]
fn guarded_arms(x: f64, y: f64) -> f64 {
    let o = if y > 0.0 { Some(x * y) } else { None };
    match o {
        None if x > 1.0 => x * x,
        None => x,
        Some(p) if p > 2.0 => p.sqrt(),
        other => other.unwrap() * 3.0,
    }
}

#[test]
fn guards_and_exits_in_option_matches() {
    let xs = vec![0.2, 1.4, 0.7, -0.5];
    let (v, g) = value_with_gradient!(at: xs.clone(), of: |v: Vec<f64>| largest_sine(&v));
    assert_eq!(v, largest_sine(&xs));
    assert_vec_close(&g, &[0.0, 1.4f64.cos(), 0.0, 0.0], 1e-12, "match");
    let (v, g) = value_with_gradient!(at: xs.clone(), of: |v: Vec<f64>| largest_sine_by_if_let(&v));
    assert_eq!(v, largest_sine_by_if_let(&xs));
    assert_vec_close(&g, &[0.0, 2.0 * 1.4f64.cos(), 0.0, 0.0], 1e-12, "if let");
    for (x, y) in [(1.5, -1.0), (0.5, -1.0), (2.0, 3.0), (0.5, 1.0)] {
        let (v, (gx, gy)) = value_with_gradient!(at: (x, y), of: guarded_arms);
        assert_eq!(v, guarded_arms(x, y));
        assert_close(gx, fd(|x| guarded_arms(x, y), x), 1e-7, "x");
        assert_close(gy, fd(|y| guarded_arms(x, y), y), 1e-7, "y");
        let dx = first_derivative!(at: x, of: |x| guarded_arms(x, y));
        assert_close(dx, gx, 1e-12, "forward");
    }
}

/// A differentiable function returning an `Option` of a float, used by another.
#[differentiable]
fn safe_sqrt(x: f64) -> Option<f64> {
    if x >= 0.0 {
        Some(x.sqrt())
    } else {
        None
    }
}

#[differentiable]
#[allow(clippy::manual_unwrap_or)]
fn uses_safe_sqrt(x: f64) -> f64 {
    let inner = match safe_sqrt(x - 10.0) {
        Some(v) => v,
        None => 1.0,
    };
    safe_sqrt(x).unwrap_or(0.0) * x + inner
}

#[test]
fn a_function_returning_an_option() {
    for x in [4.0, 12.0] {
        let (v, g) = value_with_gradient!(at: x, of: uses_safe_sqrt);
        assert_eq!(v, uses_safe_sqrt(x));
        assert_close(g, fd(uses_safe_sqrt, x), 1e-6, "reverse vs fd");
        assert_close(
            first_derivative!(at: x, of: uses_safe_sqrt),
            g,
            1e-12,
            "forward",
        );
        let h = second_derivative!(at: x, of: uses_safe_sqrt);
        let dd = fd(|t| gradient!(at: t, of: uses_safe_sqrt), x);
        assert_close(h, dd, 1e-6, "second vs fd of the gradient");
    }
    // The pullback of the Option itself: a seed `Some(1.0)` gives d sqrt(x) / dx.
    let (y, pb) = value_with_pullback!(at: 4.0, of: safe_sqrt);
    assert_eq!(y, Some(2.0));
    assert_close(pb(Some(1.0)), 0.25, 1e-15, "pullback");
}

/// `.map(|p| ..)` on the `Option` a search or a lookup gives, then `unwrap_or`,
/// `unwrap_or_else`, `map_or`, `map_or_else`, `expect`: the closure's body is
/// differentiated where the value is present.
#[differentiable]
fn first_large_squared(x: &[f64]) -> f64 {
    x.iter()
        .position(|&v| v > 1.0)
        .map(|i| x[i] * x[i])
        .unwrap_or(0.0)
}

#[differentiable]
fn mapped_options(x: &[f64], d: f64) -> f64 {
    let tail = x.last().map_or(d, |v| v.sin());
    let negative = x
        .iter()
        .rposition(|v| *v < 0.0)
        .map_or_else(|| d * d, |k| x[k] * 3.0);
    let second = x.get(1).map(|t| t * d).unwrap_or_else(|| d);
    let largest = x
        .iter()
        .copied()
        .max_by(f64::total_cmp)
        .map(|m| m.exp())
        .expect("not empty");
    tail + negative + second + largest
}

#[test]
fn options_mapped_by_closures() {
    let x = [0.5, 1.5, -0.3, 2.0];
    assert_close(first_large_squared(&x), 2.25, 1e-15, "value");
    let g = gradient!(at: &x, of: first_large_squared);
    assert_vec_close(&g, &[0.0, 3.0, 0.0, 0.0], 1e-12, "gradient");
    let none = gradient!(at: &[0.5, 0.2], of: first_large_squared);
    assert_vec_close(&none, &[0.0, 0.0], 1e-12, "none found");

    let d = 0.7;
    let (value, (gx, gd)) = value_with_gradient!(at: (&x, d), of: mapped_options);
    let by_hand = 2.0f64.sin() - 0.9 + 1.5 * d + 2.0f64.exp();
    assert_close(value, by_hand, 1e-14, "value");
    // sin(x3) + 3 x2 + x1 d + exp(x3).
    let by_hand = [0.0, d, 3.0, 2.0f64.cos() + 2.0f64.exp()];
    assert_vec_close(&gx, &by_hand, 1e-12, "d/dx");
    assert_close(gd, x[1], 1e-12, "d/dd");
    let fd_x = fd_grad(|v| mapped_options(v, d), &x);
    assert_vec_close(&gx, &fd_x, 1e-6, "finite differences");
    let forward = first_derivative!(at: d, of: |t| mapped_options(&x, t));
    assert_close(forward, gd, 1e-12, "forward");
    let h = hessian!(at: x.to_vec(), of: |v: Vec<f64>| mapped_options(&v, d));
    assert_close(h[3][3], -(2.0f64.sin()) + 2.0f64.exp(), 1e-12, "second");
    assert_close(h[0][1], 0.0, 1e-12, "mixed");
}

// ---------------------------------------------------------------- `Option` parameters

/// A layer's optional activation: a parameter whose type is not Differentiable
/// (`Option<Act>`, `Option<usize>`) stays out of the derivative by itself.
#[derive(Clone, Copy, Debug)]
enum Act {
    Relu,
    Tanh,
}

/// `Option<f64>` is Differentiable: a parameter of that type is differentiated too.
#[differentiable]
fn capped(x: f64, cap: Option<f64>, act: Option<Act>, repeat: Option<usize>) -> f64 {
    let y = match act {
        Some(Act::Relu) => x.max(0.0),
        Some(Act::Tanh) => x.tanh(),
        None => x,
    };
    let z = match cap {
        Some(c) => y * c + c.sin(),
        None => y * y,
    };
    z * repeat.unwrap_or(1) as f64
}

/// An optional vector of weights, read through a reference in a loop (`match &w`,
/// `if let Some(v) = &w` bind references to the payload).
#[differentiable]
fn weighted(xs: &[f64], w: Option<Vec<f64>>) -> f64 {
    let mut s = 0.0;
    for i in 0..xs.len() {
        let wi = match &w {
            Some(v) => v[i],
            None => 1.0,
        };
        let bias = if let Some(v) = &w { v[0] * 0.5 } else { 0.0 };
        s += wi * xs[i] * xs[i] + bias;
    }
    s
}

/// Settings held by reference: not Differentiable.
struct Settings {
    scale: f64,
}

/// An `Option` of a reference (`Option<&Settings>`, `Option<&[f64]>`) stays out of the
/// derivative, as the reference alone would.
#[differentiable]
fn with_settings(x: f64, s: Option<&Settings>, prior: Option<&[f64]>) -> f64 {
    let k = match s {
        Some(s) => s.scale,
        None => 1.0,
    };
    let p = match prior {
        Some(p) => p.iter().sum::<f64>(),
        None => 0.0,
    };
    k * x * x + p * x
}

#[differentiable]
fn calls_with_options(x: f64) -> f64 {
    capped(x, Some(2.0 * x), Some(Act::Tanh), Some(3))
        + capped(x, None, None, None)
        + weighted(&[x, 2.0 * x], Some(vec![x, 1.0]))
}

#[test]
fn option_parameters_are_differentiated() {
    for cap in [None, Some(0.7)] {
        for act in [None, Some(Act::Relu), Some(Act::Tanh)] {
            let x = 0.4;
            let (v, (dx, dcap)) = value_with_gradient!(at: (x, cap, act, Some(2)), of: capped);
            assert_eq!(v, capped(x, cap, act, Some(2)));
            assert_close(dx, fd(|x| capped(x, cap, act, Some(2)), x), 1e-8, "d/dx");
            match cap {
                Some(c) => {
                    let num = fd(|c| capped(x, Some(c), act, Some(2)), c);
                    assert_close(dcap.unwrap(), num, 1e-8, "d/dcap");
                }
                None => assert_eq!(dcap, None),
            }
            let d = first_derivative!(at: x, of: |x| capped(x, cap, act, None));
            assert_close(d, fd(|x| capped(x, cap, act, None), x), 1e-8, "forward");
        }
    }
    let (gx, gw) = gradient!(
        at: (vec![1.0, 2.0], Some(vec![3.0, 4.0])),
        of: |x: Vec<f64>, w| weighted(&x, w)
    );
    // d/dx_i = 2 w_i x_i; d/dw_0 = x_0^2 + n / 2, d/dw_1 = x_1^2.
    assert_vec_close(&gx, &[6.0, 16.0], 1e-12, "d/dx");
    assert_vec_close(&gw.unwrap(), &[2.0, 4.0], 1e-12, "d/dw");
    let (_, gw) = gradient!(at: (vec![1.0, 2.0], None), of: |x: Vec<f64>, w| weighted(&x, w));
    assert_eq!(gw, None);
    let (s, prior) = (Settings { scale: 3.0 }, vec![1.0, 2.0]);
    let g = gradient!(at: (2.0, Some(&s), Some(&prior[..])), of: with_settings);
    assert_eq!(g, 15.0);
    let g = gradient!(at: 2.0, of: |x| with_settings(x, None, None));
    assert_eq!(g, 4.0);
}

#[test]
fn option_arguments_inside_bodies_at_first_and_second_order() {
    let x = 0.3;
    let g = gradient!(at: x, of: calls_with_options);
    assert_close(g, fd(calls_with_options, x), 1e-7, "reverse");
    assert_close(
        first_derivative!(at: x, of: calls_with_options),
        g,
        1e-12,
        "forward",
    );
    let (v, d, dd) = value_with_second_derivative!(at: x, of: calls_with_options);
    assert_eq!(v, calls_with_options(x));
    assert_close(d, g, 1e-12, "first");
    assert_close(
        dd,
        fd(|x| gradient!(at: x, of: calls_with_options), x),
        1e-6,
        "second",
    );
}

#[differentiable]
fn log_of_positive(x: f64) -> Option<f64> {
    if x > 0.0 {
        Some(x.ln())
    } else {
        None
    }
}

/// `?` as a statement, in a `let`, deep in an expression, and inside a loop.
#[differentiable]
fn tried(v: &[f64]) -> Option<f64> {
    let a = v.first()?;
    let b = *v.get(1)?;
    let mut s = 0.0;
    for x in v {
        let w = log_of_positive(x + 1.0)?;
        s += w * a;
    }
    log_of_positive(b)?;
    Some(s * b + log_of_positive(a + 1.0)? * log_of_positive(b * b + 1.0)?)
}

/// `return None` inside a loop, without `?`.
#[differentiable]
fn first_negative_squared(v: &[f64]) -> Option<f64> {
    for &x in v {
        if x < 0.0 {
            return Some(x * x);
        }
    }
    None
}

#[differentiable]
fn tried_or(v: &[f64]) -> f64 {
    tried(v).unwrap_or(-1.0)
}

#[differentiable]
fn first_negative_squared_or(v: &[f64]) -> f64 {
    first_negative_squared(v).unwrap_or(0.0)
}

#[test]
fn question_mark_on_options() {
    let (f, g) = (tried_or, first_negative_squared_or);
    for x in [
        vec![1.0, 2.0, 3.0],
        vec![0.5, 1.5],
        vec![1.0, -2.5, 3.0],
        vec![1.0, 0.5, -1.5],
        vec![1.0],
    ] {
        let (value, grad) = value_with_gradient!(at: &x[..], of: tried_or);
        assert_eq!(value, f(&x));
        assert_vec_close(&grad, &fd_grad(f, &x), 1e-6, "?");
        let h = hessian!(at: &x[..], of: tried_or);
        for (i, row) in h.iter().enumerate() {
            let column = fd_grad(|v| gradient!(at: v, of: tried_or)[i], &x);
            assert_vec_close(row, &column, 1e-5, "hessian of ?");
        }
        let (value, grad) = value_with_gradient!(at: &x[..], of: first_negative_squared_or);
        assert_eq!(value, g(&x));
        assert_vec_close(&grad, &fd_grad(g, &x), 1e-6, "return None in a loop");
    }
}

// ---------------------------------------------------------------------------------------
// `let mut prev: Option<f64> = None;` carried through a loop keeps its declared type: a
// method called on its payload (`(x - p).powi(2)`) needs it.

#[differentiable]
fn total_variation(xs: &[f64]) -> f64 {
    let mut e = 0.0;
    let mut prev: Option<f64> = None;
    for &x in xs {
        if let Some(p) = prev {
            e += (x - p).powi(2);
        }
        prev = Some(x);
    }
    e
}

#[differentiable]
fn closest_pair(xs: &[f64]) -> f64 {
    let mut best: Option<(f64, f64)> = None;
    for i in 1..xs.len() {
        let d = (xs[i] - xs[i - 1]).abs();
        best = match best {
            Some((bd, bv)) if bd <= d => Some((bd, bv)),
            _ => Some((d, xs[i] * xs[i - 1])),
        };
    }
    best.map(|(_, v)| v).unwrap_or(0.0)
}

#[test]
fn declared_options_carried_through_loops() {
    let xs = vec![1.0, 3.0, 2.0];
    let (v, g) = value_with_gradient!(at: &xs, of: total_variation);
    assert_eq!((v, g), (total_variation(&xs), vec![-4.0, 6.0, -2.0]));
    let h = hessian!(at: &xs, of: total_variation);
    assert_eq!(
        h,
        vec![
            vec![2.0, -2.0, 0.0],
            vec![-2.0, 4.0, -2.0],
            vec![0.0, -2.0, 2.0]
        ]
    );
    // The closest neighbours are 3 and 2: v = x1 x2.
    let (v, g) = value_with_gradient!(at: &xs, of: closest_pair);
    assert_eq!((v, g), (closest_pair(&xs), vec![0.0, 2.0, 3.0]));
}

// `match z { Some(z) => .. *z .. }` with `z` an item of a slice of `Option`s: the binding
// is a reference to the payload, as Rust's default binding mode makes it.
#[differentiable]
fn sum_present(k: f64, zs: &[Option<f64>]) -> f64 {
    let mut total = 0.0;
    for z in zs {
        match z {
            Some(z) => total += k * k * *z,
            None => total += 0.0,
        }
        if let Some(w) = z {
            total += w.powi(2) * k;
        }
    }
    total
}

#[test]
fn options_matched_through_a_reference() {
    let zs = vec![Some(1.0), None, Some(2.5)];
    // f = 3.5 k² + 7.25 k.
    let k = 2.0;
    let (v, d) = value_with_derivative!(at: k, of: |k: f64| sum_present(k, &zs));
    assert_eq!(v, sum_present(k, &zs));
    assert_close(d, 7.0 * k + 7.25, 1e-14, "d/dk");
    assert_eq!(gradient!(at: k, of: |k: f64| sum_present(k, &zs)), d);
    assert_close(
        second_derivative!(at: k, of: |k: f64| sum_present(k, &zs)),
        7.0,
        1e-14,
        "d²/dk²",
    );
}
