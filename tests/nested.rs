//! Operators nested in differentiated code: `first_derivative!` of a closure calling
//! `gradient!` or `first_derivative!`, and differentiable functions whose body calls an
//! operator (a gradient penalty), in both modes, against formulas and finite differences.
//! The inner function runs on dual numbers: generic over `T: Float`, a closure, or
//! written for `f64` (through its dual companion), as for `hessian!`.

mod common;

use common::{assert_close, assert_vec_close, fd, fd_grad};
use diff::prelude::*;

#[differentiable]
fn cubic<T: Float>(x: T) -> T {
    x * x * x + x.sin()
}

#[differentiable]
fn energy<T: Float>(p: &[T]) -> T {
    p[0] * p[0] * p[1] + p[1].exp() + p[0] * p[1].sin()
}

/// A loss with a gradient penalty: `f(p) + λ |∇f(p)|²`.
#[differentiable]
fn penalized(p: &[f64], lambda: f64) -> f64 {
    let g = gradient!(at: p, of: energy);
    let mut norm = 0.0;
    for gi in g.iter() {
        norm += gi * gi;
    }
    energy(p) + lambda * norm
}

/// The same, with the penalty's value computed by hand, as an oracle.
fn penalized_by_hand(p: &[f64], lambda: f64) -> f64 {
    let (x, y) = (p[0], p[1]);
    let g = [2.0 * x * y + y.sin(), x * x + y.exp() + x * y.cos()];
    energy(p) + lambda * (g[0] * g[0] + g[1] * g[1])
}

#[differentiable]
fn slope_squared(x: f64) -> f64 {
    let s = first_derivative!(at: x, of: cubic);
    s * s
}

#[test]
fn derivative_of_a_gradient() {
    for x in [-0.7, 0.0, 2.0] {
        let d2 = first_derivative!(at: x, of: |t| gradient!(at: t, of: cubic));
        assert_close(d2, 6.0 * x - x.sin(), 1e-12, "d/dx gradient");
        let d2 = first_derivative!(at: x, of: |t| first_derivative!(at: t, of: cubic));
        assert_close(d2, 6.0 * x - x.sin(), 1e-12, "d/dx first_derivative");
        let d2 = gradient!(at: x, of: |t| gradient!(at: t, of: cubic));
        assert_close(d2, 6.0 * x - x.sin(), 1e-12, "reverse over reverse");
    }
}

#[test]
fn gradient_penalty() {
    let p = vec![0.8, -0.3];
    let (v, (g, dl)) = value_with_gradient!(at: (&p, 0.5), of: penalized);
    assert_close(v, penalized_by_hand(&p, 0.5), 1e-12, "value");
    assert_vec_close(
        &g,
        &fd_grad(|q| penalized_by_hand(q, 0.5), &p),
        1e-6,
        "d/dp",
    );
    assert_close(dl, fd(|l| penalized_by_hand(&p, l), 0.5), 1e-6, "d/dlambda");
    let df = differential!(at: (&p, 0.5), of: penalized);
    let along = df((vec![1.0, 0.0], 0.0));
    assert_close(along, g[0], 1e-10, "forward d/dp0");

    let (v, d) = value_with_gradient!(at: 1.3, of: slope_squared);
    let s = 3.0 * 1.69 + 1.3f64.cos();
    assert_close(v, s * s, 1e-12, "value");
    assert_close(
        d,
        2.0 * s * (6.0 * 1.3 - 1.3f64.sin()),
        1e-12,
        "d/dx slope^2",
    );
    assert_close(
        first_derivative!(at: 1.3, of: slope_squared),
        d,
        1e-12,
        "forward",
    );
}

#[test]
fn third_derivative_by_nesting_twice() {
    for x in [-0.7, 0.4, 2.0] {
        let d3 = first_derivative!(at: x, of: |t| first_derivative!(at: t, of: |u| gradient!(at: u, of: cubic)));
        assert_close(d3, 6.0 - x.cos(), 1e-12, "f'''");
    }
}

/// A function of two scalars, written for `f64`.
#[differentiable]
fn bowl(x: f64, y: f64) -> f64 {
    x * x * y + y.sin() * x.exp()
}

/// A gradient of several inputs in a body: `|∇bowl(x, y)|²`.
#[differentiable]
fn steepness(x: f64, y: f64) -> f64 {
    let (gx, gy) = gradient!(at: (x, y), of: bowl);
    gx * gx + gy * gy
}

/// `∇bowl` by hand.
fn bowl_gradient(x: f64, y: f64) -> (f64, f64) {
    (2.0 * x * y + y.sin() * x.exp(), x * x + y.cos() * x.exp())
}

#[test]
fn gradient_of_several_inputs_nested() {
    let (x, y) = (0.4, 2.0);
    // d/dx of ∂bowl/∂x at (x, 2): the mixed partials from the formula, by differences.
    let dxx = first_derivative!(at: x, of: |t| gradient!(at: (t, 2.0), of: bowl).0);
    assert_close(dxx, fd(|t| bowl_gradient(t, y).0, x), 1e-6, "d/dx ∂x bowl");
    let dyx = first_derivative!(at: x, of: |t| gradient!(at: (t, y), of: bowl).1);
    assert_close(dyx, 2.0 * x + y.cos() * x.exp(), 1e-12, "d/dx ∂y bowl");
    // Both modes through a body calling gradient! with a pair.
    let by_hand = |x: f64, y: f64| {
        let (a, b) = bowl_gradient(x, y);
        a * a + b * b
    };
    let (v, (sx, sy)) = value_with_gradient!(at: (x, y), of: steepness);
    assert_close(v, by_hand(x, y), 1e-12, "value");
    assert_close(sx, fd(|t| by_hand(t, y), x), 1e-6, "d steepness / dx");
    assert_close(sy, fd(|t| by_hand(x, t), y), 1e-6, "d steepness / dy");
    let df = differential!(at: (x, y), of: steepness);
    assert_close(df((0.0, 1.0)), sy, 1e-12, "forward d/dy");
}

/// `value_with_gradient!` and `value_with_derivative!` in a body: the value and the
/// derivative both carry derivatives of their own.
#[differentiable]
fn values_with_derivatives(x: f64) -> f64 {
    let (v, (gx, gy)) = value_with_gradient!(at: (x, 2.0), of: bowl);
    let (w, d) = value_with_derivative!(at: x * 2.0, of: |t: f64| t.sin() * t);
    v * gx + w * d + gy
}

fn values_with_derivatives_by_hand(x: f64) -> f64 {
    let (gx, gy) = bowl_gradient(x, 2.0);
    let t = x * 2.0;
    bowl(x, 2.0) * gx + (t.sin() * t) * (t.cos() * t + t.sin()) + gy
}

#[test]
fn value_with_gradient_and_value_with_derivative_nested() {
    for x in [-0.7, 0.4, 1.3] {
        let (v, g) = value_with_gradient!(at: x, of: values_with_derivatives);
        assert_close(v, values_with_derivatives_by_hand(x), 1e-12, "value");
        assert_eq!(v, values_with_derivatives(x));
        assert_close(
            g,
            fd(values_with_derivatives_by_hand, x),
            1e-6,
            "reverse vs fd",
        );
        let d = first_derivative!(at: x, of: values_with_derivatives);
        assert_close(d, g, 1e-12, "forward vs reverse");
    }
}

/// Written for `f64` only, with a loop: nested, it runs through its dual companion.
#[differentiable]
fn power_loop(x: f64) -> f64 {
    let mut y = x;
    for _ in 0..3 {
        y *= x;
    }
    y + x.exp()
}

/// A body calling `first_derivative!` of a function written for `f64`.
#[differentiable]
fn slope_of_power(t: f64) -> f64 {
    let d = first_derivative!(at: t, of: power_loop);
    d * d + t
}

#[test]
fn derivatives_of_derivatives_of_a_function_written_for_f64() {
    let x: f64 = 1.3;
    let second = |x: f64| 12.0 * x * x + x.exp();
    let d2 = first_derivative!(at: x, of: |t| first_derivative!(at: t, of: power_loop));
    assert_close(d2, second(x), 1e-12, "forward over forward");
    let d2 = first_derivative!(at: x, of: |t| gradient!(at: t, of: power_loop));
    assert_close(d2, second(x), 1e-12, "forward over reverse");
    // Through closures calling it: (u p(u))'' = 2 p'(u) + u p''(u).
    let want = 2.0 * (4.0 * x.powi(3) + x.exp()) + x * second(x);
    let d2 = first_derivative!(at: x, of: |t| first_derivative!(at: t, of: |u| u * power_loop(u)));
    assert_close(d2, want, 1e-12, "forward over forward, of a closure");
    let d2 = first_derivative!(at: x, of: |t| gradient!(at: t, of: |u| u * power_loop(u)));
    assert_close(d2, want, 1e-12, "forward over reverse, of a closure");
    // d/dt (p'(t)^2 + t) = 2 p'(t) p''(t) + 1
    let slope = 4.0 * x.powi(3) + x.exp();
    let want = 2.0 * slope * second(x) + 1.0;
    assert_close(gradient!(at: x, of: slope_of_power), want, 1e-10, "reverse");
    assert_close(
        first_derivative!(at: x, of: slope_of_power),
        want,
        1e-10,
        "forward",
    );
}

/// A function of one tuple parameter: a nested `gradient!(at: (a, b), ..)` gives it the
/// pair as its one input (as the operators outside a body do), and returns the pair's
/// tangent.
#[differentiable]
fn pair_product(p: (f64, f64)) -> f64 {
    p.0 * p.0 * p.1
}

#[differentiable]
fn pair_penalty(x: f64) -> f64 {
    let g = gradient!(at: (x, 2.0 * x), of: pair_product);
    g.0 * g.0 + g.1
}

#[differentiable]
fn pair_penalty_of_a_closure(x: f64) -> f64 {
    let g = gradient!(at: (x, 2.0 * x), of: |p: (f64, f64)| p.0 * p.0 * p.1);
    g.0 * g.0 + g.1
}

#[test]
fn nested_gradient_of_a_function_of_one_tuple() {
    let x = 0.9f64;
    // The gradient (2 a b, a^2) at (x, 2x) is (4x^2, x^2): 16 x^4 + x^2.
    let (value, slope) = (16.0 * x.powi(4) + x * x, 64.0 * x.powi(3) + 2.0 * x);
    for f in [pair_penalty as fn(f64) -> f64, pair_penalty_of_a_closure] {
        assert_close(f(x), value, 1e-12, "value");
        assert_close(fd(f, x), slope, 1e-6, "finite differences");
    }
    assert_close(gradient!(at: x, of: pair_penalty), slope, 1e-12, "reverse");
    assert_close(
        first_derivative!(at: x, of: pair_penalty),
        slope,
        1e-12,
        "forward",
    );
    assert_close(
        gradient!(at: x, of: pair_penalty_of_a_closure),
        slope,
        1e-12,
        "reverse, closure",
    );
    assert_close(
        second_derivative!(at: x, of: |t| pair_product((t, 3.0))),
        6.0,
        1e-12,
        "second",
    );
}

#[differentiable]
fn cubic_pair(v: Vec<f64>) -> f64 {
    v[0] * v[0] * v[1]
}

#[test]
fn a_nested_gradient_at_a_vec_built_in_the_closure() {
    // g(t) = d/dv1 of v0² v1 at (t, 2t) = t², so g'(t) = 2t; the point is kept for the
    // derivative after the nested operator is given it.
    let d = first_derivative!(at: 0.4, of: |t: f64| {
        let g = gradient!(at: vec![t, 2.0 * t], of: cubic_pair);
        g[1]
    });
    assert!((d - 0.8).abs() < 1e-12, "{d}");
    let (v, d) = value_with_derivative!(at: 0.4, of: |t: f64| gradient!(at: (t, 2.0 * t), of: |a: f64, b: f64| a * a * b).1);
    assert!(
        (v - 0.16).abs() < 1e-12 && (d - 0.8).abs() < 1e-12,
        "{v} {d}"
    );
}

// Closures reading the body's variables: the operator is differentiated in them too (a
// column of the closure's Hessian in its parameters and those variables together).

/// A critic of weights `w` at a point `t`, written for `f64` with a loop.
#[differentiable]
fn critic(w: &[f64], t: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..t.len() {
        s += (w[i] * t[i]).sin() * t[i] + w[i] * w[i] * t[i];
    }
    s
}

/// `|∇ₜ critic(w, t)|` at `x`, times `λ`: the closure reads the parameter `w` (a
/// reference), a local constant and an integer parameter.
#[differentiable]
fn critic_penalty(w: &[f64], x: &[f64], k: usize) -> f64 {
    let lambda = 0.5;
    let g = gradient!(at: x.to_vec(), of: |t: Vec<f64>| critic(w, &t) * lambda + k as f64);
    let n: f64 = g.iter().map(|v| v * v).sum();
    n.sqrt()
}

/// The same with the inner gradient written by hand, as an oracle.
fn critic_penalty_by_hand(w: &[f64], x: &[f64]) -> f64 {
    let g = (0..x.len()).map(|i| {
        let (a, t) = (w[i], x[i]);
        0.5 * ((a * t).cos() * a * t + (a * t).sin() + a * a)
    });
    g.map(|v| v * v).sum::<f64>().sqrt()
}

#[test]
fn a_closure_reading_a_parameter_is_differentiated_in_it() {
    let (w, x) = (vec![0.3, -0.7, 0.2], vec![1.1, 0.4, -0.3]);
    let (v, (gw, gx)) =
        value_with_gradient!(at: (&w, &x), of: |w: &[f64], x: &[f64]| critic_penalty(w, x, 2));
    assert_close(v, critic_penalty_by_hand(&w, &x), 1e-12, "value");
    assert_close(v, critic_penalty(&w, &x, 2), 0.0, "value as the function's");
    let fw = fd_grad(|w| critic_penalty_by_hand(w, &x), &w);
    let fx = fd_grad(|x| critic_penalty_by_hand(&w, x), &x);
    assert_vec_close(&gw, &fw, 1e-6, "d/dw");
    assert_vec_close(&gx, &fx, 1e-6, "d/dx");
    let df = differential!(at: (&w, &x, 2), of: critic_penalty);
    let along = df((vec![1.0, 0.0, 0.0], vec![0.0, 0.0, 0.0]));
    assert_close(along, gw[0], 1e-10, "forward d/dw0");
}

/// A closure whose parameter is named like a variable of the body it shadows, reading
/// another variable.
#[differentiable]
fn shadowed(a: f64, t: f64) -> f64 {
    let d = first_derivative!(at: 0.7, of: |t: f64| (a * t).sin() * t);
    d * t
}

#[test]
fn a_closure_parameter_shadows_the_body_s_variable() {
    let by_hand = |a: f64, t: f64| ((a * 0.7).cos() * a * 0.7 + (a * 0.7).sin()) * t;
    let (v, (ga, gt)) = value_with_gradient!(at: (1.3, 0.4), of: shadowed);
    assert_close(v, by_hand(1.3, 0.4), 1e-12, "value");
    assert_close(ga, fd(|a| by_hand(a, 0.4), 1.3), 1e-6, "d/da");
    assert_close(gt, by_hand(1.3, 1.0), 1e-12, "d/dt");
    let df = differential!(at: (1.3, 0.4), of: shadowed);
    assert_close(df((1.0, 0.0)), ga, 1e-12, "forward d/da");
}

/// Several inputs, a closure reading a parameter and a loop's local.
#[differentiable]
fn several_in_a_loop(a: f64, b: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..3 {
        let c = i as f64 * 0.1;
        let (gx, gy) = gradient!(at: (a, b), of: |x: f64, y: f64| (x * y * a).exp() * (c + b));
        s += gx * gy;
    }
    s
}

fn several_by_hand(a: f64, b: f64) -> f64 {
    (0..3)
        .map(|i| {
            let c = i as f64 * 0.1;
            let e = (a * b * a).exp() * (c + b);
            (b * a * e) * (a * a * e)
        })
        .sum()
}

#[test]
fn several_inputs_and_captures_in_a_loop() {
    let (v, (ga, gb)) = value_with_gradient!(at: (0.3, 0.5), of: several_in_a_loop);
    assert_close(v, several_by_hand(0.3, 0.5), 1e-12, "value");
    assert_close(ga, fd(|a| several_by_hand(a, 0.5), 0.3), 1e-6, "d/da");
    assert_close(gb, fd(|b| several_by_hand(0.3, b), 0.5), 1e-6, "d/db");
    let df = differential!(at: (0.3, 0.5), of: several_in_a_loop);
    assert_close(df((0.0, 1.0)), gb, 1e-12, "forward d/db");
}

#[derive(Differentiable, Clone, Debug)]
struct Critic {
    w: Vec<f64>,
    b: f64,
}

impl Critic {
    /// The product of the gradient's entries at `x`; the closure reads fields of `self`.
    #[differentiable]
    fn penalty(&self, x: Vec<f64>) -> f64 {
        let g = gradient!(at: x, of: |t: Vec<f64>| self.b * critic(&self.w, &t));
        g[0] * g[1]
    }
}

/// The same as a function; the closure reads fields of a parameter.
#[differentiable]
fn critic_product(m: &Critic, x: Vec<f64>) -> f64 {
    let g = gradient!(at: x, of: |t: Vec<f64>| m.b * critic(&m.w, &t));
    g[0] * g[1]
}

#[test]
fn a_closure_reading_fields_is_differentiated_in_them() {
    let by_hand = |w: &[f64], b: f64, x: &[f64]| {
        let g = |i: usize| {
            let (a, t) = (w[i], x[i]);
            b * ((a * t).cos() * a * t + (a * t).sin() + a * a)
        };
        g(0) * g(1)
    };
    let m = Critic {
        w: vec![0.3, -0.7],
        b: 1.5,
    };
    let x = vec![1.1, 0.4];
    let (v, g) = value_with_gradient!(at: &m, of: |m: &Critic| m.penalty(x.clone()));
    let (v2, g2) = value_with_gradient!(at: &m, of: |m: &Critic| critic_product(m, x.clone()));
    assert_close(v, by_hand(&m.w, m.b, &x), 1e-12, "value");
    assert_close(v2, v, 1e-12, "value");
    let fw = fd_grad(|w| by_hand(w, m.b, &x), &m.w);
    assert_vec_close(&g.w, &fw, 1e-6, "d/dw");
    assert_vec_close(&g2.w, &fw, 1e-6, "d/dw");
    let fb = fd(|b| by_hand(&m.w, b, &x), m.b);
    assert_close(g.b, fb, 1e-6, "d/db");
    assert_close(g2.b, fb, 1e-6, "d/db");
}

#[test]
fn perturbations_are_not_confused() {
    // Siskind and Pearlmutter's example: d/dx (x · d/dy (x + y)) = 1, not 2.
    let d =
        first_derivative!(at: 1.0, of: |x: f64| x * first_derivative!(at: 1.0, of: |y: f64| x + y));
    assert_close(d, 1.0, 0.0, "forward over forward");
    let d = gradient!(at: 1.0, of: |x: f64| x * gradient!(at: 1.0, of: |y: f64| x + y));
    assert_close(d, 1.0, 0.0, "reverse over reverse");
    // d/dx (x · d/dy (x · y)) at y = 2: d/dx x² = 2x.
    let d =
        first_derivative!(at: 3.0, of: |x: f64| x * first_derivative!(at: 2.0, of: |y: f64| x * y));
    assert_close(d, 6.0, 1e-12, "a capture in a product");
}

#[differentiable]
fn squares(t: Vec<f64>) -> f64 {
    t[0] * t[0] + t[1] * t[1]
}

/// `|x|² + |∇|x|²|²` from one nested `value_with_gradient!` whose both parts are read.
#[differentiable]
fn value_plus_gradient_norm(x: Vec<f64>) -> f64 {
    let (v, g) = value_with_gradient!(at: x, of: squares);
    v + g[0] * g[0] + g[1] * g[1]
}

#[test]
fn both_parts_of_a_nested_value_with_gradient_at_a_vec() {
    // 5|x|², gradient 10x.
    let (v, g) = value_with_gradient!(at: vec![0.5, 1.0], of: value_plus_gradient_norm);
    assert_close(v, 5.0 * 1.25, 1e-12, "value");
    assert_vec_close(&g, &[5.0, 10.0], 1e-12, "gradient");
    let d = differential!(at: vec![0.5, 1.0], of: value_plus_gradient_norm)(vec![0.0, 1.0]);
    assert_close(d, 10.0, 1e-12, "forward");
}

/// An inner closure's parameter named like a parameter of the body (`x`), beside reads
/// of the body's `w`.
#[differentiable]
fn weighted_penalty(w: &[f64], x: &[f64]) -> f64 {
    let g = gradient!(at: x.to_vec(), of: |t: Vec<f64>| {
        t.iter().zip(w).map(|(x, wi)| x * x * wi).sum::<f64>()
    });
    g.iter().map(|v| v * v).sum()
}

#[test]
fn an_inner_closure_parameter_named_like_a_body_variable() {
    // g_i = 2 t_i w_i, so the penalty is Σ 4 x_i² w_i².
    let by_hand =
        |w: &[f64], x: &[f64]| -> f64 { w.iter().zip(x).map(|(w, x)| 4.0 * x * x * w * w).sum() };
    let (w, x) = (vec![0.5, -1.5], vec![2.0, 0.25]);
    let (v, (gw, gx)) = value_with_gradient!(at: (&w, &x), of: weighted_penalty);
    assert_close(v, by_hand(&w, &x), 1e-12, "value");
    assert_vec_close(&gw, &fd_grad(|w| by_hand(w, &x), &w), 1e-6, "d/dw");
    assert_vec_close(&gx, &fd_grad(|x| by_hand(&w, x), &x), 1e-6, "d/dx");
}

// ---------------------------------------------------------------------------------------
// A nested operator's closure reading the caller's variables that are not `Copy` (a
// struct holding a `String`, a `Vec`): the outer operator calls its closure once per
// row or column, so they are lent, not moved.

pub struct Weighted {
    pub k: f64,
    pub name: String,
}

impl Weighted {
    #[differentiable]
    pub fn f(&self, q: &[f64]) -> f64 {
        self.k * q[0] * q[0] * q[1]
    }
}

#[test]
fn nested_closures_reading_values_that_are_not_copy() {
    let model = Weighted {
        k: 3.0,
        name: "w".to_string(),
    };
    let w = vec![2.0, 0.5];
    let x = vec![1.0, 2.0];
    let h = jacobian!(at: x.clone(), of: |p: Vec<f64>| gradient!(at: &p, of: |q: &[f64]| model.f(q) * w[0] + q[1] * w.iter().sum::<f64>()));
    // f = 2 k q0² q1 + 2.5 q1: H = 2 k [[2 q1, 2 q0], [2 q0, 0]].
    let k = 2.0 * model.k;
    assert_eq!(
        h,
        vec![
            vec![2.0 * k * x[1], 2.0 * k * x[0]],
            vec![2.0 * k * x[0], 0.0]
        ]
    );
    let d = first_derivative!(at: 2.0, of: |t: f64| gradient!(at: vec![t, 1.0], of: |q: Vec<f64>| model.f(&q) + w[1] * q[0])[0]);
    // d/dq0 = 2 k q0 q1 + 0.5 at (t, 1): its derivative in t is 2 k.
    assert_eq!(d, 2.0 * model.k);
    assert_eq!(model.name, "w");
}

/// A generic function called by its name alone inside a closure nested in another
/// operator (a third derivative, on dual numbers of dual numbers): its scalar is
/// inferred there (num-dual's `foo(x) = x^3` at `x = cos t`).
mod third_order_of_a_generic_callee {
    use super::common::assert_close;
    use diff::prelude::*;

    #[differentiable]
    fn cube<T: Float>(x: T) -> T {
        x.powi(3)
    }

    #[test]
    fn third_derivative_of_cube_of_cos() {
        let f3 =
            second_derivative!(at: 1.0, of: |s| first_derivative!(at: s, of: |t| cube(t.cos())));
        let h = 1e-3;
        let d2 = |t: f64| second_derivative!(at: t, of: |u| cube(u.cos()));
        let fd3 = (d2(1.0 + h) - d2(1.0 - h)) / (2.0 * h);
        assert_close(f3, 1.5836632930100278, 1e-12, "num-dual's value");
        assert_close(f3, fd3, 1e-5, "finite differences of the second derivative");
    }
}

// A nested operator given a reference to a body's `Vec` for a slice parameter.
#[differentiable]
fn sum_sin_sq(x: &[f64]) -> f64 {
    x.iter().map(|v| v.sin().powi(2)).sum()
}

#[test]
fn nested_value_with_gradient_at_a_reference() {
    let x = vec![0.3, -1.1, 2.2];
    let (v, g) = value_with_gradient!(
        at: x.clone(),
        of: |p: Vec<f64>| value_with_gradient!(at: &p, of: sum_sin_sq).0
    );
    assert_eq!(v, sum_sin_sq(&x));
    for (gi, xi) in g.iter().zip(&x) {
        assert_close(*gi, (2.0 * xi).sin(), 1e-14, "d/dx sin² x");
    }
}
