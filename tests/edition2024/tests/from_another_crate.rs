//! Differentiable functions and registrations of another crate (this package's library),
//! imported by name, by path and through a re-export, in edition 2024.
use diff::prelude::*;
use diff_edition2024::model::cube;
use diff_edition2024::{combined, loss, softplus};

fn close(a: f64, b: f64) {
    assert!((a - b).abs() <= 1e-9 * (1.0 + b.abs()), "{a} vs {b}");
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

#[differentiable]
fn local(x: f64) -> f64 {
    softplus(x) * 2.0 + cube(x) + diff_edition2024::model::cube(x) + combined(x)
}

#[test]
fn imported_by_name_by_path_and_re_exported() {
    let p = vec![0.5, 2.0, -1.0];
    let (v, g) = value_with_gradient!(at: &p, of: loss);
    close(v, p.iter().map(|x| (x - 1.0) * (x - 1.0)).sum());
    let expected: Vec<f64> = p.iter().map(|x| 2.0 * (x - 1.0)).collect();
    assert_eq!(g.len(), 3);
    for (a, b) in g.iter().zip(&expected) {
        close(*a, *b);
    }
    let g2 = gradient!(at: &p, of: diff_edition2024::model::loss);
    assert_eq!(g, g2);
    for x in [-1.5, 0.3, 2.0] {
        close(gradient!(at: x, of: cube::<f64>), 3.0 * x * x);
        close(gradient!(at: x, of: softplus), sigmoid(x));
        close(first_derivative!(at: x, of: softplus), sigmoid(x));
        let d = 3.0 * sigmoid(x) + 9.0 * x * x;
        let (v, g) = value_with_gradient!(at: x, of: local);
        close(v, 3.0 * softplus(x) + 3.0 * x * x * x);
        close(g, d);
        close(first_derivative!(at: x, of: local), d);
    }
}

mod through_a_trait {
    use diff::prelude::*;
    use diff_edition2024::objectives::{Line, Objective};

    /// Generic over the other crate's trait.
    #[differentiable]
    fn total<T: Objective + Differentiable>(m: &T, xs: &[f64]) -> f64 {
        let mut s = 0.0;
        for x in xs {
            s += m.squared(*x);
        }
        s
    }

    #[test]
    fn generic_function_over_another_crates_trait() {
        let line = Line { a: 2.0, b: -1.0 };
        let xs = [0.5, 1.0, 3.0];
        let (v, (dm, dxs)) = value_with_gradient!(at: (&line, &xs[..]), of: total);
        assert_eq!(v, total(&line, &xs));
        // sum (a x + b)^2: d/da = sum 2 (a x + b) x, d/db = sum 2 (a x + b)
        let da: f64 = xs.iter().map(|x| 2.0 * (2.0 * x - 1.0) * x).sum();
        let db: f64 = xs.iter().map(|x| 2.0 * (2.0 * x - 1.0)).sum();
        assert!((dm.a - da).abs() < 1e-12, "d/da {} vs {da}", dm.a);
        assert!((dm.b - db).abs() < 1e-12, "d/db {} vs {db}", dm.b);
        for (d, x) in dxs.iter().zip(xs) {
            assert!(
                (d - 2.0 * (2.0 * x - 1.0) * 2.0).abs() < 1e-12,
                "d/dx at {x}"
            );
        }
    }
}
