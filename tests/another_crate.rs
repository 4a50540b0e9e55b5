//! Differentiable functions of another crate (tests/objectives-crate), called every way
//! Rust names them: by path through the crate's root, imported by name, renamed, by glob,
//! and from differentiable bodies. The crate lays them out as published crates do: each in
//! a private module of its own name, glob re-exported (argmin_testfunctions' layout:
//! `mod sphere; pub use sphere::*;`), and re-exported by name (`pub use loss::huber;`).
//! Checked against hand-written derivatives.
#![deny(warnings)]
use diff::prelude::*;

fn close(a: &[f64], b: &[f64]) {
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(b) {
        assert!(
            (x - y).abs() <= 1e-9 * (1.0 + y.abs()),
            "{a:?} differs from {b:?}"
        );
    }
}

fn rosenbrock_gradient(x: &[f64]) -> Vec<f64> {
    let mut g = vec![0.0; x.len()];
    for i in 0..x.len() - 1 {
        g[i] += -2.0 * (1.0 - x[i]) - 400.0 * x[i] * (x[i + 1] - x[i] * x[i]);
        g[i + 1] += 200.0 * (x[i + 1] - x[i] * x[i]);
    }
    g
}

/// Huber's loss's gradient, (d/dr, d/ddelta).
fn huber_gradient(r: f64, delta: f64) -> (f64, f64) {
    if r.abs() <= delta {
        (r, 0.0)
    } else {
        (delta * r.signum(), r.abs() - delta)
    }
}

const X: [f64; 3] = [0.3, -0.7, 1.1];

#[test]
fn by_path_through_the_root() {
    let x = X.to_vec();
    let (v, g) = value_with_gradient!(at: &x, of: diff_objectives_fixture::sphere);
    assert_eq!(v, diff_objectives_fixture::sphere(&x));
    close(&g, &[0.6, -1.4, 2.2]);
    close(
        &gradient!(at: &x, of: diff_objectives_fixture::rosenbrock::<f64>),
        &rosenbrock_gradient(&x),
    );
    let (dr, dd) = gradient!(at: (1.5, 1.0), of: diff_objectives_fixture::huber);
    assert_eq!((dr, dd), huber_gradient(1.5, 1.0));
    let (dr, dd) = gradient!(at: (-0.5, 1.0), of: diff_objectives_fixture::loss::huber);
    assert_eq!((dr, dd), huber_gradient(-0.5, 1.0));
}

mod by_name {
    use super::*;
    use diff_objectives_fixture::{huber, rosenbrock, sphere};

    #[test]
    fn imported_by_name() {
        let x = X.to_vec();
        close(&gradient!(at: &x, of: sphere), &[0.6, -1.4, 2.2]);
        close(
            &gradient!(at: &x, of: rosenbrock::<f64>),
            &rosenbrock_gradient(&x),
        );
        assert_eq!(
            gradient!(at: (1.5, 1.0), of: huber),
            huber_gradient(1.5, 1.0)
        );
    }
}

mod renamed {
    use super::*;
    use diff_objectives_fixture::huber as hub;
    use diff_objectives_fixture::sphere as ball;

    #[test]
    fn imported_renamed() {
        let x = X.to_vec();
        close(&gradient!(at: &x, of: ball), &[0.6, -1.4, 2.2]);
        assert_eq!(
            gradient!(at: (-2.0, 1.0), of: hub),
            huber_gradient(-2.0, 1.0)
        );
    }
}

mod by_glob {
    use super::*;
    use diff_objectives_fixture::*;

    #[differentiable]
    fn fit(x: &[f64]) -> f64 {
        2.0 * sphere(x) + rosenbrock(x) + huber(x[0], 0.5) + loss::mean_square(x)
    }

    #[test]
    fn imported_by_glob_and_called_in_a_body() {
        let x = X.to_vec();
        close(&gradient!(at: &x, of: sphere), &[0.6, -1.4, 2.2]);
        let (v, g) = value_with_gradient!(at: &x, of: fit);
        assert_eq!(v, fit(&x));
        let mut want = rosenbrock_gradient(&x);
        for (i, w) in want.iter_mut().enumerate() {
            *w += 4.0 * x[i] + 2.0 * x[i] / 3.0;
        }
        want[0] += huber_gradient(x[0], 0.5).0;
        close(&g, &want);
    }
}

#[differentiable]
fn by_paths_in_a_body(x: &[f64]) -> f64 {
    diff_objectives_fixture::sphere(x) * diff_objectives_fixture::huber(x[1], 1.0)
}

#[test]
fn called_by_path_in_a_body_forward_and_second_order() {
    let x = X.to_vec();
    let s = diff_objectives_fixture::sphere(&x);
    let h = diff_objectives_fixture::huber(x[1], 1.0);
    let mut want: Vec<f64> = x.iter().map(|v| 2.0 * v * h).collect();
    want[1] += s * huber_gradient(x[1], 1.0).0;
    close(&gradient!(at: &x, of: by_paths_in_a_body), &want);
    // Forward mode: the Jacobian of a scalar function is one row.
    let jac = jacobian!(at: &x, of: by_paths_in_a_body);
    close(&jac[0], &want);
    // Second order through the other crate: the Hessian of the sphere is 2 I.
    let hess = hessian!(at: &x, of: diff_objectives_fixture::sphere);
    for (i, row) in hess.iter().enumerate() {
        let want: Vec<f64> = (0..3).map(|j| if i == j { 2.0 } else { 0.0 }).collect();
        close(row, &want);
    }
}

/// The gradient of another crate's objective through its trait, at `p`, for any type
/// implementing it (data only: the receiver carries no derivative).
fn objective_gradient<O: diff_objectives_fixture::Objective>(o: &O, p: &Vec<f64>) -> Vec<f64> {
    gradient!(at: p, of: |q: &[f64]| o.value(q))
}

#[test]
fn a_trait_method_of_another_crate_on_a_receiver_that_is_data() {
    use diff_objectives_fixture::{Objective, Weighted};
    let o = Weighted { k: 3.0 };
    let p = vec![2.0, -1.0];
    // d/dp k * |p|^2 = 2 k p.
    let g = gradient!(at: &p, of: |q: &[f64]| o.value(q));
    close(&g, &[12.0, -6.0]);
    close(&objective_gradient(&o, &p), &[12.0, -6.0]);
    let (v, g) = value_with_gradient!(at: &p, of: |q: &[f64]| o.value(q));
    assert_eq!(v, o.value(&p));
    close(&g, &[12.0, -6.0]);
}

/// Calls functions re-exported by name out of private modules of their own names.
#[differentiable]
fn special_mix(x: f64) -> f64 {
    use diff_objectives_fixture::special::{erf, softplus};
    erf(x) + diff_objectives_fixture::special::softplus(x) * softplus(x)
}

#[test]
fn functions_re_exported_by_name_out_of_private_modules_of_their_names() {
    use diff_objectives_fixture::softplus_squared;
    use diff_objectives_fixture::special::{erf, erf_softplus, softplus};
    let sigmoid = |x: f64| 1.0 / (1.0 + (-x).exp());
    let fd = |f: &dyn Fn(f64) -> f64, x: f64| (f(x + 1e-6) - f(x - 1e-6)) / 2e-6;
    for x in [-1.3, 0.4, 2.0] {
        // softplus' = sigmoid, softplus'' = sigmoid (1 - sigmoid).
        let (v, d) = value_with_gradient!(at: x, of: softplus);
        assert_eq!(v, softplus(x));
        close(&[d], &[sigmoid(x)]);
        close(&[first_derivative!(at: x, of: softplus)], &[sigmoid(x)]);
        let s2 = second_derivative!(at: x, of: softplus);
        close(&[s2], &[sigmoid(x) * (1.0 - sigmoid(x))]);
        // Through a path, and from bodies of this crate, of the module and of the root.
        close(
            &[gradient!(at: x, of: diff_objectives_fixture::special::erf)],
            &[fd(&erf, x)],
        );
        let (v, d) = value_with_gradient!(at: x, of: special_mix);
        assert_eq!(v, special_mix(x));
        assert!(
            (d - fd(&special_mix, x)).abs() < 1e-6,
            "{d} {}",
            fd(&special_mix, x)
        );
        let d = gradient!(at: x, of: erf_softplus);
        assert!((d - fd(&erf_softplus, x)).abs() < 1e-6);
        let d = gradient!(at: x, of: softplus_squared);
        close(&[d], &[2.0 * softplus(x) * sigmoid(x)]);
        let h = second_derivative!(at: x, of: softplus_squared);
        let sg = sigmoid(x);
        close(&[h], &[2.0 * sg * sg + 2.0 * softplus(x) * sg * (1.0 - sg)]);
    }
}

/// The same log-density, written in this crate with the other crate's struct.
#[differentiable]
fn normal_ln_pdf_here(mean: f64, std_dev: f64) -> f64 {
    let n = diff_objectives_fixture::dist::Normal::new_unchecked(mean, std_dev);
    n.ln_pdf(2.0)
}

#[test]
fn structs_of_modules_and_traits_of_other_files_at_first_and_second_order() {
    use diff_objectives_fixture::{normal_ln_pdf_at_2, poisson_ln_pmf_at_3};
    // d/dm = (2 - m) / s^2, d2/dm2 = -1 / s^2; d/ds = (2 - m)^2 / s^3 - 1 / s.
    let (m, s) = (1.0, 0.5);
    let expected = [
        (2.0 - m) / (s * s),
        (2.0 - m) * (2.0 - m) / (s * s * s) - 1.0 / s,
    ];
    let (v, (dm, ds)) = value_with_gradient!(at: (m, s), of: normal_ln_pdf_at_2);
    assert_eq!(v, normal_ln_pdf_at_2(m, s));
    close(&[dm, ds], &expected);
    let (v, (dm, ds)) = value_with_gradient!(at: (m, s), of: normal_ln_pdf_here);
    assert_eq!(v, normal_ln_pdf_here(m, s));
    close(&[dm, ds], &expected);
    let h = second_derivative!(at: m, of: |t| normal_ln_pdf_at_2(t, 0.5));
    close(&[h], &[-1.0 / (s * s)]);
    let h = second_derivative!(at: m, of: |t| normal_ln_pdf_here(t, 0.5));
    close(&[h], &[-1.0 / (s * s)]);
    // d/dl (-l + 3 ln l) = -1 + 3 / l; second: -3 / l^2.
    let l = 2.0;
    let (v, d) = value_with_gradient!(at: l, of: poisson_ln_pmf_at_3);
    assert_eq!(v, poisson_ln_pmf_at_3(l));
    close(&[d], &[-1.0 + 3.0 / l]);
    close(
        &[second_derivative!(at: l, of: poisson_ln_pmf_at_3)],
        &[-3.0 / (l * l)],
    );
}
