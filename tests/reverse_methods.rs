//! Every float method with a derivative rule, used inside a `#[differentiable]` function,
//! in `f64` and in `f32`: the gradient against the analytic derivative and against
//! finite differences, the value against the method itself, and forward mode
//! (`first_derivative!`) against reverse mode.

mod common;

use common::{assert_close, assert_close32, fd, fd32};
use diff::prelude::*;

const GENERAL: [f64; 4] = [-1.3, -0.2, 0.4, 2.2];
const POSITIVE: [f64; 4] = [0.3, 0.9, 2.5, 7.0];
const UNIT: [f64; 4] = [-0.7, -0.1, 0.2, 0.6];
const ABOVE_ONE: [f64; 3] = [1.2, 2.0, 5.0];
const SMALL: [f64; 4] = [-1.2, -0.4, 0.3, 1.1];

/// One test module per unary method: `#[differentiable]` functions in f64 and f32 whose
/// body is `$body` (a closure-like `|x| expr`), the analytic derivative `$d`, the points.
macro_rules! unary {
    ($name:ident, |$x:ident| $body:expr, d = |$y:ident| $d:expr, at = $points:expr) => {
        mod $name {
            use super::*;

            #[differentiable]
            fn f64_fn($x: f64) -> f64 {
                $body
            }

            #[differentiable]
            fn f32_fn($x: f32) -> f32 {
                $body
            }

            fn direct64($x: f64) -> f64 {
                $body
            }

            fn direct32($x: f32) -> f32 {
                $body
            }

            fn analytic($y: f64) -> f64 {
                $d
            }

            #[test]
            fn f64_gradient() {
                for p in $points {
                    let (v, g) = value_with_gradient!(at: p, of: f64_fn);
                    assert_eq!(v.to_bits(), direct64(p).to_bits(), "value at {p}");
                    assert_eq!(f64_fn(p).to_bits(), direct64(p).to_bits(), "original at {p}");
                    assert_close(g, analytic(p), 1e-12, &format!("analytic at {p}"));
                    assert_close(g, fd(direct64, p), 1e-6, &format!("fd at {p}"));
                }
            }

            #[test]
            fn f32_gradient() {
                for p in $points {
                    let p = p as f32;
                    let (v, g) = value_with_gradient!(at: p, of: f32_fn);
                    assert_eq!(v.to_bits(), direct32(p).to_bits(), "value at {p}");
                    assert_eq!(f32_fn(p).to_bits(), direct32(p).to_bits(), "original at {p}");
                    assert_close32(g, analytic(p as f64) as f32, 1e-4, &format!("analytic at {p}"));
                    assert_close32(g, fd32(direct32, p), 2e-2, &format!("fd at {p}"));
                }
            }

            #[test]
            fn forward_matches_reverse() {
                for p in $points {
                    let g = gradient!(at: p, of: f64_fn);
                    let (v, d) = value_with_derivative!(at: p, of: f64_fn);
                    assert_eq!(v.to_bits(), direct64(p).to_bits(), "value at {p}");
                    assert_close(d, g, 1e-14, &format!("f64 at {p}"));
                    let p = p as f32;
                    let g = gradient!(at: p, of: f32_fn);
                    let d = first_derivative!(at: p, of: f32_fn);
                    assert_close32(d, g, 1e-6, &format!("f32 at {p}"));
                }
            }
        }
    };
}

unary!(sin, |x| x.sin(), d = |x| x.cos(), at = GENERAL);
unary!(cos, |x| x.cos(), d = |x| -x.sin(), at = GENERAL);
unary!(
    tan,
    |x| x.tan(),
    d = |x| 1.0 / (x.cos() * x.cos()),
    at = SMALL
);
unary!(
    asin,
    |x| x.asin(),
    d = |x| 1.0 / (1.0 - x * x).sqrt(),
    at = UNIT
);
unary!(
    acos,
    |x| x.acos(),
    d = |x| -1.0 / (1.0 - x * x).sqrt(),
    at = UNIT
);
unary!(
    atan,
    |x| x.atan(),
    d = |x| 1.0 / (1.0 + x * x),
    at = GENERAL
);
unary!(sinh, |x| x.sinh(), d = |x| x.cosh(), at = GENERAL);
unary!(cosh, |x| x.cosh(), d = |x| x.sinh(), at = GENERAL);
unary!(
    tanh,
    |x| x.tanh(),
    d = |x| 1.0 - x.tanh() * x.tanh(),
    at = GENERAL
);
unary!(
    asinh,
    |x| x.asinh(),
    d = |x| 1.0 / (x * x + 1.0).sqrt(),
    at = GENERAL
);
unary!(
    acosh,
    |x| x.acosh(),
    d = |x| 1.0 / (x * x - 1.0).sqrt(),
    at = ABOVE_ONE
);
unary!(atanh, |x| x.atanh(), d = |x| 1.0 / (1.0 - x * x), at = UNIT);
unary!(exp, |x| x.exp(), d = |x| x.exp(), at = GENERAL);
unary!(
    exp2,
    |x| x.exp2(),
    d = |x| x.exp2() * std::f64::consts::LN_2,
    at = GENERAL
);
unary!(exp_m1, |x| x.exp_m1(), d = |x| x.exp(), at = GENERAL);
unary!(ln, |x| x.ln(), d = |x| 1.0 / x, at = POSITIVE);
unary!(ln_1p, |x| x.ln_1p(), d = |x| 1.0 / (1.0 + x), at = UNIT);
unary!(
    log2,
    |x| x.log2(),
    d = |x| 1.0 / (x * std::f64::consts::LN_2),
    at = POSITIVE
);
unary!(
    log10,
    |x| x.log10(),
    d = |x| 1.0 / (x * std::f64::consts::LN_10),
    at = POSITIVE
);
unary!(sqrt, |x| x.sqrt(), d = |x| 0.5 / x.sqrt(), at = POSITIVE);
unary!(
    cbrt,
    |x| x.cbrt(),
    d = |x| 1.0 / (3.0 * x.cbrt() * x.cbrt()),
    at = GENERAL
);
unary!(recip, |x| x.recip(), d = |x| -1.0 / (x * x), at = GENERAL);
unary!(abs, |x| x.abs(), d = |x| x.signum(), at = GENERAL);
unary!(
    to_degrees,
    |x| x.to_degrees(),
    d = |_x| 180.0 / std::f64::consts::PI,
    at = GENERAL
);
unary!(
    to_radians,
    |x| x.to_radians(),
    d = |_x| std::f64::consts::PI / 180.0,
    at = GENERAL
);
unary!(fract, |x| x.fract(), d = |_x| 1.0, at = GENERAL);
// Piecewise constant: zero derivative (away from the jumps), added to x^2 so the
// gradient is not trivially zero.
unary!(
    signum,
    |x| x.signum() + x * x,
    d = |x| 2.0 * x,
    at = GENERAL
);
unary!(floor, |x| x.floor() + x * x, d = |x| 2.0 * x, at = GENERAL);
unary!(ceil, |x| x.ceil() + x * x, d = |x| 2.0 * x, at = GENERAL);
unary!(round, |x| x.round() + x * x, d = |x| 2.0 * x, at = GENERAL);
unary!(trunc, |x| x.trunc() + x * x, d = |x| 2.0 * x, at = GENERAL);
// Methods with inactive or constant extra arguments.
unary!(powi, |x| x.powi(3), d = |x| 3.0 * x * x, at = GENERAL);
unary!(
    powi_negative,
    |x| x.powi(-2),
    d = |x| -2.0 / (x * x * x),
    at = GENERAL
);
unary!(
    powf_const_exponent,
    |x| x.powf(2.5),
    d = |x| 2.5 * x.powf(1.5),
    at = POSITIVE
);
unary!(
    log_base,
    |x| x.log(3.0),
    d = |x| 1.0 / (x * 3f64.ln()),
    at = POSITIVE
);
unary!(
    clamp_inside,
    |x| x.clamp(-5.0, 5.0),
    d = |_x| 1.0,
    at = GENERAL
);
unary!(
    clamp_outside,
    |x| x.clamp(-0.1, 0.1) * x,
    d = |x| x.clamp(-0.1, 0.1),
    at = [-1.3, 2.2]
);
unary!(
    mul_add_const,
    |x| x.mul_add(2.0, 1.0),
    d = |_x| 2.0,
    at = GENERAL
);

/// Two active arguments: `$body` uses `$x` and `$y`; `$d` gives the pair of partials.
macro_rules! binary {
    ($name:ident, |$x:ident, $y:ident| $body:expr, d = |$a:ident, $b:ident| $d:expr, at = $points:expr) => {
        mod $name {
            use super::*;

            #[differentiable]
            fn f64_fn($x: f64, $y: f64) -> f64 {
                $body
            }

            #[differentiable]
            fn f32_fn($x: f32, $y: f32) -> f32 {
                $body
            }

            fn direct64($x: f64, $y: f64) -> f64 {
                $body
            }

            fn direct32($x: f32, $y: f32) -> f32 {
                $body
            }

            fn analytic($a: f64, $b: f64) -> (f64, f64) {
                $d
            }

            #[test]
            fn f64_gradient() {
                for (p, q) in $points {
                    let (v, (gx, gy)) = value_with_gradient!(at: (p, q), of: f64_fn);
                    assert_eq!(v.to_bits(), direct64(p, q).to_bits());
                    assert_eq!(f64_fn(p, q).to_bits(), direct64(p, q).to_bits());
                    let (ex, ey) = analytic(p, q);
                    assert_close(gx, ex, 1e-12, &format!("d/dx at ({p}, {q})"));
                    assert_close(gy, ey, 1e-12, &format!("d/dy at ({p}, {q})"));
                    assert_close(gx, fd(|t| direct64(t, q), p), 1e-6, "fd d/dx");
                    assert_close(gy, fd(|t| direct64(p, t), q), 1e-6, "fd d/dy");
                }
            }

            #[test]
            fn f32_gradient() {
                for (p, q) in $points {
                    let (gx, gy) = gradient!(at: (p as f32, q as f32), of: f32_fn);
                    let (ex, ey) = analytic(p, q);
                    assert_close32(gx, ex as f32, 1e-4, "d/dx");
                    assert_close32(gy, ey as f32, 1e-4, "d/dy");
                    let (p, q) = (p as f32, q as f32);
                    assert_eq!(f32_fn(p, q).to_bits(), direct32(p, q).to_bits());
                    let v = value_with_gradient!(at: (p, q), of: f32_fn).0;
                    assert_eq!(v.to_bits(), direct32(p, q).to_bits());
                }
            }

            #[test]
            fn forward_matches_reverse() {
                for (p, q) in $points {
                    let (gx, gy) = gradient!(at: (p, q), of: f64_fn);
                    let df = differential!(at: (p, q), of: f64_fn);
                    assert_close(df((0.3, -0.8)), 0.3 * gx - 0.8 * gy, 1e-13, "<g, v>");
                }
            }
        }
    };
}

const PAIRS: [(f64, f64); 4] = [(0.5, 1.5), (-1.2, 0.7), (2.0, -0.3), (-0.4, -2.5)];
const POSITIVE_PAIRS: [(f64, f64); 3] = [(0.5, 1.5), (2.0, 0.3), (3.0, -1.2)];

binary!(
    atan2,
    |y, x| y.atan2(x),
    d = |y, x| (x / (x * x + y * y), -y / (x * x + y * y)),
    at = PAIRS
);
binary!(
    hypot,
    |x, y| x.hypot(y),
    d = |x, y| (x / x.hypot(y), y / x.hypot(y)),
    at = PAIRS
);
binary!(
    powf,
    |x, e| x.powf(e),
    d = |x, e| (e * x.powf(e - 1.0), x.powf(e) * x.ln()),
    at = POSITIVE_PAIRS
);
binary!(
    log_active_base,
    |x, b| x.log(b + 3.0),
    d = |x, b| {
        let lb = (b + 3.0).ln();
        (1.0 / (x * lb), -x.ln() / ((b + 3.0) * lb * lb))
    },
    at = [(0.5, 1.5), (2.0, 0.3)]
);
binary!(
    min,
    |x, y| x.min(y) * 2.0,
    d = |x, y| if x < y { (2.0, 0.0) } else { (0.0, 2.0) },
    at = PAIRS
);
binary!(
    max,
    |x, y| x.max(y) * 2.0,
    d = |x, y| if x > y { (2.0, 0.0) } else { (0.0, 2.0) },
    at = PAIRS
);
binary!(
    mul_add,
    |x, y| x.mul_add(y, x * y),
    d = |x, y| (2.0 * y, 2.0 * x),
    at = PAIRS
);
binary!(
    mul_add_addend,
    |x, y| (x * 0.5).mul_add(y, y.sin()),
    d = |x, y| (0.5 * y, 0.5 * x + y.cos()),
    at = PAIRS
);
binary!(
    rem,
    |x, y| x % y,
    d = |x, y| (1.0, -(x / y).trunc()),
    at = [(5.3, 1.5), (-3.7, 1.1), (2.5, -0.7)]
);
binary!(
    operators,
    |x, y| (x + y) * (x - y) / (y * y + 1.0) - -x,
    d = |x, y| {
        let q = y * y + 1.0;
        (
            2.0 * x / q + 1.0,
            -2.0 * y / q - (x * x - y * y) * 2.0 * y / (q * q),
        )
    },
    at = PAIRS
);
binary!(
    clamp_active_bounds,
    |x, lo| x.clamp(lo, lo + 1.0),
    d = |x, lo| {
        // Outside the interval the result is a bound, which moves with `lo`.
        if x < lo || x > lo + 1.0 {
            (0.0, 1.0)
        } else {
            (1.0, 0.0)
        }
    },
    at = [(0.5, 0.0), (-3.0, 0.0), (3.0, 0.5)]
);

#[derive(Differentiable, Clone, Debug)]
struct Account {
    balance: f64,
}

impl Account {
    /// Updates `self` and returns a field of it.
    #[differentiable]
    fn grow(&mut self, rate: f64) -> f64 {
        self.balance *= 1.0 + rate;
        self.balance
    }

    /// Calls the updating method on `self` and uses its result.
    #[differentiable]
    fn grow_twice(&mut self, rate: f64) -> f64 {
        let first = self.grow(rate);
        first + self.grow(rate)
    }
}

/// The results of `&mut self` methods used in expressions, on a local and through a
/// `&mut` parameter.
#[differentiable]
fn compounded(rate: f64) -> f64 {
    let mut a = Account { balance: 2.0 };
    let r = a.grow(rate);
    let both = a.grow_twice(rate);
    r + a.balance + both
}

#[differentiable]
fn through_a_parameter(a: &mut Account, rate: f64) -> f64 {
    let r = a.grow(rate);
    r * a.balance
}

#[differentiable]
fn compounded_through_a_parameter(rate: f64) -> f64 {
    let mut a = Account { balance: 1.5 };
    through_a_parameter(&mut a, rate) + a.balance
}

#[test]
fn results_of_methods_updating_self() {
    let r = 0.1;
    let (v, g) = value_with_gradient!(at: r, of: compounded);
    assert_eq!(v, compounded(r));
    // r = 2q, then 2q² + 2q³ with the balance 2q³ after: 2q + 2q² + 4q³ (q = 1 + r).
    let q = 1.0 + r;
    assert_close(
        v,
        2.0 * q + 2.0 * q * q + 4.0 * q.powi(3),
        1e-12,
        "compounded",
    );
    let slope = 2.0 + 4.0 * q + 12.0 * q * q;
    assert_close(g, slope, 1e-12, "compounded");
    assert_close(
        first_derivative!(at: r, of: compounded),
        slope,
        1e-12,
        "compounded",
    );
    let (v, g) = value_with_gradient!(at: r, of: compounded_through_a_parameter);
    assert_eq!(v, compounded_through_a_parameter(r));
    assert_close(
        g,
        fd(compounded_through_a_parameter, r),
        1e-8,
        "through a parameter",
    );
    // hessian of the same through second_derivative!.
    let d2 = second_derivative!(at: r, of: compounded);
    assert_close(d2, 4.0 + 24.0 * q, 1e-12, "compounded");
}
