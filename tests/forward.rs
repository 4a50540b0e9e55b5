//! Forward mode end to end: `first_derivative!`, `value_with_derivative!`,
//! `differential!`, `value_with_differential!` and `jacobian!`, checked against analytic
//! derivatives, finite differences, and reverse mode (`<gradient, v> == differential(v)`
//! for random directions `v`).

mod common;

use common::{assert_close, assert_mat_close, dot, fd, fd_dir, fd_jacobian, Rng};
use diff::prelude::*;

#[differentiable]
fn issue(x: f64, y: f64) -> f64 {
    let t = x * y + x.sin() / (1.0 + y * y);
    let mut s = t.exp();
    s += t * 3.0;
    -s.powi(2) + y.sqrt()
}

#[differentiable]
fn rosenbrock(x: f64, y: f64) -> f64 {
    (1.0 - x).powi(2) + 100.0 * (y - x * x).powi(2)
}

#[differentiable]
fn three(x: f64, y: f64, z: f64) -> f64 {
    let a = x.hypot(y) * z.tanh();
    let mut b = a;
    if z > 0.0 {
        b *= y.atan2(x);
    } else {
        b -= x.mul_add(y, z);
    }
    for i in 0..3 {
        b += (i as f64 + 1.0) * (x * z).cos();
    }
    b / (1.0 + a * a)
}

#[differentiable]
fn scalar(x: f64) -> f64 {
    x.sin().exp() * x.powf(1.5)
}

#[differentiable]
fn cube<T: Float>(x: T) -> T {
    x * x * x
}

fn scalar_prime(x: f64) -> f64 {
    let e = x.sin().exp();
    e * x.cos() * x.powf(1.5) + e * 1.5 * x.sqrt()
}

#[test]
fn first_derivative_of_a_path() {
    for x in [0.3, 1.0, 2.7] {
        let d = first_derivative!(at: x, of: scalar);
        assert_close(d, scalar_prime(x), 1e-13, "analytic");
        assert_close(d, fd(scalar, x), 1e-8, "fd");
        let (v, d2) = value_with_derivative!(at: x, of: scalar);
        assert_eq!(v, scalar(x));
        assert_eq!(d, d2);
    }
}

#[test]
fn first_derivative_of_std_methods() {
    let d = first_derivative!(at: 0.5, of: f64::tanh);
    assert_close(d, 1.0 - 0.5f64.tanh().powi(2), 1e-15, "tanh");
    let d = first_derivative!(at: 0.5_f32, of: f32::sin);
    assert_eq!(d, 0.5f32.cos());
    let (v, d) = value_with_derivative!(at: 2.0, of: f64::ln);
    assert_eq!((v, d), (2.0f64.ln(), 0.5));
    let d = first_derivative!(at: 4.0, of: f64::sqrt);
    assert_eq!(d, 0.25);
}

#[test]
fn first_derivative_of_generic_and_closures() {
    assert_eq!(first_derivative!(at: 2.0_f64, of: cube), 12.0);
    assert_eq!(first_derivative!(at: 2.0, of: cube::<f64>), 12.0);
    assert_eq!(first_derivative!(at: 2.0_f32, of: cube::<f32>), 12.0);
    assert_eq!(first_derivative!(at: 4.0, of: |x| x * x * x), 48.0);
    let (v, d) = value_with_derivative!(at: 0.25, of: |x| scalar(x) * 2.0 + x.cos());
    assert_eq!(v, scalar(0.25) * 2.0 + 0.25f64.cos());
    assert_close(
        d,
        2.0 * scalar_prime(0.25) - 0.25f64.sin(),
        1e-13,
        "closure",
    );
}

#[test]
fn differential_takes_a_tuple_of_input_tangents() {
    let (x, y) = (1.0, 2.0);
    let (gx, gy) = gradient!(at: (x, y), of: issue);
    let df = differential!(at: (x, y), of: issue);
    assert_close(df((1.0, 0.0)), gx, 1e-13, "e_x");
    let df = differential!(at: (x, y), of: issue);
    assert_close(df((0.0, 1.0)), gy, 1e-13, "e_y");
    let (v, df) = value_with_differential!(at: (x, y), of: issue);
    assert_eq!(v, issue(x, y));
    assert_close(df((0.1, 0.0)), 0.1 * gx, 1e-13, "API example");
}

#[test]
fn forward_agrees_with_reverse_on_random_directions() {
    let mut rng = Rng::new(10);
    for _ in 0..25 {
        let p = [
            rng.uniform(-1.5, 1.5),
            rng.uniform(-1.5, 1.5),
            rng.uniform(-1.5, 1.5),
        ];
        let v = rng.direction(3);
        let (gx, gy, gz) = gradient!(at: (p[0], p[1], p[2]), of: three);
        let (val, df) = value_with_differential!(at: (p[0], p[1], p[2]), of: three);
        assert_eq!(val, three(p[0], p[1], p[2]));
        let lhs = df((v[0], v[1], v[2]));
        assert_close(lhs, dot(&[gx, gy, gz], &v), 1e-12, "<grad, v> == df(v)");
        let fd = fd_dir(|q| three(q[0], q[1], q[2]), &p, &v);
        assert_close(lhs, fd, 1e-6, "df(v) vs fd");

        let q = (rng.uniform(-2.0, 2.0), rng.uniform(-1.0, 3.0));
        let (rx, ry) = gradient!(at: (q.0, q.1), of: rosenbrock);
        let df = differential!(at: (q.0, q.1), of: rosenbrock);
        assert_close(df((v[0], v[1])), rx * v[0] + ry * v[1], 1e-12, "rosenbrock");
    }
}

#[test]
fn differential_is_linear() {
    let df1 = differential!(at: (0.3, 0.9), of: issue);
    let df2 = differential!(at: (0.3, 0.9), of: issue);
    let df3 = differential!(at: (0.3, 0.9), of: issue);
    let a = df1((1.0, -2.0));
    let b = df2((0.5, 3.0));
    let c = df3((1.0 * 2.0 + 0.5, -2.0 * 2.0 + 3.0));
    assert_close(c, 2.0 * a + b, 1e-12, "linearity");
    let df = differential!(at: (0.3, 0.9), of: issue);
    assert_eq!(df((0.0, 0.0)), 0.0);
}

#[test]
fn differential_of_closure_with_two_inputs() {
    let df = differential!(at: (1.0, 2.0), of: |x, y| x * y + x.sin());
    assert_close(
        df((1.0, 1.0)),
        2.0 + 1.0f64.cos() + 1.0,
        1e-15,
        "closure df",
    );
}

// ---------------------------------------------------------------------------------------
// Jacobians.

#[differentiable]
fn array_scalar(p: [f64; 3]) -> f64 {
    p[0] * p[1].exp() + p[2].sin() * p[0]
}

#[test]
fn jacobian_of_array_to_scalar() {
    let x = [0.5, -1.0, 2.0];
    let j = jacobian!(at: x, of: array_scalar);
    let e = fd_jacobian(|p| vec![array_scalar([p[0], p[1], p[2]])], &x);
    assert_mat_close(&j, &e, 1e-8, "J");
    let (g0, g1, g2) = (j[0][0], j[0][1], j[0][2]);
    let g = gradient!(at: x, of: array_scalar);
    assert_close(g0, g[0], 1e-14, "row = gradient");
    assert_close(g1, g[1], 1e-14, "row = gradient");
    assert_close(g2, g[2], 1e-14, "row = gradient");
}

#[test]
fn jacobian_of_closures() {
    // Vec input, Vec output (the identity: building a Vec result from active values is
    // not supported yet, bugs-reverse.md 6).
    let x = vec![0.5, -1.0, 2.0];
    let j = jacobian!(at: x.clone(), of: |p| p);
    let id: Vec<Vec<f64>> = (0..3)
        .map(|i| (0..3).map(|k| if i == k { 1.0 } else { 0.0 }).collect())
        .collect();
    assert_eq!(j, id);
    // Array input, scalar output: one row, equal to the reverse-mode gradient.
    let a = [0.5, -1.0, 2.0];
    let j = jacobian!(at: a, of: |p| p[0] * p[1].cos() + p[2] * p[2]);
    let e = fd_jacobian(|p| vec![p[0] * p[1].cos() + p[2] * p[2]], &a);
    assert_mat_close(&j, &e, 1e-8, "closure J");
    let g = gradient!(at: a, of: |p| p[0] * p[1].cos() + p[2] * p[2]);
    assert_mat_close(&j, &[g.to_vec()], 1e-14, "row = gradient");
}

#[test]
fn generic_and_two_input_values_are_unchanged() {
    assert_eq!(cube(3.0_f64), 27.0);
    assert_eq!(rosenbrock(1.0, 1.0), 0.0);
    let (v, d) = value_with_derivative!(at: 1.5_f32, of: cube);
    assert_eq!((v, d), (cube(1.5_f32), 6.75));
}
