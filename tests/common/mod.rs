//! Oracles shared by the end-to-end tests: finite differences, approximate comparisons
//! and a tiny deterministic random number generator for random directions.
//!
//! Every helper here is independent of `diff`: it only evaluates the original functions,
//! and checks numbers an operator returned against them. The macros in `checks.rs` run the
//! operators themselves; a suite that uses them declares `#[macro_use] mod common;`.
#![allow(dead_code)]

use approx::relative_eq;

#[macro_use]
mod checks;

/// Five-point central difference of a scalar function (error O(h^4)).
pub fn fd(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    fd_step(f, x, 1e-3 * x.abs().max(1.0))
}

/// [`fd`] with the step `h` given: for a point within `2h` of a kink or of the edge of
/// the function's domain at [`fd`]'s step.
pub fn fd_step(f: impl Fn(f64) -> f64, x: f64, h: f64) -> f64 {
    (-f(x + 2.0 * h) + 8.0 * f(x + h) - 8.0 * f(x - h) + f(x - 2.0 * h)) / (12.0 * h)
}

/// Five-point central difference in `f32` (coarser step: f32 has 24 bits).
pub fn fd32(f: impl Fn(f32) -> f32, x: f32) -> f32 {
    let h = 1e-2 * x.abs().max(1.0);
    (-f(x + 2.0 * h) + 8.0 * f(x + h) - 8.0 * f(x - h) + f(x - 2.0 * h)) / (12.0 * h)
}

/// The directional derivative `d/dt f(x + t v)` at `t = 0`, by central differences.
pub fn fd_dir(f: impl Fn(&[f64]) -> f64, x: &[f64], v: &[f64]) -> f64 {
    fd(
        |t| {
            let p: Vec<f64> = x.iter().zip(v).map(|(a, b)| a + t * b).collect();
            f(&p)
        },
        0.0,
    )
}

/// The gradient of `f: R^n -> R` by central differences, one coordinate at a time.
pub fn fd_grad(f: impl Fn(&[f64]) -> f64, x: &[f64]) -> Vec<f64> {
    (0..x.len())
        .map(|i| {
            fd(
                |t| {
                    let mut p = x.to_vec();
                    p[i] = t;
                    f(&p)
                },
                x[i],
            )
        })
        .collect()
}

/// The Jacobian of `f: R^n -> R^m` by central differences: `m` rows of `n` entries.
pub fn fd_jacobian(f: impl Fn(&[f64]) -> Vec<f64>, x: &[f64]) -> Vec<Vec<f64>> {
    let m = f(x).len();
    let cols: Vec<Vec<f64>> = (0..x.len())
        .map(|j| {
            (0..m)
                .map(|i| {
                    fd(
                        |t| {
                            let mut p = x.to_vec();
                            p[j] = t;
                            f(&p)[i]
                        },
                        x[j],
                    )
                })
                .collect()
        })
        .collect();
    (0..m)
        .map(|i| (0..x.len()).map(|j| cols[j][i]).collect())
        .collect()
}

/// `a ≈ b` with a relative tolerance (and the same absolute tolerance near zero).
pub fn close(a: f64, b: f64, tol: f64) -> bool {
    relative_eq!(a, b, epsilon = tol, max_relative = tol)
}

/// Asserts `actual ≈ expected`, printing both and a context label on failure.
#[track_caller]
pub fn assert_close(actual: f64, expected: f64, tol: f64, what: &str) {
    assert!(
        close(actual, expected, tol),
        "{what}: got {actual:e}, expected {expected:e} (tol {tol:e})"
    );
}

/// `f32` version of [`assert_close`].
#[track_caller]
pub fn assert_close32(actual: f32, expected: f32, tol: f32, what: &str) {
    assert!(
        relative_eq!(actual, expected, epsilon = tol, max_relative = tol),
        "{what}: got {actual:e}, expected {expected:e} (tol {tol:e})"
    );
}

/// Element-wise [`assert_close`] of two vectors of the same length.
#[track_caller]
pub fn assert_vec_close(actual: &[f64], expected: &[f64], tol: f64, what: &str) {
    assert_eq!(actual.len(), expected.len(), "{what}: lengths differ");
    for (i, (a, e)) in actual.iter().zip(expected).enumerate() {
        assert!(
            close(*a, *e, tol),
            "{what}[{i}]: got {a:e}, expected {e:e} (tol {tol:e})\n  actual   {actual:?}\n  expected {expected:?}"
        );
    }
}

/// Element-wise [`assert_close`] of two matrices.
#[track_caller]
pub fn assert_mat_close(actual: &[Vec<f64>], expected: &[Vec<f64>], tol: f64, what: &str) {
    assert_eq!(actual.len(), expected.len(), "{what}: row counts differ");
    for (i, (a, e)) in actual.iter().zip(expected).enumerate() {
        assert_vec_close(a, e, tol, &format!("{what} row {i}"));
    }
}

/// Checks what an operator returned for `f` of one scalar at `x`: `got` is
/// `(value, slope)` (from `value_with_gradient!` or `value_with_derivative!`). The value
/// must be `f(x)` bit for bit, the slope [`fd`]'s within a relative 1e-7.
#[track_caller]
pub fn check_value_and_slope(name: &str, f: impl Fn(f64) -> f64, x: f64, got: (f64, f64)) {
    assert_eq!(
        got.0.to_bits(),
        f(x).to_bits(),
        "{name}: value {:e} vs {:e}",
        got.0,
        f(x)
    );
    assert_close(
        got.1,
        fd(&f, x),
        1e-7,
        &format!("{name}: derivative at {x}"),
    );
}

/// Checks what `value_with_gradient!(at: (x, y), of: f)` returned: the value `f(x, y)` bit
/// for bit, each partial derivative [`fd`]'s within a relative 1e-7.
#[track_caller]
pub fn check_value_and_gradient2(
    name: &str,
    f: impl Fn(f64, f64) -> f64,
    (x, y): (f64, f64),
    got: (f64, (f64, f64)),
) {
    let value = f(x, y);
    assert_eq!(
        got.0.to_bits(),
        value.to_bits(),
        "{name}: value {:e} vs {value:e}",
        got.0
    );
    let (dx, dy) = (fd(|x| f(x, y), x), fd(|y| f(x, y), y));
    assert_close(got.1 .0, dx, 1e-7, &format!("{name}: d/dx at ({x}, {y})"));
    assert_close(got.1 .1, dy, 1e-7, &format!("{name}: d/dy at ({x}, {y})"));
}

/// Inner product.
pub fn dot(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// A deterministic xorshift64* generator: reproducible random points and directions.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `[lo, hi)`.
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    /// A vector of `n` entries uniform in `[-1, 1)`.
    pub fn direction(&mut self, n: usize) -> Vec<f64> {
        (0..n).map(|_| self.uniform(-1.0, 1.0)).collect()
    }
}
