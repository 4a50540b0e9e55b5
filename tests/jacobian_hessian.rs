//! Higher-order and vector-valued cases in the style of JAX's tests/api_test.py
//! (`hessian`, `jacfwd`/`jacrev`) and its `check_grads`: `hessian!` of generic functions
//! and closures against analytic Hessians, `jacobian!` of `Vec -> Vec` and
//! `array -> array` functions against analytic Jacobians, and the Jacobian's rows and
//! columns against the pullback (reverse) and the differential (forward).
#![allow(clippy::assign_op_pattern, clippy::needless_range_loop)]

mod common;
use common::{assert_mat_close, fd_jacobian};
use diff::prelude::*;

#[track_caller]
fn assert_symmetric(h: &[Vec<f64>], tol: f64) {
    for i in 0..h.len() {
        for j in 0..i {
            assert!((h[i][j] - h[j][i]).abs() <= tol, "not symmetric: {h:?}");
        }
    }
}

// ------------------------------------------------------------------ Hessians

#[differentiable]
fn rosenbrock_g<T: Float>(x: &[T]) -> T {
    let hundred = T::from(100.0).unwrap();
    let mut s = T::from(0.0).unwrap();
    for i in 0..x.len() - 1 {
        let a = x[i + 1] - x[i] * x[i];
        let b = T::one() - x[i];
        s = s + hundred * a * a + b * b;
    }
    s
}

fn rosenbrock_hessian(x: &[f64]) -> Vec<Vec<f64>> {
    let n = x.len();
    let mut h = vec![vec![0.0; n]; n];
    for i in 0..n {
        if i + 1 < n {
            h[i][i] += 1200.0 * x[i] * x[i] - 400.0 * x[i + 1] + 2.0;
            h[i][i + 1] = -400.0 * x[i];
            h[i + 1][i] = -400.0 * x[i];
        }
        if i > 0 {
            h[i][i] += 200.0;
        }
    }
    h
}

#[differentiable]
fn logsumexp_g<T: Float>(x: &[T]) -> T {
    let mut m = x[0];
    for i in 1..x.len() {
        m = m.max(x[i]);
    }
    let mut s = T::from(0.0).unwrap();
    for i in 0..x.len() {
        s = s + (x[i] - m).exp();
    }
    m + s.ln()
}

/// ½ xᵀ A x + bᵀ x with a fixed A and b.
#[differentiable]
fn quadratic_g<T: Float>(x: &[T]) -> T {
    let a = [[4.0, 1.0, -2.0], [1.0, 3.0, 0.5], [-2.0, 0.5, 5.0]];
    let b = [1.0, -1.0, 2.0];
    let mut s = T::from(0.0).unwrap();
    for i in 0..3 {
        for j in 0..3 {
            s = s + T::from(0.5 * a[i][j]).unwrap() * x[i] * x[j];
        }
        s = s + T::from(b[i]).unwrap() * x[i];
    }
    s
}

#[test]
fn hessian_of_generic_rosenbrock() {
    for x in [
        vec![-1.2, 1.0],
        vec![0.5, -0.3, 1.7],
        vec![1.0, 1.0, 1.0, 1.0],
        vec![0.1, 0.2, -0.7, 1.3, 0.9],
    ] {
        // The point's float type must be known here (bugs-ported.md, P6).
        let x: Vec<f64> = x;
        let h = hessian!(at: &x, of: rosenbrock_g);
        let h2 = hessian!(at: x.clone(), of: |p| rosenbrock_g(&p));
        assert_eq!(h, h2);
        assert_mat_close(&h, &rosenbrock_hessian(&x), 1e-12, "rosenbrock hessian");
        assert_symmetric(&h, 0.0);
    }
    // The path form, at a `&vec![..]` literal.
    let h = hessian!(at: &vec![0.5, -0.3, 1.7], of: rosenbrock_g);
    assert_mat_close(
        &h,
        &rosenbrock_hessian(&[0.5, -0.3, 1.7]),
        1e-12,
        "rosenbrock hessian, path form",
    );
}

#[test]
fn hessian_of_logsumexp_is_softmax_covariance() {
    for x in [vec![0.0, 0.0, 0.0], vec![1.0, -0.5, 2.0, 0.3]] {
        let m = x.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let e: Vec<f64> = x.iter().map(|v| (v - m).exp()).collect();
        let z: f64 = e.iter().sum();
        let s: Vec<f64> = e.iter().map(|v| v / z).collect();
        let expect: Vec<Vec<f64>> = (0..x.len())
            .map(|i| {
                (0..x.len())
                    .map(|j| if i == j { s[i] } else { 0.0 } - s[i] * s[j])
                    .collect()
            })
            .collect();
        let x: Vec<f64> = x;
        let h = hessian!(at: &x, of: logsumexp_g);
        assert_mat_close(&h, &expect, 1e-13, "logsumexp hessian");
    }
}

#[test]
fn hessian_of_a_quadratic_form_is_its_matrix() {
    let a = vec![
        vec![4.0, 1.0, -2.0],
        vec![1.0, 3.0, 0.5],
        vec![-2.0, 0.5, 5.0],
    ];
    for x in [vec![0.0, 0.0, 0.0], vec![1.5, -2.0, 0.25]] {
        let x: Vec<f64> = x;
        let h = hessian!(at: &x, of: quadratic_g);
        assert_mat_close(&h, &a, 1e-15, "quadratic hessian");
        // And the gradient is A x + b.
        let g = gradient!(at: &x, of: quadratic_g::<f64>);
        let b = [1.0, -1.0, 2.0];
        for i in 0..3 {
            let e: f64 = (0..3).map(|j| a[i][j] * x[j]).sum::<f64>() + b[i];
            assert!((g[i] - e).abs() < 1e-14, "{g:?}");
        }
    }
}

#[test]
fn hessian_of_closures() {
    // f = e^{x0} sin x1 + x0 x1^2 + x2^3 x0
    let (a, b, c): (f64, f64, f64) = (0.3, -1.1, 0.7);
    let h = hessian!(at: vec![a, b, c], of: |p| p[0].exp() * p[1].sin()
        + p[0] * p[1] * p[1]
        + p[2] * p[2] * p[2] * p[0]);
    let expect = vec![
        vec![a.exp() * b.sin(), a.exp() * b.cos() + 2.0 * b, 3.0 * c * c],
        vec![
            a.exp() * b.cos() + 2.0 * b,
            -a.exp() * b.sin() + 2.0 * a,
            0.0,
        ],
        vec![3.0 * c * c, 0.0, 6.0 * c * a],
    ];
    assert_mat_close(&h, &expect, 1e-13, "closure hessian");

    // The same closure on an array input.
    let h = hessian!(at: [a, b, c], of: |p| p[0].exp() * p[1].sin()
        + p[0] * p[1] * p[1]
        + p[2] * p[2] * p[2] * p[0]);
    assert_mat_close(&h, &expect, 1e-13, "closure hessian, array");

    // A closure with a loop: f = (sum_i x_i)^3 has H_ij = 6 sum x.
    let x: Vec<f64> = vec![0.2, -0.5, 1.0, 0.4];
    let h = hessian!(at: x.clone(), of: |p| {
        // Not `let mut s = 0.0;`: the closure runs on dual numbers.
        let mut s = p[0];
        for i in 1..p.len() {
            s += p[i];
        }
        s * s * s
    });
    let s: f64 = x.iter().sum();
    assert_mat_close(
        &h,
        &vec![vec![6.0 * s; 4]; 4],
        1e-13,
        "loop closure hessian",
    );

    // Scalar input: a 1x1 Hessian, f'' of tanh is -2 tanh (1 - tanh^2).
    let t: f64 = 0.8f64.tanh();
    let h = hessian!(at: 0.8, of: |x| x.tanh());
    assert!((h[0][0] + 2.0 * t * (1.0 - t * t)).abs() < 1e-14, "{h:?}");
}

#[test]
fn hessian_matches_finite_differences_of_the_gradient() {
    let x = vec![0.4, -0.9, 1.3];
    let h = hessian!(at: &vec![0.4, -0.9, 1.3], of: rosenbrock_g);
    let fdh = fd_jacobian(|p| gradient!(at: p, of: rosenbrock_g::<f64>), &x);
    assert_mat_close(&h, &fdh, 1e-7, "hessian vs fd of gradient");
}

#[differentiable]
fn mix<T: Float>(p: &[T]) -> T {
    p[0] * p[0] * p[1] + (p[0] * p[1]).sin()
}

#[test]
fn hessian_of_a_generic_function_a_closure_and_a_scalar() {
    let (x, y) = (0.7f64, -1.3f64);
    let c = (x * y).cos();
    let s = (x * y).sin();
    let expect = vec![
        vec![2.0 * y - y * y * s, 2.0 * x + c - x * y * s],
        vec![2.0 * x + c - x * y * s, -x * x * s],
    ];
    let h = hessian!(at: &vec![x, y], of: mix);
    assert_mat_close(&h, &expect, 1e-12, "mix hessian");
    let h = hessian!(at: vec![x, y], of: |p| p[0] * p[0] * p[1] + (p[0] * p[1]).sin());
    assert_mat_close(&h, &expect, 1e-12, "closure hessian");
    let h1 = hessian!(at: 0.5, of: |t| t.powi(3));
    assert_mat_close(&h1, &[vec![3.0]], 1e-12, "scalar hessian");
    let h2 = hessian!(at: vec![1.0, 2.0], of: |p| p[0] * p[1] * p[1]);
    assert_eq!(h2, vec![vec![0.0, 4.0], vec![4.0, 2.0]]);
}

// ------------------------------------------------------------------ Jacobians, Vec -> Vec

#[differentiable]
fn softmax_vec(x: &[f64]) -> Vec<f64> {
    let n = x.len();
    let mut m = x[0];
    for i in 1..x.len() {
        m = m.max(x[i]);
    }
    let mut z = 0.0;
    for i in 0..x.len() {
        z += (x[i] - m).exp();
    }
    // `.collect()` is not among the supported iterator reductions: build with a loop.
    let mut y = vec![0.0; n];
    for i in 0..n {
        y[i] = (x[i] - m).exp() / z;
    }
    y
}

#[allow(clippy::ptr_arg)] // `&Vec<f64>` on purpose: a documented input form
#[differentiable]
fn polar_to_cartesian(p: &Vec<f64>) -> Vec<f64> {
    vec![p[0] * p[1].cos(), p[0] * p[1].sin()]
}

#[allow(clippy::ptr_arg)] // `&Vec<f64>` on purpose: a documented input form
#[differentiable]
fn elementwise_tanh(x: &Vec<f64>) -> Vec<f64> {
    // `vec![0.0; x.len()]` is refused (bugs-ported.md, P7).
    let n = x.len();
    let mut y = vec![0.0; n];
    for i in 0..n {
        y[i] = x[i].tanh();
    }
    y
}

#[test]
fn jacobian_of_softmax() {
    for x in [vec![0.5, -1.0, 2.0], vec![1.0, 1.0, 1.0, 1.0]] {
        let s = softmax_vec(&x);
        let expect: Vec<Vec<f64>> = (0..x.len())
            .map(|i| {
                (0..x.len())
                    .map(|j| s[i] * (if i == j { 1.0 } else { 0.0 } - s[j]))
                    .collect()
            })
            .collect();
        // `at: &x` does not compile (bugs-ported.md, P8): go through a closure.
        let j = jacobian!(at: x.clone(), of: |p| softmax_vec(&p));
        assert_mat_close(&j, &expect, 1e-14, "softmax jacobian");
        assert_mat_close(&j, &fd_jacobian(softmax_vec, &x), 1e-9, "softmax fd");
    }
}

#[test]
fn jacobian_of_vec_to_vec_functions() {
    let (r, t) = (2.0, 0.6);
    let j = jacobian!(at: vec![r, t], of: |p| polar_to_cartesian(&p));
    let expect = vec![vec![t.cos(), -r * t.sin()], vec![t.sin(), r * t.cos()]];
    assert_mat_close(&j, &expect, 1e-15, "polar jacobian");

    let x = vec![-1.0, 0.0, 0.5, 3.0];
    let j = jacobian!(at: x.clone(), of: |p| elementwise_tanh(&p));
    for a in 0..4 {
        for b in 0..4 {
            let e = if a == b {
                1.0 - x[a].tanh().powi(2)
            } else {
                0.0
            };
            assert!((j[a][b] - e).abs() < 1e-15, "{j:?}");
        }
    }
}

#[test]
fn jacobian_rows_are_pullbacks_and_columns_are_differentials() {
    let x = vec![0.3, -0.2, 1.1];
    let j = jacobian!(at: x.clone(), of: |p| softmax_vec(&p));
    for i in 0..3 {
        let mut e = vec![0.0; 3];
        e[i] = 1.0;
        let row = pullback!(at: &x, of: softmax_vec)(e.clone());
        for k in 0..3 {
            assert!(
                (row[k] - j[i][k]).abs() < 1e-15,
                "row {i}: {row:?} vs {j:?}"
            );
        }
        let col = differential!(at: &x, of: softmax_vec)(e);
        for k in 0..3 {
            assert!(
                (col[k] - j[k][i]).abs() < 1e-15,
                "col {i}: {col:?} vs {j:?}"
            );
        }
    }
}

// ------------------------------------------------------------------ Jacobians, arrays

#[differentiable]
fn spherical_to_cartesian(p: [f64; 3]) -> [f64; 3] {
    let [r, th, ph] = p;
    [
        r * th.sin() * ph.cos(),
        r * th.sin() * ph.sin(),
        r * th.cos(),
    ]
}

/// The Lorenz vector field.
#[differentiable]
fn lorenz(u: [f64; 3]) -> [f64; 3] {
    let (s, rho, b) = (10.0, 28.0, 8.0 / 3.0);
    [
        s * (u[1] - u[0]),
        u[0] * (rho - u[2]) - u[1],
        u[0] * u[1] - b * u[2],
    ]
}

#[test]
fn jacobian_of_array_to_array_functions() {
    let (r, th, ph) = (1.5, 0.7, -0.4);
    let j = jacobian!(at: [r, th, ph], of: spherical_to_cartesian);
    let expect = vec![
        vec![
            th.sin() * ph.cos(),
            r * th.cos() * ph.cos(),
            -r * th.sin() * ph.sin(),
        ],
        vec![
            th.sin() * ph.sin(),
            r * th.cos() * ph.sin(),
            r * th.sin() * ph.cos(),
        ],
        vec![th.cos(), -r * th.sin(), 0.0],
    ];
    assert_mat_close(&j, &expect, 1e-15, "spherical jacobian");
    // Its determinant is r^2 sin(theta).
    let det = j[0][0] * (j[1][1] * j[2][2] - j[1][2] * j[2][1])
        - j[0][1] * (j[1][0] * j[2][2] - j[1][2] * j[2][0])
        + j[0][2] * (j[1][0] * j[2][1] - j[1][1] * j[2][0]);
    assert!((det - r * r * th.sin()).abs() < 1e-14);

    let u = [1.0, -2.0, 20.0];
    let j = jacobian!(at: u, of: lorenz);
    let expect = vec![
        vec![-10.0, 10.0, 0.0],
        vec![28.0 - u[2], -1.0, -u[0]],
        vec![u[1], u[0], -8.0 / 3.0],
    ];
    assert_mat_close(&j, &expect, 1e-15, "lorenz jacobian");
    let fdj = fd_jacobian(|p| lorenz([p[0], p[1], p[2]]).to_vec(), &[u[0], u[1], u[2]]);
    assert_mat_close(&j, &fdj, 1e-8, "lorenz fd");
}

// ---------------------------------------------------------------------------------------
// `second_derivative!` and `value_with_second_derivative!`.

#[differentiable]
fn cubic_plus_sine<T: Float>(x: T) -> T {
    x * x * x + x.sin()
}

#[test]
fn second_derivatives_of_scalar_functions() {
    for x in [-1.3, 0.0, 2.0] {
        let f2: f64 = second_derivative!(at: x, of: cubic_plus_sine);
        assert!((f2 - (6.0 * x - x.sin())).abs() < 1e-12, "f''({x}) = {f2}");
        let (v, d1, d2) = value_with_second_derivative!(at: x, of: cubic_plus_sine);
        assert_eq!(v, cubic_plus_sine(x));
        assert!(
            (d1 - (3.0 * x * x + x.cos())).abs() < 1e-12,
            "f'({x}) = {d1}"
        );
        assert_eq!(d2, f2);
        // Against the Hessian of the same function.
        assert_eq!(hessian!(at: x, of: cubic_plus_sine), vec![vec![f2]]);
    }
    // A closure, and a float method.
    let (v, d1, d2) = value_with_second_derivative!(at: 0.5, of: |x| x * x * x.exp());
    let e = 0.5f64.exp();
    assert!((v - 0.25 * e).abs() < 1e-15);
    assert!((d1 - 1.25 * e).abs() < 1e-14);
    assert!((d2 - 4.25 * e).abs() < 1e-14);
    let t = 0.5f64.tanh();
    let d2 = second_derivative!(at: 0.5, of: f64::tanh);
    assert!(
        (d2 - (-2.0 * t * (1.0 - t * t))).abs() < 1e-14,
        "tanh'' = {d2}"
    );
}

// ---------------------------------------------------------------------------------------
// Generic objectives written as a published crate of test functions writes them, called
// with the scalar named (`of: f::<f64>`) and the point by reference (`at: &x`).

#[differentiable]
pub fn rosenbrock_slice<T: Float + num_traits::FromPrimitive>(param: &[T]) -> T {
    let a = T::from_f64(1.0).unwrap();
    let b = T::from_f64(100.0).unwrap();
    param
        .iter()
        .zip(param.iter().skip(1))
        .map(|(&xi, &xi1)| (a - xi).powi(2) + b * (xi1 - xi.powi(2)).powi(2))
        .fold(T::zero(), |acc, x| acc + x)
}

#[differentiable]
pub fn himmelblau<T: Float + num_traits::FromPrimitive>(param: &[T; 2]) -> T {
    let [x1, x2] = *param;
    let n7 = T::from_f64(7.0).unwrap();
    let n11 = T::from_f64(11.0).unwrap();
    (x1.powi(2) + x2 - n11).powi(2) + (x1 + x2.powi(2) - n7).powi(2)
}

#[test]
fn hessians_of_generic_functions_named_with_their_scalar() {
    let x = vec![1.2, 0.8, -0.5];
    let h = hessian!(at: &x, of: rosenbrock_slice::<f64>);
    assert_mat_close(&h, &rosenbrock_hessian(&x), 1e-9, "rosenbrock::<f64>");
    assert_eq!(h, hessian!(at: &x, of: rosenbrock_slice));
    assert_symmetric(&h, 1e-12);
    let p = [1.0, 2.0];
    let (a, b) = (p[0] * p[0] + p[1] - 11.0, p[0] + p[1] * p[1] - 7.0);
    let want = vec![
        vec![8.0 * p[0] * p[0] + 4.0 * a + 2.0, 4.0 * p[0] + 4.0 * p[1]],
        vec![4.0 * p[0] + 4.0 * p[1], 2.0 + 8.0 * p[1] * p[1] + 4.0 * b],
    ];
    assert_mat_close(
        &hessian!(at: &p, of: himmelblau::<f64>),
        &want,
        1e-12,
        "himmelblau::<f64>",
    );
}

/// Two outputs of seven inputs: `jacobian!` takes the rows by reverse sweeps.
#[differentiable]
fn wide(x: Vec<f64>) -> Vec<f64> {
    let mut s = 0.0;
    let mut p = 1.0;
    for i in 0..x.len() {
        s += x[i].sin() * (i as f64 + 1.0);
        p *= 1.0 + 0.1 * x[i];
    }
    vec![s, p]
}

#[differentiable]
fn wide_array(x: [f64; 6]) -> [f64; 2] {
    [x[0] * x[5] + x[2], x[1].exp() - x[3] * x[4]]
}

#[test]
fn wide_jacobians_by_rows_match_columns_and_finite_differences() {
    let x = vec![0.3, -0.8, 1.2, 0.5, -0.1, 0.9, 2.0];
    let j = jacobian!(at: x.clone(), of: wide);
    let fd = fd_jacobian(|p| wide(p.to_vec()), &x);
    assert_eq!(j.len(), 2);
    assert_mat_close(&j, &fd, 1e-6, "wide jacobian vs finite differences");
    // The same rows through forward mode, column by column.
    for k in 0..x.len() {
        let mut e = vec![0.0; x.len()];
        e[k] = 1.0;
        let (_, df) = value_with_differential!(at: x.clone(), of: wide);
        let col = df(e);
        for i in 0..2 {
            assert!((j[i][k] - col[i]).abs() <= 1e-13 * (1.0 + col[i].abs()));
        }
    }
    let j = jacobian!(at: x.clone(), of: |v| wide(v));
    assert_mat_close(&j, &fd, 1e-6, "wide jacobian of a closure");

    let a = [0.4, -0.2, 1.5, 0.7, -1.1, 0.3];
    let j = jacobian!(at: a, of: wide_array);
    let fd = fd_jacobian(
        |p| wide_array([p[0], p[1], p[2], p[3], p[4], p[5]]).to_vec(),
        &a,
    );
    assert_mat_close(&j, &fd, 1e-6, "wide array jacobian");
}

#[differentiable]
fn polar_pair(p: [f64; 2]) -> (f64, f64) {
    let [r, theta] = p;
    (r * theta.cos(), r * theta.sin())
}

#[test]
fn jacobian_of_a_function_returning_a_tuple() {
    let (r, t) = (1.5, 0.4);
    let j = jacobian!(at: [r, t], of: polar_pair);
    let expected = [[t.cos(), -r * t.sin()], [t.sin(), r * t.cos()]];
    for i in 0..2 {
        for k in 0..2 {
            assert!((j[i][k] - expected[i][k]).abs() < 1e-12, "{j:?}");
        }
    }
}

#[differentiable]
fn polar_f32(r: f32, theta: f32) -> (f32, f32) {
    (r * theta.cos(), r * theta.sin())
}

#[test]
fn a_point_whose_first_literal_names_its_float_type() {
    // `[2.0f32, 0.5]`: the unsuffixed literal is an `f32` as Rust infers it.
    let (r, t) = (2.0f32, 0.5f32);
    let j = jacobian!(at: [2.0f32, 0.5], of: |a: [f32; 2]| {
        let (x, y) = polar_f32(a[0], a[1]);
        vec![x, y]
    });
    let want = [[t.cos(), -r * t.sin()], [t.sin(), r * t.cos()]];
    for (row, wrow) in j.iter().zip(want) {
        for (a, b) in row.iter().zip(wrow) {
            assert!((a - b).abs() < 1e-6, "{a} vs {b}");
        }
    }
    let h = hessian!(at: vec![1.0f32, -2.0], of: |v: Vec<f32>| v[0] * v[0] * v[1]);
    assert_eq!(h, vec![vec![-4.0, 2.0], vec![2.0, 0.0]]);
}

#[differentiable]
fn differences(p: &[f64]) -> Vec<f64> {
    p.windows(2).map(|w| w[1] * w[1] - w[0]).collect()
}

#[test]
fn jacobian_at_a_reference_to_an_array_for_a_slice_parameter() {
    let want = vec![
        vec![-1.0, 6.0, 0.0, 0.0],
        vec![0.0, -1.0, 5.0, 0.0],
        vec![0.0, 0.0, -1.0, 0.0],
    ];
    assert_eq!(jacobian!(at: &[1.0, 3.0, 2.5, 0.0], of: differences), want);
    let point = [1.0, 3.0, 2.5, 0.0];
    assert_eq!(jacobian!(at: &point, of: differences), want);
    assert_eq!(jacobian!(at: &point.to_vec(), of: differences), want);
}

#[differentiable]
fn to_cartesian(r: f64, t: f64) -> (f64, f64) {
    (r * t.cos(), r * t.sin())
}

#[differentiable]
fn scaled_copy(v: Vec<f64>, s: f64) -> Vec<f64> {
    v.iter().map(|x| x * s).collect()
}

#[test]
fn jacobian_of_several_inputs_in_order() {
    let (r, t) = (2.0, 0.5);
    let exact = vec![vec![t.cos(), -r * t.sin()], vec![t.sin(), r * t.cos()]];
    assert_mat_close(
        &jacobian!(at: (r, t), of: to_cartesian),
        &exact,
        1e-12,
        "polar",
    );
    let by_differences = fd_jacobian(
        |p| {
            let (x, y) = to_cartesian(p[0], p[1]);
            vec![x, y]
        },
        &[r, t],
    );
    assert_mat_close(&exact, &by_differences, 1e-6, "polar oracle");
    // More inputs than twice the outputs: rows by reverse sweeps.
    let j = jacobian!(at: (1.0, 2.0, 3.0), of: |a: f64, b: f64, c: f64| a * b + c * c);
    assert_mat_close(&j, &[vec![2.0, 1.0, 6.0]], 1e-12, "three inputs");
    // A Vec and a scalar: the Vec's coordinates first.
    let j = jacobian!(at: (vec![1.0, 2.0], 3.0), of: scaled_copy);
    let by_differences = fd_jacobian(|p| scaled_copy(p[..2].to_vec(), p[2]), &[1.0, 2.0, 3.0]);
    assert_mat_close(&j, &by_differences, 1e-6, "vec and scalar");
}

/// A comparison reading a value through two references (`let v = &r; **v > 1.0`, with
/// `r = &x[0]`) runs on plain values in the dual companion, as deep in references as
/// the user wrote it.
#[differentiable]
fn through_two_references(x: &[f64]) -> f64 {
    let r = &x[0];
    let v = &r;
    if **v > 1.0 {
        x[1] * x[1] * **v
    } else {
        x[0] * x[0]
    }
}

#[test]
fn hessian_of_a_comparison_through_two_references() {
    let x = vec![1.5, 2.0];
    let (v, g) = value_with_gradient!(at: &x, of: through_two_references);
    assert_eq!(v, through_two_references(&x));
    assert_eq!(g, vec![4.0, 6.0]);
    let h = hessian!(at: &x, of: through_two_references);
    assert_eq!(h, vec![vec![0.0, 4.0], vec![4.0, 3.0]]);
    let h = hessian!(at: &[0.5, 2.0][..], of: through_two_references);
    assert_eq!(h, vec![vec![2.0, 0.0], vec![0.0, 0.0]]);
}

#[differentiable]
fn products_of_two_slices(a: &[f64], b: &[f64]) -> Vec<f64> {
    vec![a[0] * b[0], a[1] + b[1] * b[0]]
}

#[differentiable]
fn slice_and_scalar(a: &[f64], s: f64) -> f64 {
    a[0] * s + a[1]
}

/// `jacobian!` at several inputs given by reference, as `gradient!` and `hessian!` take
/// them: the columns of each input in order.
#[test]
fn jacobian_at_several_references() {
    let (a, b) = (vec![1.0, 2.0], vec![3.0, 4.0]);
    let j = jacobian!(at: (&a, &b), of: products_of_two_slices);
    assert_eq!(
        j,
        vec![vec![b[0], 0.0, a[0], 0.0], vec![0.0, 1.0, b[1], b[0]]]
    );
    let j = jacobian!(at: (&a, 2.0), of: slice_and_scalar);
    assert_eq!(j, vec![vec![2.0, 1.0, a[0]]]);
    let j = jacobian!(at: (&a[..], 2.0), of: |p: &[f64], s: f64| vec![p[0] * s, p[1] * p[1]]);
    assert_eq!(j, vec![vec![2.0, 0.0, a[0]], vec![0.0, 2.0 * a[1], 0.0]]);
}

/// A point bound without its float type (`let q = vec![0.4, -0.9];`) takes the closure's
/// declared one, as for the first-order operators.
#[test]
fn hessian_at_a_point_whose_float_type_the_closure_gives() {
    let q = vec![0.4, -0.9];
    let h = hessian!(at: q, of: |v: Vec<f64>| v[0].exp() * v[1]);
    let e = 0.4f64.exp();
    assert_eq!(h.len(), 2);
    let want = [[e * -0.9, e], [e, 0.0]];
    for i in 0..2 {
        for j in 0..2 {
            assert!((h[i][j] - want[i][j]).abs() < 1e-12, "h[{i}][{j}]");
        }
    }
    let (a, b) = (0.4, -0.9);
    let h2 = hessian!(at: (a, b), of: |x: f64, y: f64| x.exp() * y);
    assert_eq!(h2, h);
}
