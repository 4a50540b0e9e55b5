//! A function in a module of its own name (`mod sphere;` holding `pub fn sphere`), the
//! module glob re-exported (`pub use sphere::*;`): the module shadows the function's
//! carrier in the parent, so its companions are also found through the module, and no
//! warning says the module hides a re-export (this file denies warnings). Checked against
//! hand-written derivatives.
#![deny(warnings)]
use diff::prelude::*;

#[path = "module_named_like_its_function/rosen.rs"]
mod rosen;
pub use rosen::*;

mod sphere {
    use diff::prelude::*;

    #[differentiable]
    pub fn sphere(x: &[f64]) -> f64 {
        x.iter().map(|v| v * v).sum()
    }
}
pub use sphere::*;

fn rosen_gradient(x: &[f64]) -> Vec<f64> {
    let mut g = vec![0.0; x.len()];
    for i in 0..x.len() - 1 {
        g[i] += -2.0 * (1.0 - x[i]) - 400.0 * x[i] * (x[i + 1] - x[i] * x[i]);
        g[i + 1] += 200.0 * (x[i + 1] - x[i] * x[i]);
    }
    g
}

fn close(a: &[f64], b: &[f64]) {
    for (x, y) in a.iter().zip(b) {
        assert!(
            (x - y).abs() <= 1e-9 * (1.0 + y.abs()),
            "{a:?} differs from {b:?}"
        );
    }
}

#[test]
fn through_the_glob_reexport() {
    let x = vec![0.3, -0.7, 1.1];
    let (v, g) = value_with_gradient!(at: &x, of: rosen::<f64>);
    assert_eq!(v, rosen(&x));
    close(&g, &rosen_gradient(&x));
    close(&gradient!(at: &x, of: sphere), &[0.6, -1.4, 2.2]);
    let h = hessian!(at: &x, of: rosen::<f64>);
    assert!((h[0][0] - (2.0 - 400.0 * (x[1] - 3.0 * x[0] * x[0]))).abs() < 1e-9);
    assert!((h[0][1] + 400.0 * x[0]).abs() < 1e-9 && (h[1][0] + 400.0 * x[0]).abs() < 1e-9);
}

#[test]
fn by_path_and_from_a_child_module() {
    let x = vec![0.3, -0.7, 1.1];
    close(
        &gradient!(at: &x, of: rosen::rosen::<f64>),
        &rosen_gradient(&x),
    );
    close(&gradient!(at: &x, of: crate::sphere), &[0.6, -1.4, 2.2]);
    mod child {
        use super::*;
        pub fn gradient_of_sphere(x: &[f64]) -> Vec<f64> {
            gradient!(at: x, of: sphere)
        }
    }
    close(&child::gradient_of_sphere(&x), &[0.6, -1.4, 2.2]);
}

#[test]
fn called_from_a_differentiable_function() {
    let x = vec![0.3, -0.7, 1.1];
    let (g, k) = gradient!(at: (&x, 2.0), of: rosen_scaled);
    let want: Vec<f64> = rosen_gradient(&x).iter().map(|v| 2.0 * v).collect();
    close(&g, &want);
    assert!((k - rosen(&x)).abs() < 1e-12);
}

/// The same layout one level down (`objectives/mod.rs` holding `mod ball; pub use
/// ball::*;`): called by its path through the parent module.
mod objectives {
    mod ball {
        use diff::prelude::*;

        #[differentiable]
        pub fn ball(x: &[f64]) -> f64 {
            x.iter().map(|v| v * v * v).sum()
        }
    }
    pub use ball::*;
}

#[differentiable]
fn twice_the_ball(x: &[f64]) -> f64 {
    2.0 * objectives::ball(x)
}

#[test]
fn by_path_one_level_down() {
    let x = vec![0.3, -0.7, 1.1];
    let want: Vec<f64> = x.iter().map(|v| 3.0 * v * v).collect();
    let (v, g) = value_with_gradient!(at: &x, of: objectives::ball);
    assert_eq!(v, objectives::ball(&x));
    close(&g, &want);
    let doubled: Vec<f64> = want.iter().map(|v| 2.0 * v).collect();
    close(&gradient!(at: &x, of: twice_the_ball), &doubled);
    let h = hessian!(at: &x, of: objectives::ball);
    for i in 0..3 {
        let row: Vec<f64> = (0..3)
            .map(|j| if i == j { 6.0 * x[i] } else { 0.0 })
            .collect();
        close(&h[i], &row);
    }
}

/// puruspe's layout: `mod gamma;` holding `pub fn gamma` and a sibling calling it, the
/// functions re-exported by name (`pub use gamma::{gamma, gammp};`), which brings the
/// functions and no type named like the module.
mod gamma {
    use diff::prelude::*;

    #[differentiable]
    pub fn gamma(x: f64) -> f64 {
        x * x.sin()
    }

    #[differentiable]
    pub fn gammp(x: f64) -> f64 {
        gamma(x) * x
    }

    pub mod within {
        use super::*;

        pub fn gradient_of_gamma(x: f64) -> f64 {
            gradient!(at: x, of: gamma)
        }
    }
}
pub use gamma::{gamma, gammp};

#[differentiable]
fn gamma_squared(x: f64) -> f64 {
    gamma(x) * gamma(x)
}

#[test]
fn reexported_by_name() {
    let x = 0.7;
    let d_gamma = x.sin() + x * x.cos();
    let (v, d) = value_with_gradient!(at: x, of: gamma);
    assert_eq!(v, gamma(x));
    assert!((d - d_gamma).abs() < 1e-12);
    let (v, d) = value_with_derivative!(at: x, of: gammp);
    assert_eq!(v, gammp(x));
    assert!((d - (d_gamma * x + gamma(x))).abs() < 1e-12);
    assert!((gamma::within::gradient_of_gamma(x) - d_gamma).abs() < 1e-12);
    let d = gradient!(at: x, of: gamma_squared);
    assert!((d - 2.0 * gamma(x) * d_gamma).abs() < 1e-12);
    let dd = second_derivative!(at: x, of: gamma);
    assert!((dd - (2.0 * x.cos() - x * x.sin())).abs() < 1e-12);
}

/// A function in a module of its own name, re-exported by name one level down (`pub use
/// kepler::{kepler, eccentric};` in `orbits`), then imported by name elsewhere or called
/// by path: the call names the companions where the function is defined.
mod orbits {
    pub mod kepler {
        use diff::prelude::*;

        /// The eccentric anomaly `E` solving Kepler's equation `E - e sin E = M`.
        #[differentiable]
        pub fn kepler(m: f64, e: f64) -> f64 {
            let mut ea = m;
            for _ in 0..30 {
                ea -= (ea - e * ea.sin() - m) / (1.0 - e * ea.cos());
            }
            ea
        }

        #[differentiable]
        pub fn eccentric(m: f64, e: f64) -> f64 {
            kepler(m, e) * 2.0
        }
    }
    pub use kepler::{eccentric, kepler};
}

#[deny(unused_imports)]
mod uses_orbits {
    use super::orbits::kepler;
    use super::orbits::kepler as renamed;
    use diff::prelude::*;

    #[differentiable]
    fn twice(m: f64, e: f64) -> f64 {
        kepler(m, e) + super::orbits::kepler(m, e)
    }

    #[test]
    fn reexported_by_name_one_level_down() {
        let (m, e) = (1.1, 0.35);
        let ea = kepler(m, e);
        assert!((ea - e * ea.sin() - m).abs() < 1e-14);
        // dE/dM = 1 / (1 - e cos E), dE/de = sin E / (1 - e cos E).
        let q = 1.0 - e * ea.cos();
        let (v, (dm, de)) = value_with_gradient!(at: (m, e), of: kepler);
        assert_eq!(v, ea);
        assert!((dm - 1.0 / q).abs() < 1e-12 && (de - ea.sin() / q).abs() < 1e-12);
        let (dm2, de2) = gradient!(at: (m, e), of: super::orbits::kepler);
        assert_eq!((dm2, de2), (dm, de));
        let (dm3, de3) = gradient!(at: (m, e), of: twice);
        assert!((dm3 - 2.0 * dm).abs() < 1e-12 && (de3 - 2.0 * de).abs() < 1e-12);
        let (dm4, de4) = gradient!(at: (m, e), of: super::orbits::eccentric);
        assert!((dm4 - 2.0 * dm).abs() < 1e-12 && (de4 - 2.0 * de).abs() < 1e-12);
        // Only in a closure, through a renamed import.
        let d = first_derivative!(at: e, of: |t: f64| renamed(m, t));
        assert!((d - de).abs() < 1e-12);
        // Second order against differences of the first derivative.
        let h = 1e-5;
        let fd = (gradient!(at: (m, e + h), of: kepler).1
            - gradient!(at: (m, e - h), of: kepler).1)
            / (2.0 * h);
        let d2 = second_derivative!(at: e, of: |t: f64| kepler(m, t));
        assert!((d2 - fd).abs() < 1e-6, "{d2} {fd}");
    }
}
