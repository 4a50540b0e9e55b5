//! Classic numerical functions, in the spirit of the derivative tests other AD systems
//! ship (JAX's `check_grads` cases, Enzyme's integration tests, PyTorch's gradcheck
//! cases). Every derivative is compared with an independent oracle: a closed-form
//! formula, or central finite differences of the original function; forward and reverse
//! mode are compared with each other; and the value returned by the `value_with_*`
//! operators is checked to equal the original function's.
#![allow(clippy::assign_op_pattern, clippy::needless_range_loop)]

mod common;
use common::{assert_close, assert_vec_close, fd, fd_grad};
use diff::prelude::*;

// ------------------------------------------------------------------ Rosenbrock N-d

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

fn rosenbrock_grad(x: &[f64]) -> Vec<f64> {
    let n = x.len();
    let mut g = vec![0.0; n];
    for i in 0..n {
        if i + 1 < n {
            g[i] += -400.0 * x[i] * (x[i + 1] - x[i] * x[i]) - 2.0 * (1.0 - x[i]);
        }
        if i > 0 {
            g[i] += 200.0 * (x[i] - x[i - 1] * x[i - 1]);
        }
    }
    g
}

#[test]
fn rosenbrock_nd_gradient_matches_closed_form() {
    for x in [
        vec![-1.2, 1.0],
        vec![0.5, -0.3, 1.7],
        vec![1.0, 1.0, 1.0, 1.0, 1.0],
        vec![0.1, 0.2, -0.7, 1.3, 0.9, -1.1],
    ] {
        let (v, g) = value_with_gradient!(at: &x, of: rosenbrock);
        assert_eq!(v, rosenbrock(&x));
        assert_vec_close(&g, &rosenbrock_grad(&x), 1e-12, "rosenbrock grad");
        assert_vec_close(&g, &fd_grad(rosenbrock, &x), 1e-7, "rosenbrock fd");
    }
    // At the minimum (1, ..., 1) the gradient is exactly zero.
    let ones = [1.0; 4];
    let g = gradient!(at: &ones[..], of: rosenbrock);
    assert_eq!(g, vec![0.0; 4]);
}

// ------------------------------------------------------------------ logsumexp / softmax

/// Max-shifted logsumexp (the numerically stable form used by JAX and PyTorch).
#[differentiable]
fn logsumexp(x: &[f64]) -> f64 {
    let mut m = x[0];
    for i in 1..x.len() {
        m = m.max(x[i]);
    }
    let mut s = 0.0;
    for i in 0..x.len() {
        s += (x[i] - m).exp();
    }
    m + s.ln()
}

/// Same, with the shift cut from the derivative as JAX's `logsumexp` does with
/// `stop_gradient`; the gradient must be the same softmax.
#[differentiable]
fn logsumexp_stopped(x: &[f64]) -> f64 {
    let mut m = x[0];
    for i in 1..x.len() {
        m = m.max(x[i]);
    }
    let m = no_derivative(m);
    let s: f64 = x.iter().map(|v| (v - m).exp()).sum();
    m + s.ln()
}

fn softmax(x: &[f64]) -> Vec<f64> {
    let m = x.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = x.iter().map(|v| (v - m).exp()).collect();
    let z: f64 = e.iter().sum();
    e.iter().map(|v| v / z).collect()
}

#[differentiable]
fn softmax_cross_entropy(logits: &[f64], label: usize) -> f64 {
    logsumexp(logits) - logits[label]
}

#[test]
fn logsumexp_gradient_is_softmax() {
    for x in [
        vec![0.0, 0.0],
        vec![1.0, 2.0, 3.0],
        vec![-3.0, 0.5, 0.25, 10.0],
        vec![1000.0, 1001.0, 999.5], // would overflow without the shift
    ] {
        let (v, g) = value_with_gradient!(at: &x, of: logsumexp);
        assert_eq!(v, logsumexp(&x));
        assert!(v.is_finite());
        assert_vec_close(&g, &softmax(&x), 1e-12, "lse grad");
        let g2 = gradient!(at: &x, of: logsumexp_stopped);
        assert_vec_close(&g2, &softmax(&x), 1e-12, "lse stopped grad");
        assert!((g.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    }
    let x = vec![0.3, -1.2, 2.2];
    assert_vec_close(
        &gradient!(at: &x, of: logsumexp),
        &fd_grad(logsumexp, &x),
        1e-8,
        "lse fd",
    );
}

#[test]
fn softmax_cross_entropy_gradient() {
    let logits = vec![2.0, 1.0, 0.1, -0.5];
    for label in 0..logits.len() {
        let (v, g) = value_with_gradient!(at: (&logits, label), of: softmax_cross_entropy);
        assert_eq!(v, softmax_cross_entropy(&logits, label));
        let mut expect = softmax(&logits);
        expect[label] -= 1.0;
        assert_vec_close(&g, &expect, 1e-12, "xent grad");
    }
}

// ------------------------------------------------------------------ activations

#[differentiable]
fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

#[differentiable]
fn tanh_act(x: f64) -> f64 {
    x.tanh()
}

#[differentiable]
fn relu(x: f64) -> f64 {
    x.max(0.0)
}

#[differentiable]
fn leaky_relu(x: f64) -> f64 {
    x.max(0.01 * x)
}

#[differentiable]
fn softplus(x: f64) -> f64 {
    x.max(0.0) + (-x.abs()).exp().ln_1p()
}

#[test]
fn activations_match_closed_forms() {
    for x in [-3.0, -0.7, -0.1, 0.2, 1.5, 4.0] {
        let s = sigmoid(x);
        let (v, d) = value_with_derivative!(at: x, of: sigmoid);
        assert_eq!(v, s);
        assert_close(d, s * (1.0 - s), 1e-14, "sigmoid fwd");
        assert_close(
            gradient!(at: x, of: sigmoid),
            s * (1.0 - s),
            1e-14,
            "sigmoid rev",
        );

        let t = x.tanh();
        assert_close(
            first_derivative!(at: x, of: tanh_act),
            1.0 - t * t,
            1e-14,
            "tanh fwd",
        );
        assert_close(
            gradient!(at: x, of: tanh_act),
            1.0 - t * t,
            1e-14,
            "tanh rev",
        );

        let r = if x > 0.0 { 1.0 } else { 0.0 };
        assert_eq!(gradient!(at: x, of: relu), r);
        assert_eq!(first_derivative!(at: x, of: relu), r);

        let l = if x > 0.0 { 1.0 } else { 0.01 };
        assert_close(gradient!(at: x, of: leaky_relu), l, 1e-15, "leaky rev");
        assert_close(
            first_derivative!(at: x, of: leaky_relu),
            l,
            1e-15,
            "leaky fwd",
        );

        // softplus' = sigmoid, computed through max, abs and ln_1p.
        assert_close(gradient!(at: x, of: softplus), s, 1e-13, "softplus rev");
        assert_close(
            first_derivative!(at: x, of: softplus),
            s,
            1e-13,
            "softplus fwd",
        );
        assert_close(
            gradient!(at: x, of: softplus),
            fd(softplus, x),
            1e-9,
            "softplus fd",
        );
    }
}

// ------------------------------------------------------------------ Horner

#[differentiable]
fn horner(c: &[f64], x: f64) -> f64 {
    let mut acc = 0.0;
    for i in (0..c.len()).rev() {
        acc = acc * x + c[i];
    }
    acc
}

#[test]
fn horner_polynomial_derivatives() {
    let c = vec![1.0, -2.0, 0.5, 3.0, -0.25];
    for x in [-1.5, 0.0, 0.3, 2.0] {
        let (v, (gc, gx)) = value_with_gradient!(at: (&c, x), of: horner);
        assert_eq!(v, horner(&c, x));
        let dpx: f64 = (1..c.len())
            .map(|i| i as f64 * c[i] * x.powi(i as i32 - 1))
            .sum();
        assert_close(gx, dpx, 1e-13, "horner d/dx");
        let dpc: Vec<f64> = (0..c.len()).map(|i| x.powi(i as i32)).collect();
        assert_vec_close(&gc, &dpc, 1e-13, "horner d/dc");
        let cr = &c;
        let fwd = first_derivative!(at: x, of: |t| horner(cr, t));
        assert_close(fwd, dpx, 1e-13, "horner fwd");
    }
}

// ------------------------------------------------------------------ Newton, Babylonian

/// Cube root of `a` by a fixed number of Newton steps on x^3 - a.
#[differentiable]
fn newton_cbrt(a: f64) -> f64 {
    // Starting from the constant 1.0 does not compile (bugs-ported.md, P1).
    let mut x = a;
    for _ in 0..60 {
        x = x - (x * x * x - a) / (3.0 * x * x);
    }
    x
}

/// Square root by the Babylonian method, iterated until converged (a data-dependent
/// `while`).
#[differentiable]
fn babylonian_sqrt(a: f64) -> f64 {
    let mut x = a;
    let mut k = 0;
    while (x * x - a).abs() > 1e-15 * a && k < 100 {
        x = 0.5 * (x + a / x);
        k += 1;
    }
    x
}

#[test]
fn iterative_solvers_differentiate_to_the_implicit_derivative() {
    for a in [0.5, 2.0, 8.0, 27.0] {
        let (v, d) = value_with_derivative!(at: a, of: newton_cbrt);
        assert_eq!(v, newton_cbrt(a));
        assert_close(v, a.cbrt(), 1e-14, "cbrt value");
        let expect = 1.0 / (3.0 * a.cbrt() * a.cbrt());
        assert_close(d, expect, 1e-12, "newton cbrt fwd");
        assert_close(
            gradient!(at: a, of: newton_cbrt),
            expect,
            1e-12,
            "newton cbrt rev",
        );
    }
    for a in [0.25, 2.0, 9.0, 1e4] {
        let (v, g) = value_with_gradient!(at: a, of: babylonian_sqrt);
        assert_eq!(v, babylonian_sqrt(a));
        assert_close(v, a.sqrt(), 1e-14, "sqrt value");
        assert_close(g, 0.5 / a.sqrt(), 1e-12, "babylonian rev");
        assert_close(
            first_derivative!(at: a, of: babylonian_sqrt),
            0.5 / a.sqrt(),
            1e-12,
            "babylonian fwd",
        );
    }
}

// ------------------------------------------------------------------ ODE integration

#[derive(Differentiable, Clone, Copy, Debug)]
struct Osc {
    q: f64,
    p: f64,
}

/// Explicit Euler on q' = p, p' = -k q.
#[differentiable]
fn euler(q0: f64, p0: f64, k: f64) -> f64 {
    let h = 0.1;
    let mut s = Osc { q: q0, p: p0 };
    for _ in 0..10 {
        let dq = s.p;
        let dp = -k * s.q;
        s = Osc {
            q: s.q + h * dq,
            p: s.p + h * dp,
        };
    }
    s.q
}

/// The same system by RK4, the state a struct updated field by field.
#[differentiable]
fn rk4(q0: f64, p0: f64, k: f64) -> f64 {
    let h = 0.05;
    let mut s = Osc { q: q0, p: p0 };
    for _ in 0..20 {
        let k1q = s.p;
        let k1p = -k * s.q;
        let k2q = s.p + 0.5 * h * k1p;
        let k2p = -k * (s.q + 0.5 * h * k1q);
        let k3q = s.p + 0.5 * h * k2p;
        let k3p = -k * (s.q + 0.5 * h * k2q);
        let k4q = s.p + h * k3p;
        let k4p = -k * (s.q + h * k3q);
        s.q += h / 6.0 * (k1q + 2.0 * k2q + 2.0 * k3q + k4q);
        s.p += h / 6.0 * (k1p + 2.0 * k2p + 2.0 * k3p + k4p);
    }
    s.q * s.q + s.p * s.p / k
}

/// Exponential decay y' = -l y by RK4: y_n = y0 R(-l h)^n in closed form.
#[differentiable]
fn rk4_decay(y0: f64, l: f64) -> f64 {
    let h = 0.1;
    let mut y = y0;
    for _ in 0..8 {
        let k1 = -l * y;
        let k2 = -l * (y + 0.5 * h * k1);
        let k3 = -l * (y + 0.5 * h * k2);
        let k4 = -l * (y + h * k3);
        y = y + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
    }
    y
}

#[test]
fn euler_integration_is_a_matrix_power() {
    // One step is M = [[1, h], [-k h, 1]]; after n steps q = (M^n)_{00} q0 + (M^n)_{01} p0.
    let (q0, p0, k) = (0.7, -0.2, 2.5);
    let h = 0.1;
    let mut m = [[1.0, 0.0], [0.0, 1.0]];
    let step = [[1.0, h], [-k * h, 1.0]];
    for _ in 0..10 {
        let mut r = [[0.0; 2]; 2];
        for i in 0..2 {
            for j in 0..2 {
                r[i][j] = step[i][0] * m[0][j] + step[i][1] * m[1][j];
            }
        }
        m = r;
    }
    let (v, (gq, gp, gk)) = value_with_gradient!(at: (q0, p0, k), of: euler);
    assert_eq!(v, euler(q0, p0, k));
    assert_close(gq, m[0][0], 1e-13, "euler dq0");
    assert_close(gp, m[0][1], 1e-13, "euler dp0");
    assert_close(gk, fd(|k| euler(q0, p0, k), k), 1e-8, "euler dk");
    let df = differential!(at: (q0, p0, k), of: euler);
    assert_close(df((0.0, 0.0, 1.0)), gk, 1e-13, "euler fwd dk");
}

#[test]
fn rk4_struct_state_and_closed_form_decay() {
    let (q0, p0, k) = (1.0, 0.3, 1.7);
    let (v, (gq, gp, gk)) = value_with_gradient!(at: (q0, p0, k), of: rk4);
    assert_eq!(v, rk4(q0, p0, k));
    assert_close(gq, fd(|x| rk4(x, p0, k), q0), 1e-8, "rk4 dq0");
    assert_close(gp, fd(|x| rk4(q0, x, k), p0), 1e-8, "rk4 dp0");
    assert_close(gk, fd(|x| rk4(q0, p0, x), k), 1e-8, "rk4 dk");
    let df = |t| differential!(at: (q0, p0, k), of: rk4)(t);
    assert_close(df((1.0, 0.0, 0.0)), gq, 1e-12, "rk4 fwd dq0");
    assert_close(df((0.0, 1.0, 0.0)), gp, 1e-12, "rk4 fwd dp0");
    assert_close(df((0.0, 0.0, 1.0)), gk, 1e-12, "rk4 fwd dk");

    let (y0, l) = (2.0, 0.8);
    let h = 0.1;
    let z = -l * h;
    let r = 1.0 + z + z * z / 2.0 + z * z * z / 6.0 + z.powi(4) / 24.0;
    let dr = 1.0 + z + z * z / 2.0 + z * z * z / 6.0;
    let (v, (gy, gl)) = value_with_gradient!(at: (y0, l), of: rk4_decay);
    assert_close(v, y0 * r.powi(8), 1e-13, "rk4 decay value");
    assert_close(gy, r.powi(8), 1e-13, "rk4 decay dy0");
    assert_close(gl, y0 * 8.0 * r.powi(7) * dr * (-h), 1e-13, "rk4 decay dl");
}

// ------------------------------------------------------------------ power iteration

/// The dominant eigenvalue of [[a, b], [b, c]] by power iteration and the Rayleigh
/// quotient.
#[differentiable]
fn power_iteration(a: f64, b: f64, c: f64) -> f64 {
    let mut v0 = 1.0;
    let mut v1 = 0.5;
    for _ in 0..200 {
        let w0 = a * v0 + b * v1;
        let w1 = b * v0 + c * v1;
        let n = (w0 * w0 + w1 * w1).sqrt();
        v0 = w0 / n;
        v1 = w1 / n;
    }
    let w0 = a * v0 + b * v1;
    let w1 = b * v0 + c * v1;
    (v0 * w0 + v1 * w1) / (v0 * v0 + v1 * v1)
}

#[test]
fn power_iteration_eigenvalue_derivative() {
    for (a, b, c) in [(3.0, 1.0, 1.0), (2.0, -0.5, -1.0), (0.5, 2.0, 0.1)] {
        let r = (((a - c) / 2.0) * ((a - c) / 2.0) + b * b).sqrt();
        let lam = (a + c) / 2.0 + r;
        let (v, (da, db, dc)) = value_with_gradient!(at: (a, b, c), of: power_iteration);
        assert_eq!(v, power_iteration(a, b, c));
        assert_close(v, lam, 1e-12, "eigenvalue");
        // dλ = vᵀ dA v for the unit eigenvector v.
        assert_close(da, 0.5 + (a - c) / (4.0 * r), 1e-9, "dλ/da");
        assert_close(db, b / r, 1e-9, "dλ/db");
        assert_close(dc, 0.5 - (a - c) / (4.0 * r), 1e-9, "dλ/dc");
        let df = differential!(at: (a, b, c), of: power_iteration);
        assert_close(df((0.0, 1.0, 0.0)), db, 1e-9, "fwd dλ/db");
    }
}

// ------------------------------------------------------------------ linear algebra

#[differentiable]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b.iter()).map(|(x, y)| x * y).sum()
}

#[differentiable]
fn norm2(x: &[f64]) -> f64 {
    dot(x, x).sqrt()
}

#[differentiable]
fn norm1(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for v in x.iter() {
        s += v.abs();
    }
    s
}

#[differentiable]
fn norm_inf(x: &[f64]) -> f64 {
    x.iter().fold(0.0, |m, v| m.max(v.abs()))
}

#[differentiable]
fn norm_p(x: &[f64], p: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i].abs().powf(p);
    }
    s.powf(1.0 / p)
}

#[test]
fn dot_and_norms() {
    let a = vec![1.0, -2.0, 0.5];
    let b = vec![0.3, 0.7, -1.1];
    let (v, (ga, gb)) = value_with_gradient!(at: (&a, &b), of: dot);
    assert_eq!(v, dot(&a, &b));
    assert_eq!(ga, b);
    assert_eq!(gb, a);

    let n = norm2(&a);
    let g = gradient!(at: &a, of: norm2);
    assert_vec_close(
        &g,
        &a.iter().map(|x| x / n).collect::<Vec<_>>(),
        1e-14,
        "norm2",
    );

    let g = gradient!(at: &a, of: norm1);
    assert_eq!(g, vec![1.0, -1.0, 1.0]);

    let g = gradient!(at: &a, of: norm_inf);
    assert_eq!(g, vec![0.0, -1.0, 0.0]);

    // ∂‖x‖_p/∂x_i = sign(x_i) |x_i|^{p-1} ‖x‖_p^{1-p}; ∂/∂p by finite differences.
    let p = 3.0;
    let np = norm_p(&a, p);
    let (gx, gp) = gradient!(at: (&a, p), of: norm_p);
    let expect: Vec<f64> = a
        .iter()
        .map(|x| x.signum() * x.abs().powf(p - 1.0) * np.powf(1.0 - p))
        .collect();
    assert_vec_close(&gx, &expect, 1e-13, "norm_p dx");
    assert_close(gp, fd(|p| norm_p(&a, p), p), 1e-9, "norm_p dp");
}

/// ½‖A x‖² for A stored as `Vec<Vec<f64>>`.
/// `&Vec<..>` parameters on purpose: API.md lists them as differentiable inputs.
#[allow(clippy::ptr_arg)]
#[differentiable]
fn half_sq_matvec(a: &Vec<Vec<f64>>, x: &Vec<f64>) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len() {
        let mut yi = 0.0;
        for j in 0..x.len() {
            yi += a[i][j] * x[j];
        }
        s += 0.5 * yi * yi;
    }
    s
}

/// y = A x for a row-major 2x3 matrix in a flat array.
#[differentiable]
fn matvec_flat(a: [f64; 6], x: [f64; 3]) -> [f64; 2] {
    let mut y = [0.0; 2];
    for i in 0..2 {
        for j in 0..3 {
            y[i] += a[3 * i + j] * x[j];
        }
    }
    y
}

#[differentiable]
fn weighted_matvec_flat(a: [f64; 6], x: [f64; 3]) -> f64 {
    let y = matvec_flat(a, x);
    2.0 * y[0] - y[1]
}

#[test]
fn matrix_vector_products() {
    let a = vec![vec![1.0, 2.0, -1.0], vec![0.5, -0.3, 2.0]];
    let x = vec![0.2, -1.0, 0.7];
    let y: Vec<f64> = a
        .iter()
        .map(|r| r.iter().zip(&x).map(|(p, q)| p * q).sum())
        .collect();
    let (v, (ga, gx)) = value_with_gradient!(at: (&a, &x), of: half_sq_matvec);
    assert_eq!(v, half_sq_matvec(&a, &x));
    // ∂/∂A = y xᵀ, ∂/∂x = Aᵀ y.
    for i in 0..2 {
        assert_vec_close(
            &ga[i],
            &x.iter().map(|xj| y[i] * xj).collect::<Vec<_>>(),
            1e-14,
            "dA",
        );
    }
    let atv: Vec<f64> = (0..3).map(|j| a[0][j] * y[0] + a[1][j] * y[1]).collect();
    assert_vec_close(&gx, &atv, 1e-14, "dx");

    let af = [1.0, 2.0, -1.0, 0.5, -0.3, 2.0];
    let xf = [0.2, -1.0, 0.7];
    let (ga, gx) = gradient!(at: (af, xf), of: weighted_matvec_flat);
    let w = [2.0, -1.0];
    for i in 0..2 {
        for j in 0..3 {
            assert_close(ga[3 * i + j], w[i] * xf[j], 1e-15, "flat dA");
        }
    }
    for j in 0..3 {
        assert_close(gx[j], w[0] * af[j] + w[1] * af[3 + j], 1e-15, "flat dx");
    }
    // The pullback of the vector-valued product: Aᵀ w and w xᵀ.
    let (yv, pb) = value_with_pullback!(at: (af, xf), of: matvec_flat);
    assert_eq!(yv, matvec_flat(af, xf));
    let (pa, px) = pb(w);
    assert_eq!(pa, ga);
    assert_eq!(px, gx);
    // And the differential: A dx.
    let df = differential!(at: (af, xf), of: matvec_flat);
    let dy = df(([0.0; 6], [1.0, 0.0, 0.0]));
    assert_eq!(dy, [af[0], af[3]]);
}

// ------------------------------------------------------------------ piecewise

#[differentiable]
fn huber(x: f64, d: f64) -> f64 {
    if x.abs() <= d {
        0.5 * x * x
    } else {
        d * (x.abs() - 0.5 * d)
    }
}

#[differentiable(wrt = (x))]
fn piecewise_match(x: f64, mode: u8) -> f64 {
    match mode {
        0 => x.sin(),
        1 | 2 => x * x * (mode as f64),
        3..=5 => {
            let t = x.exp();
            t / (1.0 + t)
        }
        _ => -x,
    }
}

#[test]
fn piecewise_functions() {
    let d = 1.0;
    for x in [-2.5, -0.4, 0.3, 0.99, 3.0] {
        let (gx, gd) = gradient!(at: (x, d), of: huber);
        let (ex, ed) = if x.abs() <= d {
            (x, 0.0)
        } else {
            (d * x.signum(), x.abs() - d)
        };
        assert_close(gx, ex, 1e-15, "huber dx");
        assert_close(gd, ed, 1e-15, "huber dd");
        let df = differential!(at: (x, d), of: huber);
        assert_close(df((1.0, 0.0)), ex, 1e-15, "huber fwd dx");
    }
    let x = 0.6;
    let expect = [
        x.cos(),
        2.0 * x,
        4.0 * x,
        sigmoid(x) * (1.0 - sigmoid(x)),
        sigmoid(x) * (1.0 - sigmoid(x)),
        sigmoid(x) * (1.0 - sigmoid(x)),
        -1.0,
    ];
    for (mode, e) in expect.iter().enumerate() {
        let g: f64 = gradient!(at: (x, mode as u8), of: piecewise_match);
        assert_close(g, *e, 1e-14, &format!("match mode {mode}"));
        assert_close(
            g,
            fd(|t| piecewise_match(t, mode as u8), x),
            1e-9,
            "match fd",
        );
    }
}

// ------------------------------------------------------------------ recursion

/// Truncated exponential series sum_{j=0}^{n-k} x^j k!/(k+j)!, nested Horner-style:
/// `exp_series(x, 0, n)` is sum_{j=0}^{n} x^j / j!.
#[differentiable]
fn exp_series(x: f64, k: u32, n: u32) -> f64 {
    if k == n {
        1.0
    } else {
        1.0 + x / (k as f64 + 1.0) * exp_series(x, k + 1, n)
    }
}

#[differentiable]
fn pow_rec(x: f64, n: u32) -> f64 {
    if n == 0 {
        1.0
    } else {
        x * pow_rec(x, n - 1)
    }
}

#[test]
fn recursive_functions() {
    for x in [-1.0, 0.5, 2.0] {
        for n in [0u32, 1, 3, 8] {
            // d/dx sum_{j<=n} x^j/j! = sum_{j<=n-1} x^j/j!
            let mut expect = 0.0;
            let mut term = 1.0;
            for j in 0..n {
                expect += term;
                term *= x / (j as f64 + 1.0);
            }
            let g: f64 = gradient!(at: (x, 0u32, n), of: exp_series);
            assert_close(g, expect, 1e-13, "exp series rev");
            let d = first_derivative!(at: x, of: |t| exp_series(t, 0, n));
            assert_close(d, expect, 1e-13, "exp series fwd");

            let g: f64 = gradient!(at: (x, n), of: pow_rec);
            let e = if n == 0 {
                0.0
            } else {
                n as f64 * x.powi(n as i32 - 1)
            };
            assert_close(g, e, 1e-13, "pow_rec");
        }
    }
}

// ------------------------------------------------------------------ mutually calling

#[differentiable]
fn inner_a(x: f64) -> f64 {
    x.sin() * x
}

#[differentiable]
fn inner_b(x: f64, y: f64) -> f64 {
    inner_a(x * y) + inner_a(y)
}

#[differentiable]
fn outer_c(x: f64, y: f64) -> f64 {
    let u = inner_b(x, y);
    let v = inner_b(y, u);
    u * v
}

#[test]
fn chains_of_differentiable_calls() {
    for (x, y) in [(0.3, 0.8), (-1.1, 0.4)] {
        let (v, (gx, gy)) = value_with_gradient!(at: (x, y), of: outer_c);
        assert_eq!(v, outer_c(x, y));
        assert_close(gx, fd(|t| outer_c(t, y), x), 1e-9, "outer dx");
        assert_close(gy, fd(|t| outer_c(x, t), y), 1e-9, "outer dy");
        let df = |t| differential!(at: (x, y), of: outer_c)(t);
        assert_close(df((1.0, 0.0)), gx, 1e-13, "outer fwd dx");
        assert_close(df((0.0, 1.0)), gy, 1e-13, "outer fwd dy");
        // inner_a' = sin x + x cos x
        assert_close(
            gradient!(at: x, of: inner_a),
            x.sin() + x * x.cos(),
            1e-15,
            "inner_a",
        );
    }
}

/// `sin_cos`, a constant raised to a power (`2f64.powf(x)`) and the less common float
/// methods, against finite differences in both modes.
#[differentiable]
fn trig_and_friends(x: f64) -> f64 {
    let (s, c) = x.sin_cos();
    s * c
        + 2f64.powf(x)
        + x.exp_m1()
        + x.ln_1p()
        + x.cbrt()
        + x.recip()
        + x.to_radians()
        + x.log10()
}

#[test]
fn sin_cos_and_rarer_float_methods() {
    for x in [0.3, 0.7, 1.9] {
        let (v, d) = value_with_derivative!(at: x, of: trig_and_friends);
        assert_eq!(v, trig_and_friends(x));
        assert_close(d, fd(trig_and_friends, x), 1e-6, "forward");
        let g = gradient!(at: x, of: trig_and_friends);
        assert_close(g, d, 1e-12, "reverse against forward");
    }
}

/// An expression tree evaluated by a recursive function: the children are `&Box<Expr>`
/// given where `&Expr` is taken (a deref coercion), the tree a parameter left out of the
/// derivative.
pub enum Expr {
    Const(f64),
    X,
    Add(Box<Expr>, Box<Expr>),
    Mul(Box<Expr>, Box<Expr>),
    Sin(Box<Expr>),
}

#[differentiable]
fn eval(e: &Expr, x: f64) -> f64 {
    match e {
        Expr::Const(c) => *c,
        Expr::X => x,
        Expr::Add(a, b) => eval(a, x) + eval(b, x),
        Expr::Mul(a, b) => eval(a, x) * eval(b, x),
        Expr::Sin(a) => eval(a, x).sin(),
    }
}

#[test]
fn an_expression_tree_walked_recursively() {
    use Expr::*;
    // x·sin(x) + 3
    let e = Add(
        Box::new(Mul(Box::new(X), Box::new(Sin(Box::new(X))))),
        Box::new(Const(3.0)),
    );
    let x = 0.8;
    let (v, d) = value_with_gradient!(at: x, of: |x| eval(&e, x));
    assert_eq!(v, eval(&e, x));
    assert_close(d, x.sin() + x * x.cos(), 1e-12, "tree reverse");
    let (v, d) = value_with_derivative!(at: x, of: |x| eval(&e, x));
    assert_eq!(v, eval(&e, x));
    assert_close(d, x.sin() + x * x.cos(), 1e-12, "tree forward");
    let d2 = second_derivative!(at: x, of: |x| eval(&e, x));
    assert_close(d2, 2.0 * x.cos() - x * x.sin(), 1e-12, "tree second");
}
