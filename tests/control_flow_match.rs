//! End-to-end tests of `match`: on integers (literals, or-patterns, ranges, guards), bools,
//! tuples of conditions, enums and `Option`s, tuples binding active parts (`(v, 1)`,
//! `(a, [b, c])`, `&(a, b)`), as expressions and statements, with early
//! returns from arms and inside loops; `if let` and `while let`. Every arm is taken at least twice; gradients are checked against
//! analytic formulas and central finite differences, forward mode against reverse mode.

// The bodies deliberately use both `a = a * b` and `a *= b`: the macro lowers them apart.
#![allow(clippy::assign_op_pattern)]

mod common;
use common::{close, fd, fd_grad};
use diff::prelude::*;

/// Checks `f(x, k)` (w.r.t. `x`, `k` inactive) against `exact` and a finite difference,
/// and forward mode against reverse mode.
macro_rules! check_k {
    ($f:ident, $x:expr, $k:expr, $exact:expr) => {{
        let x: f64 = $x;
        let k = $k;
        let exact: f64 = $exact;
        let name = stringify!($f);
        let num = fd(|x| $f(x, k), x);
        assert!(close(exact, num, 1e-6), "{name}({x}, {k:?}): oracle {exact} vs fd {num}");
        let (v, g) = value_with_gradient!(at: (x, k), of: $f);
        assert_eq!(v, $f(x, k), "{name}({x}, {k:?}): value");
        assert!(close(g, exact, 1e-12), "{name}({x}, {k:?}): gradient {g} vs {exact}");
        let (v, df) = value_with_differential!(at: (x, k), of: $f);
        assert_eq!(v, $f(x, k));
        let d = df(1.0);
        assert!(close(d, g, 1e-12), "{name}({x}, {k:?}): forward {d} vs reverse {g}");
    }};
}

#[differentiable]
fn int_arms(x: f64, k: i64) -> f64 {
    let y = match k {
        0 => x * x,
        1 | 2 => x.sin() * (k as f64),
        3..=5 => x.exp(),
        n if n < 0 => x * (n as f64),
        n if n > 100 => 2.0,
        _ => x.cos() * x,
    };
    y + x
}

#[test]
fn match_integers_or_patterns_ranges_guards() {
    for x in [-0.8, 0.3, 1.6] {
        check_k!(int_arms, x, 0, 2.0 * x + 1.0);
        for k in [1, 2] {
            check_k!(int_arms, x, k, k as f64 * x.cos() + 1.0);
        }
        for k in [3, 5] {
            check_k!(int_arms, x, k, x.exp() + 1.0);
        }
        for k in [-1, -7] {
            check_k!(int_arms, x, k, k as f64 + 1.0);
        }
        check_k!(int_arms, x, 101, 1.0);
        for k in [6, 100] {
            check_k!(int_arms, x, k, x.cos() - x * x.sin() + 1.0);
        }
    }
}

#[differentiable]
fn bool_arms(x: f64, flag: bool) -> f64 {
    let mut acc = x * x;
    match flag {
        true => acc = acc * x,
        false => {
            acc += x.sin();
        }
    }
    match acc > 1.0 {
        true => acc.ln(),
        false => acc,
    }
}

#[test]
fn match_on_bools_and_active_comparisons() {
    // flag = true: x^3; ln(x^3) if x^3 > 1.
    for x in [-1.5, 0.2, 0.9] {
        check_k!(bool_arms, x, true, 3.0 * x * x);
    }
    for x in [1.2, 3.0] {
        check_k!(bool_arms, x, true, 3.0 / x);
    }
    // flag = false: x^2 + sin x; ln of it if > 1.
    for x in [-0.5, 0.3] {
        check_k!(bool_arms, x, false, 2.0 * x + x.cos());
    }
    for x in [1.0, -2.0] {
        let a = x * x + x.sin();
        check_k!(bool_arms, x, false, (2.0 * x + x.cos()) / a);
    }
}

#[differentiable]
fn quadrant(x: f64, y: f64) -> f64 {
    match (x > 0.0, y > 0.0) {
        (true, true) => x * y,
        (true, false) => x - y * y,
        (false, true) => x.exp() * y,
        (false, false) => 1.0,
    }
}

#[test]
fn match_on_tuple_of_conditions() {
    let cases: [(f64, f64, (f64, f64)); 8] = [
        (0.5, 2.0, (2.0, 0.5)),
        (3.0, 0.1, (0.1, 3.0)),
        (0.5, -2.0, (1.0, 4.0)),
        (2.0, -0.1, (1.0, 0.2)),
        (-0.5, 2.0, ((-0.5f64).exp() * 2.0, (-0.5f64).exp())),
        (-3.0, 0.1, ((-3.0f64).exp() * 0.1, (-3.0f64).exp())),
        (-0.5, -2.0, (0.0, 0.0)),
        (-1.0, -0.3, (0.0, 0.0)),
    ];
    for (x, y, (ex, ey)) in cases {
        let (gx, gy) = gradient!(at: (x, y), of: quadrant);
        assert!(
            close(gx, ex, 1e-12) && close(gy, ey, 1e-12),
            "({x}, {y}): ({gx}, {gy}) vs ({ex}, {ey})"
        );
        assert!(close(fd(|x| quadrant(x, y), x), ex, 1e-6));
        assert!(close(fd(|y| quadrant(x, y), y), ey, 1e-6));
        let (v, df) = value_with_differential!(at: (x, y), of: quadrant);
        assert_eq!(v, quadrant(x, y));
        let dy = differential!(at: (x, y), of: quadrant)((0.0, 1.0));
        assert!(close(df((1.0, 0.0)), gx, 1e-12) && close(dy, gy, 1e-12));
    }
}

#[derive(Clone, Copy, Debug)]
enum Act {
    Relu,
    Tanh,
    Leaky(f64),
    Scaled { a: f64, b: f64 },
}

// `act` is not Differentiable; the macro cannot see types, so without `wrt` it treats
// `act` as active and refuses to bind its payload (see bugs-control.md, C4).
#[differentiable(wrt = (x))]
fn activate(x: f64, act: Act) -> f64 {
    match act {
        Act::Relu => {
            if x > 0.0 {
                x
            } else {
                0.0
            }
        }
        Act::Tanh => x.tanh(),
        Act::Leaky(s) if x < 0.0 => s * x,
        Act::Leaky(_) => x,
        Act::Scaled { a, b } => a * x * x + b,
    }
}

#[test]
fn match_on_enum_with_payloads_and_guards() {
    for x in [-1.3, -0.2, 0.4, 2.0] {
        check_k!(activate, x, Act::Relu, if x > 0.0 { 1.0 } else { 0.0 });
        check_k!(activate, x, Act::Tanh, 1.0 - x.tanh() * x.tanh());
        check_k!(
            activate,
            x,
            Act::Leaky(0.1),
            if x < 0.0 { 0.1 } else { 1.0 }
        );
        check_k!(activate, x, Act::Scaled { a: 1.5, b: -2.0 }, 3.0 * x);
    }
}

#[differentiable]
fn option_arms(x: f64, o: Option<i32>) -> f64 {
    let mut y = x;
    match o {
        // `Some(0) => { return x.sqrt(); }` does not compile (arm types differ), and
        // `Some(0) => return x.sqrt(),` is rejected: bug C5.
        Some(0) => {
            y = x.sqrt();
        }
        Some(k) if k > 0 => {
            y = y * (k as f64);
        }
        Some(_) => {
            y = 0.0;
        }
        None => {}
    }
    y * x
}

#[test]
fn match_statement_on_option_with_guard() {
    for x in [0.3, 2.5] {
        check_k!(option_arms, x, Some(0), 1.5 * x.sqrt());
        check_k!(option_arms, x, Some(3), 6.0 * x);
        check_k!(option_arms, x, Some(-2), 0.0);
        check_k!(option_arms, x, None, 2.0 * x);
    }
}

#[differentiable]
fn piecewise(x: f64, n: usize) -> f64 {
    let mut acc = x;
    for i in 0..n {
        // `match i % 4` emits `i.rem(4)` without `Rem` in scope: bug C3.
        acc = match i - i / 4 * 4 {
            0 => acc * x,
            1 => acc + x.sin(),
            2 if acc > 1.0 => acc.sqrt(),
            2 => acc * 0.5,
            _ => acc - 1.0,
        };
    }
    acc
}

/// Forward-mode oracle of `piecewise`, written out by hand.
fn piecewise_d(x: f64, n: usize) -> f64 {
    let (mut a, mut d) = (x, 1.0);
    for i in 0..n {
        match i % 4 {
            0 => {
                d = d * x + a;
                a *= x;
            }
            1 => {
                d += x.cos();
                a += x.sin();
            }
            2 if a > 1.0 => {
                d = d * 0.5 / a.sqrt();
                a = a.sqrt();
            }
            2 => {
                d *= 0.5;
                a *= 0.5;
            }
            _ => a -= 1.0,
        }
    }
    d
}

#[test]
fn match_inside_a_loop() {
    for x in [0.3, 0.9, 1.7] {
        for n in [0, 1, 2, 3, 4, 11] {
            check_k!(piecewise, x, n, piecewise_d(x, n));
        }
    }
}

#[differentiable]
fn float_ranges(x: f64) -> f64 {
    // `v if v < 0.0 => -v * 3.0` (binding the active scrutinee) is rejected: bug C7.
    match x {
        _ if x < 0.0 => -x * 3.0,
        0.0..=1.0 => x * x,
        1.0..=4.0 => x.sqrt() + 0.0,
        _ => 2.0,
    }
}

#[test]
fn match_on_an_active_value_with_float_ranges() {
    for x in [-2.0, -0.1] {
        assert_eq!(gradient!(at: x, of: float_ranges), -3.0);
        assert_eq!(first_derivative!(at: x, of: float_ranges), -3.0);
        assert!(close(fd(float_ranges, x), -3.0, 1e-6));
    }
    for x in [0.2, 0.5, 0.9, 1.5, 3.9, 5.0, 9.0] {
        let e = if x <= 1.0 {
            2.0 * x
        } else if x <= 4.0 {
            0.5 / x.sqrt()
        } else {
            0.0
        };
        let g = gradient!(at: x, of: float_ranges);
        assert!(close(g, e, 1e-12), "{x}: {g} vs {e}");
        assert!(close(fd(float_ranges, x), e, 1e-6));
        let (v, d) = value_with_derivative!(at: x, of: float_ranges);
        assert_eq!(v, float_ranges(x));
        assert!(close(d, g, 1e-12));
    }
}

// ---------------------------------------------------------------- match on an inactive value and an `Option`

#[differentiable]
fn matcher(x: f64, k: i32, o: Option<f64>) -> f64 {
    let base = match k {
        0 => x * x,
        1 | 2 => x.sin() * 2.0,
        n if n < 0 => x * (n as f64),
        _ => 1.0,
    };
    let extra = match o {
        Some(c) => c * x,
        None => 0.0,
    };
    let mut acc = base;
    match x > 0.5 {
        true => acc += extra,
        false => acc -= extra * x,
    }
    acc
}

#[test]
fn match_arms_as_expressions_and_statements() {
    for k in [-2, 0, 1, 2, 5] {
        for o in [None, Some(1.5)] {
            for x in [0.2, 0.9] {
                // An `Option<f64>` is Differentiable: its tangent is `Some(d)` at
                // `Some(c)`, `None` at `None`.
                let (g, go) = gradient!(at: (x, k, o), of: matcher);
                let num = fd(|x| matcher(x, k, o), x);
                assert!(close(g, num, 1e-8), "{k} {o:?} {x}: {g} vs {num}");
                match o {
                    Some(c) => {
                        let num = fd(|c| matcher(x, k, Some(c)), c);
                        assert!(close(go.unwrap(), num, 1e-8), "{go:?} vs {num}");
                    }
                    None => assert_eq!(go, None),
                }
                let (v, df) = value_with_differential!(at: (x, k, o), of: matcher);
                assert_eq!(v, matcher(x, k, o));
                // Along both inputs at once: dx + dc.
                let dc = o.map(|_| 1.0);
                let both = g + go.unwrap_or(0.0);
                assert!(close(df((1.0, dc)), both, 1e-12));
            }
        }
    }
}

#[differentiable]
fn rem_and_ints(x: f64, n: i32) -> f64 {
    let m = n % 4;
    let r = x % 1.5;
    match m {
        0 => r * x,
        _ => r + x,
    }
}

#[differentiable]
fn whole_binding(x: f64) -> f64 {
    match x {
        v if v < 0.0 => -v * 2.0,
        v => v * v,
    }
}

/// A remainder of an active value, a match on an integer remainder, and arms binding the
/// whole scrutinee.
#[test]
fn remainders_and_arms_binding_the_scrutinee() {
    for x in [0.3, 1.7] {
        for n in [0, 1, 5] {
            let g = gradient!(at: (x, n), of: rem_and_ints);
            let num = fd(|x| rem_and_ints(x, n), x);
            assert!(close(g, num, 1e-8), "{x} {n}: {g} vs {num}");
            assert!(close(
                first_derivative!(at: x, of: |x| rem_and_ints(x, n)),
                g,
                1e-12
            ));
        }
    }
    assert_eq!(gradient!(at: -1.0, of: whole_binding), -2.0);
    assert_eq!(gradient!(at: 3.0, of: whole_binding), 6.0);
    assert_eq!(first_derivative!(at: 3.0, of: whole_binding), 6.0);
}

#[differentiable]
fn if_let_and_while_let(x: f64, o: Option<f64>, n: usize) -> f64 {
    let mut acc = if let Some(c) = o { c * x } else { x };
    let mut k = n;
    while let Some(j) = k.checked_sub(1) {
        acc = acc * x + (j as f64);
        k = j;
    }
    for i in 0..n {
        if i % 2 == 0 {
            acc += x * (i as f64);
        }
    }
    acc
}

#[test]
fn if_let_and_while_let_on_inactive_options() {
    for (o, n) in [(None, 0), (Some(2.0), 3)] {
        let x = 0.8;
        let (v, (g, go)) = value_with_gradient!(at: (x, o, n), of: if_let_and_while_let);
        assert_eq!(v, if_let_and_while_let(x, o, n));
        let num = fd(|x| if_let_and_while_let(x, o, n), x);
        assert!(close(g, num, 1e-8), "{g} {num}");
        if let Some(c) = o {
            let num = fd(|c| if_let_and_while_let(x, Some(c), n), c);
            assert!(close(go.unwrap(), num, 1e-8), "{go:?} {num}");
        }
    }
}

#[differentiable]
fn match_return(x: f64, k: i32) -> f64 {
    let mut y = x;
    match k {
        0 => {
            return x.sqrt();
        }
        1 => return x * 3.0,
        _ => {
            y = y * 2.0;
        }
    }
    let z = match k {
        2 => y,
        _ => y + 1.0,
    };
    z * x
}

#[test]
fn match_arms_may_return() {
    assert!(close(
        gradient!(at: (4.0, 0), of: match_return),
        0.25,
        1e-12
    ));
    assert_eq!(gradient!(at: (4.0, 1), of: match_return), 3.0);
    assert_eq!(gradient!(at: (4.0, 2), of: match_return), 16.0);
    assert_eq!(gradient!(at: (4.0, 5), of: match_return), 17.0);
    assert_eq!(first_derivative!(at: 4.0, of: |x| match_return(x, 5)), 17.0);
}

#[differentiable]
fn tuple_with_a_literal(x: f64, k: i32) -> f64 {
    let t = (x * 2.0, k);
    if let (v, 1) = t {
        v * 2.0
    } else {
        x
    }
}

#[differentiable]
fn tuple_of_floats_and_a_flag(x: f64, y: f64, flag: bool) -> f64 {
    match (x, y, flag) {
        (a, b, true) if a > b => a * b,
        (a, _, true) => a.sin(),
        (_, b, false) => b * b,
    }
}

#[differentiable]
fn tuple_behind_a_reference(p: &(f64, f64), k: usize) -> f64 {
    match p {
        (a, b) if k == 0 => a * b,
        &(a, b) => a + b * 3.0,
    }
}

#[differentiable]
fn tuple_holding_an_array(x: Vec<f64>) -> f64 {
    let pairs = (x[0], [x[1], x[2]]);
    match pairs {
        (a, [b, c]) if a > 0.0 => a * b + c,
        (a, [_, c]) => a - c,
    }
}

fn assert_all_close(got: &[f64], want: &[f64], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (g, w) in got.iter().zip(want) {
        assert!(close(*g, *w, 1e-6), "{what}: {got:?} vs {want:?}");
    }
}

#[test]
fn tuple_patterns_bind_active_parts() {
    for k in [1, 2] {
        let (v, d) = value_with_gradient!(at: 1.5, of: |x| tuple_with_a_literal(x, k));
        assert_eq!(v, tuple_with_a_literal(1.5, k));
        assert_eq!(d, if k == 1 { 4.0 } else { 1.0 });
    }
    for (x, y, flag) in [(2.0, 1.0, true), (1.0, 2.0, true), (1.0, 2.0, false)] {
        let (dx, dy) = gradient!(at: (x, y), of: |x, y| tuple_of_floats_and_a_flag(x, y, flag));
        let want = fd_grad(|v| tuple_of_floats_and_a_flag(v[0], v[1], flag), &[x, y]);
        assert_all_close(&[dx, dy], &want, "(a, b, true)");
        let d = differential!(at: (x, y), of: |x, y| tuple_of_floats_and_a_flag(x, y, flag))((
            1.0, 0.0,
        ));
        assert!(close(d, dx, 1e-12), "forward against reverse");
    }
    for k in [0, 1] {
        let (da, db) =
            gradient!(at: &(1.5, 2.5), of: |p: &(f64, f64)| tuple_behind_a_reference(p, k));
        let want = fd_grad(|v| tuple_behind_a_reference(&(v[0], v[1]), k), &[1.5, 2.5]);
        assert_all_close(&[da, db], &want, "&(a, b)");
    }
    for x in [vec![1.0, 2.0, 3.0], vec![-1.0, 2.0, 3.0]] {
        let g = gradient!(at: x.clone(), of: tuple_holding_an_array);
        assert_all_close(
            &g,
            &fd_grad(|v| tuple_holding_an_array(v.to_vec()), &x),
            "(a, [b, c])",
        );
        let h = hessian!(at: x.clone(), of: tuple_holding_an_array);
        let want = if x[0] > 0.0 {
            [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0; 3]]
        } else {
            [[0.0; 3]; 3]
        };
        for (row, w) in h.iter().zip(&want) {
            assert_all_close(row, w, "hessian of (a, [b, c])");
        }
    }
}

#[derive(Differentiable, Clone, Copy, Debug)]
struct Point {
    x: f64,
    y: f64,
}

#[derive(Differentiable, Clone, Debug)]
struct Line {
    w: Vec<f64>,
    b: f64,
}

/// Struct patterns, behind a reference taken in a tuple and by value.
#[differentiable]
fn struct_in_a_tuple(p: &Point, k: i32) -> f64 {
    match (p, k) {
        (Point { x, y }, 0) => x * y,
        (&Point { x, .. }, 1) => x.exp(),
        (Point { y: yy, .. }, _) if *yy > 0.0 => yy.sqrt() * p.x,
        _ => p.x + p.y,
    }
}

#[differentiable]
fn struct_with_a_vec(l: Line, t: f64) -> f64 {
    match l {
        Line { b, .. } if b > 1.0 => b * t,
        Line { w, b } => w[0] * w[1] * b * t,
    }
}

#[differentiable]
fn struct_if_let(p: Point) -> f64 {
    if let Point { x, y: 0.0 } = p {
        x * x
    } else {
        p.x * p.y * p.y
    }
}

#[test]
fn struct_patterns_bind_active_fields() {
    for k in 0..3 {
        for (a, b) in [(2.0, 1.0), (1.0, -2.0)] {
            let (v, g) =
                value_with_gradient!(at: Point { x: a, y: b }, of: |p| struct_in_a_tuple(&p, k));
            assert_eq!(v, struct_in_a_tuple(&Point { x: a, y: b }, k));
            let want = fd_grad(
                |v| struct_in_a_tuple(&Point { x: v[0], y: v[1] }, k),
                &[a, b],
            );
            assert_all_close(&[g.x, g.y], &want, "(Point { x, y }, k)");
            // Second order, along the line (s, 2s): against finite differences of the first.
            let along = |s: f64| struct_in_a_tuple(&Point { x: s, y: 2.0 * s }, k);
            let d2 = second_derivative!(at: a, of: |s| struct_in_a_tuple(&Point { x: s, y: 2.0 * s }, k));
            let d1 = |s: f64| first_derivative!(at: s, of: |s| struct_in_a_tuple(&Point { x: s, y: 2.0 * s }, k));
            assert!(
                close(d1(a), fd(along, a), 1e-6),
                "first derivative along (s, 2s)"
            );
            assert!(
                close(d2, fd(d1, a), 1e-6),
                "second derivative along (s, 2s)"
            );
        }
    }
    for b in [0.5, 2.0] {
        let (gl, gt) = gradient!(at: (Line { w: vec![2.0, 3.0], b }, 1.5), of: struct_with_a_vec);
        let want = fd_grad(
            |v| {
                struct_with_a_vec(
                    Line {
                        w: vec![v[0], v[1]],
                        b: v[2],
                    },
                    v[3],
                )
            },
            &[2.0, 3.0, b, 1.5],
        );
        assert_all_close(&[gl.w[0], gl.w[1], gl.b, gt], &want, "Line { w, b }");
    }
    for (a, b) in [(2.0, 0.0), (2.0, 1.0)] {
        let g = gradient!(at: Point { x: a, y: b }, of: struct_if_let);
        let want = fd_grad(|v| struct_if_let(Point { x: v[0], y: v[1] }), &[a, b]);
        assert_all_close(&[g.x, g.y], &want, "if let Point { x, y: 0.0 }");
        let h = hessian!(at: vec![a, b], of: |v| struct_if_let(Point { x: v[0], y: v[1] }));
        let want = if b == 0.0 {
            [[2.0, 0.0], [0.0, 0.0]]
        } else {
            [[0.0, 2.0 * b], [2.0 * b, 2.0 * a]]
        };
        for (row, w) in h.iter().zip(&want) {
            assert_all_close(row, w, "hessian of if let Point { .. }");
        }
    }
}
