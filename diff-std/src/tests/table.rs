//! Every rule of the table against finite differences, in both modes, for `f64` and `f32`.

use super::harness::{Rule, TestFloat};
use crate::prelude::*;
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
                }
                .check(&$points);
            }
            run::<f64>();
            run::<f32>();
        }
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

check!(sin, __vjp_sin, __jvp_sin, (x), LINE);
check!(cos, __vjp_cos, __jvp_cos, (x), LINE);
check!(tan, __vjp_tan, __jvp_tan, (x), UNIT);
check!(asin, __vjp_asin, __jvp_asin, (x), UNIT);
check!(acos, __vjp_acos, __jvp_acos, (x), UNIT);
check!(atan, __vjp_atan, __jvp_atan, (x), LINE);
check!(atan2, __vjp_atan2, __jvp_atan2, (a, b), PLANE);
check!(sinh, __vjp_sinh, __jvp_sinh, (x), LINE);
check!(cosh, __vjp_cosh, __jvp_cosh, (x), LINE);
check!(tanh, __vjp_tanh, __jvp_tanh, (x), LINE);
check!(asinh, __vjp_asinh, __jvp_asinh, (x), LINE);
check!(
    acosh,
    __vjp_acosh,
    __jvp_acosh,
    (x),
    [[1.05], [1.5], [2.0], [7.5], [40.0]]
);
check!(atanh, __vjp_atanh, __jvp_atanh, (x), UNIT);
check!(exp, __vjp_exp, __jvp_exp, (x), LINE);
check!(exp2, __vjp_exp2, __jvp_exp2, (x), LINE);
check!(exp_m1, __vjp_exp_m1, __jvp_exp_m1, (x), LINE);
check!(ln, __vjp_ln, __jvp_ln, (x), POSITIVE);
check!(ln_1p, __vjp_ln_1p, __jvp_ln_1p, (x), UNIT);
check!(log2, __vjp_log2, __jvp_log2, (x), POSITIVE);
check!(log10, __vjp_log10, __jvp_log10, (x), POSITIVE);
check!(
    log,
    __vjp_log,
    __jvp_log,
    (x, base),
    [[0.3, 2.0], [2.5, 10.0], [7.0, 0.5], [1.6, 3.3]]
);
check!(sqrt, __vjp_sqrt, __jvp_sqrt, (x), POSITIVE);
check!(cbrt, __vjp_cbrt, __jvp_cbrt, (x), LINE);
check!(
    powf,
    __vjp_powf,
    __jvp_powf,
    (x, e),
    [[0.3, 2.0], [2.5, -1.5], [1.7, 0.5], [0.9, 3.3], [4.0, 0.0]]
);
check!(recip, __vjp_recip, __jvp_recip, (x), LINE);
check!(hypot, __vjp_hypot, __jvp_hypot, (a, b), PLANE);
check!(
    mul_add,
    __vjp_mul_add,
    __jvp_mul_add,
    (x, a, b),
    [[1.5, -0.5, 2.0], [-2.0, 3.0, 0.25]]
);
check!(abs, __vjp_abs, __jvp_abs, (x), LINE);
check!(min, __vjp_min, __jvp_min, (a, b), PLANE);
check!(max, __vjp_max, __jvp_max, (a, b), PLANE);
check!(
    clamp,
    __vjp_clamp,
    __jvp_clamp,
    (x, lo, hi),
    [[0.5, -1.0, 1.0], [-2.0, -1.0, 1.0], [3.0, -1.0, 1.0]]
);
check!(signum, __vjp_signum, __jvp_signum, (x), LINE);
check!(floor, __vjp_floor, __jvp_floor, (x), LINE);
check!(ceil, __vjp_ceil, __jvp_ceil, (x), LINE);
check!(round, __vjp_round, __jvp_round, (x), LINE);
check!(trunc, __vjp_trunc, __jvp_trunc, (x), LINE);
check!(fract, __vjp_fract, __jvp_fract, (x), LINE);
check!(to_degrees, __vjp_to_degrees, __jvp_to_degrees, (x), LINE);
check!(to_radians, __vjp_to_radians, __jvp_to_radians, (x), LINE);
check!(add, __vjp_add, __jvp_add, (a, b), PLANE);
check!(sub, __vjp_sub, __jvp_sub, (a, b), PLANE);
check!(mul, __vjp_mul, __jvp_mul, (a, b), PLANE);
check!(div, __vjp_div, __jvp_div, (a, b), PLANE);
check!(neg, __vjp_neg, __jvp_neg, (x), LINE);
check!(rem, __vjp_rem, __jvp_rem, (a, b), PLANE);

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
        }
        .check(&LINE);
    }
    for n in [-3, -1, 0, 1, 2, 5] {
        run::<f64>(n);
        run::<f32>(n);
    }
}
