//! Checking macros shared by several suites. Unlike the rest of `common` they run the
//! operators (`gradient!`, `value_with_differential!`, ...), so they expand in the suite,
//! where `use diff::prelude::*;` brings the operators; the oracles they compare with are
//! `common`'s. A suite that uses them declares `#[macro_use] mod common;`.
#![allow(unused_macros)]

/// `assert_close!(actual, expected)`: [`assert_close`](super::assert_close) within a
/// relative 1e-12, the failure message naming both expressions.
macro_rules! assert_close {
    ($a:expr, $b:expr) => {{
        let (a, b): (f64, f64) = ($a, $b);
        assert!(
            $crate::common::close(a, b, 1e-12),
            "{} = {a}, expected {} = {b}",
            stringify!($a),
            stringify!($b)
        );
    }};
}

/// `check_n!(f, x, n, exact)` for `f(x: f64, n: usize) -> f64`, differentiated w.r.t. `x`
/// only (`n` is inactive): the formula `exact` against [`fd`](super::fd), the gradient
/// against `exact`, the pullback and the differential against the gradient, and the values
/// against `f(x, n)`.
macro_rules! check_n {
    ($f:ident, $x:expr, $n:expr, $exact:expr) => {{
        use $crate::common::{close, fd};
        let (x, n): (f64, usize) = ($x, $n);
        let exact: f64 = $exact;
        let name = stringify!($f);
        let num = fd(|x| $f(x, n), x);
        assert!(close(exact, num, 1e-6), "{name}({x}, {n}): oracle {exact} vs fd {num}");
        let g = gradient!(at: (x, n), of: $f);
        assert!(close(g, exact, 1e-12), "{name}({x}, {n}): gradient {g} vs {exact}");
        let (v, pb) = value_with_pullback!(at: (x, n), of: $f);
        assert_eq!(v, $f(x, n));
        assert!(close(pb(1.0), g, 1e-12));
        let (v, df) = value_with_differential!(at: (x, n), of: $f);
        assert_eq!(v, $f(x, n));
        let d = df(1.0);
        assert!(close(d, g, 1e-12), "{name}({x}, {n}): forward {d} vs reverse {g}");
    }};
}

/// `check2!(f, x, y, (gx, gy))` for `f(x: f64, y: f64) -> f64`: the exact gradient against
/// [`fd`](super::fd), the reverse gradient against it, the differential along each axis
/// against the gradient, and the value against `f(x, y)`.
macro_rules! check2 {
    ($f:ident, $x:expr, $y:expr, $exact:expr) => {{
        use $crate::common::{close, fd};
        let (x, y): (f64, f64) = ($x, $y);
        let (ex, ey): (f64, f64) = $exact;
        let name = stringify!($f);
        let (nx, ny) = (fd(|x| $f(x, y), x), fd(|y| $f(x, y), y));
        assert!(close(ex, nx, 1e-6) && close(ey, ny, 1e-6), "{name}({x}, {y}): oracle ({ex}, {ey}) vs fd ({nx}, {ny})");
        let (gx, gy) = gradient!(at: (x, y), of: $f);
        assert!(close(gx, ex, 1e-12) && close(gy, ey, 1e-12), "{name}({x}, {y}): gradient ({gx}, {gy}) vs ({ex}, {ey})");
        let (v, df) = value_with_differential!(at: (x, y), of: $f);
        assert_eq!(v, $f(x, y));
        let dx = df((1.0, 0.0));
        let dy = differential!(at: (x, y), of: $f)((0.0, 1.0));
        assert!(close(dx, gx, 1e-12) && close(dy, gy, 1e-12), "{name}({x}, {y}): forward ({dx}, {dy}) vs reverse ({gx}, {gy})");
    }};
}
