//! Edition 2024: reference parameters, registrations taking references (an `impl` type
//! captures every lifetime by default in this edition), methods, `impl` blocks and the
//! operators, each checked against a formula or finite differences.
// Written as users write them: index loops and `&Vec` parameters included.
#![allow(clippy::needless_range_loop, clippy::ptr_arg)]
use diff::prelude::*;

fn fd(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    let h = 1e-5;
    (f(x + h) - f(x - h)) / (2.0 * h)
}

fn close(a: f64, b: f64, tol: f64) {
    assert!((a - b).abs() <= tol * (1.0 + b.abs()), "{a} vs {b}");
}

fn sum_sq(v: &[f64]) -> f64 {
    v.iter().map(|x| x * x).sum()
}

/// A registration taking a reference: its pullback must not capture the borrow.
#[derivative(of = sum_sq)]
fn sum_sq_vjp(v: &[f64]) -> (f64, impl FnOnce(f64) -> Vec<f64>) {
    let g: Vec<f64> = v.iter().map(|x| 2.0 * x).collect();
    (sum_sq(v), move |dy| {
        g.into_iter().map(|gi| gi * dy).collect()
    })
}

fn soft(x: f64) -> f64 {
    (1.0 + x.exp()).ln()
}

#[derivative(of = soft)]
fn soft_vjp(x: f64) -> (f64, impl FnOnce(f64) -> f64) {
    let s = 1.0 / (1.0 + (-x).exp());
    (soft(x), move |dy| dy * s)
}

#[differentiable]
fn objective(p: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..p.len() {
        s += soft(p[i]) * p[i];
    }
    s + sum_sq(p)
}

fn objective_plain(p: &[f64]) -> f64 {
    let mut s = 0.0;
    for x in p {
        s += soft(*x) * x;
    }
    s + sum_sq(p)
}

#[test]
fn reference_parameters_and_registrations() {
    let x = vec![0.5, -1.0, 2.0];
    let (v, g) = value_with_gradient!(at: &x, of: objective);
    assert_eq!(v, objective(&x));
    for i in 0..x.len() {
        let slope = fd(
            |t| {
                let mut p = x.clone();
                p[i] = t;
                objective_plain(&p)
            },
            x[i],
        );
        close(g[i], slope, 1e-7);
    }
}

#[differentiable]
fn total(xs: &Vec<f64>) -> f64 {
    let mut t = 0.0;
    for x in xs.iter() {
        t += x * x * x;
    }
    t
}

#[test]
fn vec_by_reference() {
    let x = vec![1.0, 2.0];
    let (v, g) = value_with_gradient!(at: &x, of: total);
    assert_eq!(v, 9.0);
    assert_eq!(g, vec![3.0, 12.0]);
}

#[derive(Clone, Copy, Debug, Differentiable)]
struct B {
    k: f64,
}

#[differentiable]
impl B {
    #[differentiable]
    fn make(k: f64) -> B {
        B { k: k * k }
    }

    #[differentiable]
    fn apply(&self, t: f64) -> f64 {
        (self.k * t).sin()
    }
}

#[differentiable]
fn through_methods(k: f64) -> f64 {
    B::make(k).apply(0.5)
}

#[test]
fn impl_blocks_and_methods() {
    let k = 0.8;
    let (v, d) = value_with_gradient!(at: k, of: through_methods);
    assert_eq!(v, through_methods(k));
    close(v, (k * k * 0.5).sin(), 1e-15);
    // d/dk sin(k^2 / 2) = k cos(k^2 / 2).
    close(d, k * (k * k * 0.5).cos(), 1e-12);
    let forward = first_derivative!(at: k, of: through_methods);
    close(forward, d, 1e-12);
}

#[test]
fn closures_and_forward_mode() {
    let d = gradient!(at: 2.0_f64, of: |x| x * x * x);
    assert_eq!(d, 12.0);
    let slope = first_derivative!(at: 0.3, of: soft);
    close(slope, 1.0 / (1.0 + (-0.3f64).exp()), 1e-12);
}

// The constructs added later, in this edition too: Options, selections, array maps, a
// nested operator, `#[no_derivative]` fields.

#[differentiable]
fn cubic<T: Float>(x: T) -> T {
    x * x * x
}

#[derive(Differentiable, Clone, Debug)]
struct Spring {
    k: f64,
    #[no_derivative]
    steps: usize,
}

#[differentiable]
fn later_constructs(xs: &[f64], s: &Spring) -> f64 {
    let mut stack = xs.to_vec();
    let mut acc = 0.0;
    while let Some(w) = stack.pop() {
        acc = acc * 0.5 + w * w;
    }
    let top = *xs.iter().max_by(|a, b| a.total_cmp(b)).unwrap();
    let sq = [xs[0], xs[1]].map(|a| a * a);
    let curvature = first_derivative!(at: xs[0], of: |t| gradient!(at: t, of: cubic));
    acc + top + sq[1] + curvature + s.k * s.steps as f64
}

#[test]
fn later_constructs_in_edition_2024() {
    let xs = vec![0.5, 2.0, -1.0];
    let s = Spring { k: 1.5, steps: 3 };
    let (v, (g, gs)) = value_with_gradient!(at: (&xs, &s), of: later_constructs);
    close(v, later_constructs(&xs, &s), 1e-12);
    for i in 0..3 {
        let f = |t: f64| {
            let mut p = xs.clone();
            p[i] = t;
            later_constructs(&p, &s)
        };
        close(g[i], fd(f, xs[i]), 1e-6);
    }
    close(gs.k, 3.0, 1e-12);
}

fn norm(v: &[f64]) -> f64 {
    v.iter().map(|x| x * x).sum::<f64>().sqrt()
}

/// A registration whose pullback borrows its argument, as this edition lets it without
/// saying so: the pullback runs the registration again, on a copy.
#[derivative(of = norm)]
fn norm_vjp(v: &[f64]) -> (f64, impl FnOnce(f64) -> Vec<f64>) {
    let n = norm(v);
    (n, move |dy| v.iter().map(|x| dy * x / n).collect())
}

#[differentiable]
fn scaled_norm(v: &[f64], k: f64) -> f64 {
    k * norm(v)
}

#[test]
fn a_registration_whose_pullback_borrows_the_argument() {
    let x = vec![3.0, -4.0, 12.0];
    let (v, (g, gk)) = value_with_gradient!(at: (&x, 2.0), of: scaled_norm);
    close(v, 26.0, 1e-15);
    close(gk, 13.0, 1e-15);
    for (i, gi) in g.iter().enumerate() {
        close(*gi, 2.0 * x[i] / 13.0, 1e-15);
    }
    // The pullback of the registered function itself, and forward mode derived from it.
    let pb = pullback!(at: &x, of: norm);
    let d = pb(1.0);
    close(d[2], 12.0 / 13.0, 1e-15);
    let df = differential!(at: &x, of: norm);
    close(df(vec![1.0, 0.0, 0.0]), 3.0 / 13.0, 1e-15);
}

// Mutual recursion over a borrowed slice (the boxed linear maps must not borrow it),
// let-else and destructuring assignment, in this edition.
#[differentiable]
fn even_terms(xs: &[f64], i: usize) -> f64 {
    let Some(&x) = xs.get(i) else { return 0.0 };
    x.sin() + odd_terms(xs, i + 1)
}

#[differentiable]
fn odd_terms(xs: &[f64], i: usize) -> f64 {
    if i >= xs.len() {
        return 0.0;
    }
    let (mut a, mut b) = (xs[i], 1.0);
    (a, b) = (a * b, a + b);
    a * b + even_terms(xs, i + 1)
}

#[test]
fn mutual_recursion_let_else_and_destructuring() {
    let xs = vec![0.3, 0.5, -0.2, 0.9];
    let (v, g) = value_with_gradient!(at: (&xs, 0), of: even_terms);
    assert_eq!(v, even_terms(&xs, 0));
    for (i, g) in g.iter().enumerate() {
        let want = if i % 2 == 0 {
            xs[i].cos()
        } else {
            2.0 * xs[i] + 1.0
        };
        close(*g, want, 1e-12);
    }
    let d = first_derivative!(at: 0.5, of: |t| even_terms(&[0.3, t], 0));
    close(d, 2.0, 1e-12);
}

#[differentiable]
fn weighted_cube(w: &[f64], t: f64) -> f64 {
    w[0] * t * t * t + w[1] * t
}

/// A nested operator whose closure reads a reference parameter and a field.
#[differentiable]
fn slope_penalty(w: &[f64], s: &Spring, x: f64) -> f64 {
    let d = first_derivative!(at: x, of: |t: f64| weighted_cube(w, t) * s.k);
    d * d
}

#[test]
fn nested_operators_reading_the_body_in_edition_2024() {
    let w = vec![0.5, 2.0];
    let s = Spring { k: 1.5, steps: 3 };
    let by_hand = |w0: f64, w1: f64, k: f64, x: f64| {
        let d = (3.0 * w0 * x * x + w1) * k;
        d * d
    };
    let (v, (gw, gs, gx)) = value_with_gradient!(at: (&w, &s, 0.7), of: slope_penalty);
    close(v, by_hand(0.5, 2.0, 1.5, 0.7), 1e-12);
    close(gw[0], fd(|a| by_hand(a, 2.0, 1.5, 0.7), 0.5), 1e-6);
    close(gw[1], fd(|b| by_hand(0.5, b, 1.5, 0.7), 2.0), 1e-6);
    close(gs.k, fd(|k| by_hand(0.5, 2.0, k, 0.7), 1.5), 1e-6);
    close(gx, fd(|x| by_hand(0.5, 2.0, 1.5, x), 0.7), 1e-6);
}

// ---------------------------------------------------------------------------------------
// Let chains (edition 2024): `if let .. && ..`, `while let .. && ..`, in both modes and at
// second order.

#[differentiable]
fn let_chain(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        if let Some(&next) = x.get(i + 1)
            && next > x[i]
        {
            s += next * x[i];
        } else if let Some(&prev) = x.get(i.wrapping_sub(1))
            && let true = prev > 0.0
            && i % 2 == 0
        {
            s += prev * x[i] * x[i];
        } else {
            s += x[i].sin();
        }
    }
    s
}

#[differentiable]
fn while_let_chain(x: &[f64]) -> f64 {
    let mut stack = x.to_vec();
    let mut s = 0.0;
    while let Some(v) = stack.pop()
        && v > 0.5
    {
        s += v * v;
    }
    s
}

#[test]
fn let_chains() {
    let x = vec![1.0, 2.0, 0.5, 0.25, 3.0];
    let (v, g) = value_with_gradient!(at: &x, of: let_chain);
    assert_eq!(v, let_chain(&x));
    for k in 0..x.len() {
        let at = |t: f64| {
            let mut y = x.clone();
            y[k] = t;
            let_chain(&y)
        };
        close(g[k], fd(at, x[k]), 1e-6);
    }
    let d = first_derivative!(at: 0.0, of: |t: f64| {
        let y: Vec<f64> = x.iter().map(|v| v + t).collect();
        let_chain(&y)
    });
    close(d, g.iter().sum(), 1e-12);
    let h = hessian!(at: &x, of: let_chain);
    let h4 = fd(
        |t: f64| {
            let mut y = x.clone();
            y[4] = t;
            gradient!(at: &y, of: let_chain)[4]
        },
        x[4],
    );
    close(h[4][4], h4, 1e-5);

    // Popped from the back: 3 (kept), 0.25 (stops).
    let (v, g) = value_with_gradient!(at: &x, of: while_let_chain);
    assert_eq!(v, 9.0);
    assert_eq!(g, vec![0.0, 0.0, 0.0, 0.0, 6.0]);
}
