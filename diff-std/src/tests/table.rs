//! Every rule of the table against finite differences, in both modes and as a method of
//! `Dual`, for `f64` and `f32`.

use super::harness::{Rule, TestFloat};
use crate::prelude::*;
use diff_core::Dual;
use num_traits::Float;
#[allow(unused_imports)] // `add`, `sub`, ... as methods, for the operator rules
use std::ops::{Add, Div, Mul, Neg, Rem, Sub};

/// `check!(name, vjp, jvp, (params), [points])`: a test of one rule for `f64` and `f32`.
macro_rules! check {
    ($name:ident, $vjp:ident, $jvp:ident, ($x:ident $(, $p:ident)*), $points:expr) => {
        #[test]
        fn $name() {
            fn run<T: TestFloat>() {
                Rule::<T, _> {
                    name: stringify!($name),
                    primal64: &|[$x, $($p),*]: [f64; _]| $x.$name($($p),*),
                    primal: &|[$x, $($p),*]: [T; _]| $x.$name($($p),*),
                    vjp: &|[$x, $($p),*]: [T; _], seed: T| {
                        let (y, pullback) = $x.$vjp($($p),*);
                        let ($x, $($p,)*) = pullback(seed);
                        (y, [$x, $($p),*])
                    },
                    jvp: &|point: [T; _], tangents: [Option<T>; _]| {
                        let [$x, $($p),*] = point;
                        let (y, differential) = $x.$jvp($($p),*);
                        let [$x, $($p),*] = tangents;
                        (y, differential(($x, $($p,)*)))
                    },
                    dual: &|point: [T; _], eps: [T; _]| {
                        let [$x, $($p),*] = core::array::from_fn(|i| Dual::new(point[i], eps[i]));
                        $x.$name($($p),*)
                    },
                }
                .check(&$points);
            }
            run::<f64>();
            run::<f32>();
        }
    };
}

/// `checks! { name, vjp, jvp, (params), [points]; ... }`: the tests, and the list of the
/// rules they cover.
macro_rules! checks {
    ($($name:ident, $vjp:ident, $jvp:ident, $params:tt, $points:expr;)*) => {
        $(check!($name, $vjp, $jvp, $params, $points);)*

        /// The rules tested by `check!` (`powi`, with its integer parameter, below).
        const CHECKED: &[&str] = &[$(stringify!($name),)* "powi"];
    };
}

// Points avoid the kinks of the piecewise rules and stay inside each domain.
const LINE: [[f64; 1]; 6] = [[-2.3], [-0.7], [-0.2], [0.3], [1.1], [2.6]];
const UNIT: [[f64; 1]; 5] = [[-0.9], [-0.45], [0.05], [0.6], [0.85]];
const POSITIVE: [[f64; 1]; 5] = [[0.05], [0.4], [1.0], [2.7], [13.5]];
const PLANE: [[f64; 2]; 6] = [
    [1.3, 0.4],
    [-0.8, 1.9],
    [0.6, -2.2],
    [-1.5, -0.35],
    [2.2, 2.9],
    [0.25, -0.7],
];

checks! {
    sin, __vjp_sin, __jvp_sin, (x), LINE;
    cos, __vjp_cos, __jvp_cos, (x), LINE;
    tan, __vjp_tan, __jvp_tan, (x), UNIT;
    asin, __vjp_asin, __jvp_asin, (x), UNIT;
    acos, __vjp_acos, __jvp_acos, (x), UNIT;
    atan, __vjp_atan, __jvp_atan, (x), LINE;
    atan2, __vjp_atan2, __jvp_atan2, (a, b), PLANE;
    sinh, __vjp_sinh, __jvp_sinh, (x), LINE;
    cosh, __vjp_cosh, __jvp_cosh, (x), LINE;
    tanh, __vjp_tanh, __jvp_tanh, (x), LINE;
    asinh, __vjp_asinh, __jvp_asinh, (x), LINE;
    acosh, __vjp_acosh, __jvp_acosh, (x), [[1.05], [1.5], [2.0], [7.5], [40.0]];
    atanh, __vjp_atanh, __jvp_atanh, (x), UNIT;
    exp, __vjp_exp, __jvp_exp, (x), LINE;
    exp2, __vjp_exp2, __jvp_exp2, (x), LINE;
    exp_m1, __vjp_exp_m1, __jvp_exp_m1, (x), LINE;
    ln, __vjp_ln, __jvp_ln, (x), POSITIVE;
    ln_1p, __vjp_ln_1p, __jvp_ln_1p, (x), UNIT;
    log2, __vjp_log2, __jvp_log2, (x), POSITIVE;
    log10, __vjp_log10, __jvp_log10, (x), POSITIVE;
    log, __vjp_log, __jvp_log, (x, base), [[0.3, 2.0], [2.5, 10.0], [7.0, 0.5], [1.6, 3.3]];
    sqrt, __vjp_sqrt, __jvp_sqrt, (x), POSITIVE;
    cbrt, __vjp_cbrt, __jvp_cbrt, (x), LINE;
    powf, __vjp_powf, __jvp_powf, (x, e), [[0.3, 2.0], [2.5, -1.5], [1.7, 0.5], [0.9, 3.3], [4.0, 0.0]];
    recip, __vjp_recip, __jvp_recip, (x), LINE;
    hypot, __vjp_hypot, __jvp_hypot, (a, b), PLANE;
    mul_add, __vjp_mul_add, __jvp_mul_add, (x, a, b), [[1.5, -0.5, 2.0], [-2.0, 3.0, 0.25]];
    abs, __vjp_abs, __jvp_abs, (x), LINE;
    min, __vjp_min, __jvp_min, (a, b), PLANE;
    max, __vjp_max, __jvp_max, (a, b), PLANE;
    clamp, __vjp_clamp, __jvp_clamp, (x, lo, hi), [[0.5, -1.0, 1.0], [-2.0, -1.0, 1.0], [3.0, -1.0, 1.0]];
    signum, __vjp_signum, __jvp_signum, (x), LINE;
    floor, __vjp_floor, __jvp_floor, (x), LINE;
    ceil, __vjp_ceil, __jvp_ceil, (x), LINE;
    round, __vjp_round, __jvp_round, (x), LINE;
    trunc, __vjp_trunc, __jvp_trunc, (x), LINE;
    fract, __vjp_fract, __jvp_fract, (x), LINE;
    copysign, __vjp_copysign, __jvp_copysign, (x, s), [[1.5, -0.5], [-2.0, 3.0], [0.7, 2.0], [-0.3, -1.0]];
    to_degrees, __vjp_to_degrees, __jvp_to_degrees, (x), LINE;
    to_radians, __vjp_to_radians, __jvp_to_radians, (x), LINE;
    add, __vjp_add, __jvp_add, (a, b), PLANE;
    sub, __vjp_sub, __jvp_sub, (a, b), PLANE;
    mul, __vjp_mul, __jvp_mul, (a, b), PLANE;
    div, __vjp_div, __jvp_div, (a, b), PLANE;
    neg, __vjp_neg, __jvp_neg, (x), LINE;
    rem, __vjp_rem, __jvp_rem, (a, b), PLANE;
}

/// `powi` has an integer parameter, whose slot is `()`: checked exponent by exponent.
#[test]
fn powi() {
    fn run<T: TestFloat>(n: i32) {
        Rule::<T, 1> {
            name: "powi",
            primal64: &|[x]| x.powi(n),
            primal: &|[x]| x.powi(n),
            vjp: &|[x], seed| {
                let (y, pullback) = x.__vjp_powi(n);
                let (dx, ()) = pullback(seed);
                (y, [dx])
            },
            jvp: &|[x], [t]| {
                let (y, differential) = x.__jvp_powi(n);
                (y, differential((t, ())))
            },
            dual: &|[x], [eps]| Dual::new(x, eps).powi(n),
        }
        .check(&LINE);
    }
    for n in [-3, -1, 0, 1, 2, 5] {
        run::<f64>(n);
        run::<f32>(n);
    }
}

/// A line added to the table needs its test here, with points inside its domain.
#[test]
fn every_rule_of_the_table_is_checked() {
    for name in diff_core::float_rules::METHODS {
        assert!(
            CHECKED.contains(name),
            "the rule `{name}` has no check! above"
        );
    }
}
