//! End-to-end tests of control flow: `if`/`else` (statements and expressions, conditions
//! with `&&`/`||`/bools/integers), early `return` from branches, a 10,000-iteration
//! loop, recursion, and closures bound in the body. Every gradient is checked against an analytic formula and a central finite
//! difference, on both sides of each branch; forward mode must agree with reverse mode.
//! Loops: control_flow_loops.rs; `match`: control_flow_match.rs; collections:
//! control_flow_iter.rs.

// The bodies deliberately use both `a = a * b` and `a *= b`: the macro lowers them apart.
#![allow(clippy::assign_op_pattern)]

#[macro_use]
mod common;
use common::{close, fd};
use diff::prelude::*;

/// Checks every operator on a function of one `f64` against `exact` and a finite
/// difference at `x`.
macro_rules! check1 {
    ($f:ident, $x:expr, $exact:expr) => {{
        let x: f64 = $x;
        let exact: f64 = $exact;
        let name = stringify!($f);
        let num = fd($f, x);
        assert!(close(exact, num, 1e-6), "{name}({x}): oracle {exact} vs fd {num}");
        let g = gradient!(at: x, of: $f);
        assert!(close(g, exact, 1e-12), "{name}({x}): gradient {g} vs {exact}");
        let (v, g2) = value_with_gradient!(at: x, of: $f);
        assert_eq!(v, $f(x), "{name}({x}): value");
        assert_eq!(g2, g, "{name}({x}): value_with_gradient");
        let (v, pb) = value_with_pullback!(at: x, of: $f);
        assert_eq!(v, $f(x));
        assert!(close(pb(2.0), 2.0 * g, 1e-12), "{name}({x}): pullback(2)");
        let d = first_derivative!(at: x, of: $f);
        assert!(close(d, g, 1e-12), "{name}({x}): forward {d} vs reverse {g}");
        let (v, d2) = value_with_derivative!(at: x, of: $f);
        assert_eq!(v, $f(x));
        assert_eq!(d2, d);
        let (v, df) = value_with_differential!(at: x, of: $f);
        assert_eq!(v, $f(x));
        assert!(close(df(-0.5), -0.5 * g, 1e-12), "{name}({x}): differential");
    }};
}

// ---------------------------------------------------------------- branches

#[differentiable]
fn if_stmt(x: f64) -> f64 {
    let mut y = x * 2.0;
    if x < 0.0 {
        y = -x * x;
    } else {
        y = y * x.sin();
    }
    y + 1.0
}

#[test]
fn if_statement_both_sides() {
    for x in [-2.0, -0.3] {
        check1!(if_stmt, x, -2.0 * x);
    }
    for x in [0.4, 1.7] {
        check1!(if_stmt, x, 2.0 * x.sin() + 2.0 * x * x.cos());
    }
}

#[differentiable]
fn if_expr_chain(x: f64) -> f64 {
    let y = if x > 1.0 {
        x * x * x
    } else if x > -1.0 {
        x.exp() * 2.0
    } else {
        5.0
    };
    y * 3.0 + x
}

#[test]
fn if_expression_else_if_chain() {
    for x in [1.5, 3.0] {
        check1!(if_expr_chain, x, 9.0 * x * x + 1.0);
    }
    for x in [-0.5, 0.0, 0.9] {
        check1!(if_expr_chain, x, 6.0 * x.exp() + 1.0);
    }
    // A constant branch: only the `+ x` outside contributes.
    for x in [-1.5, -4.0] {
        check1!(if_expr_chain, x, 1.0);
    }
}

#[differentiable]
fn if_no_else(x: f64) -> f64 {
    let mut y = x;
    if x * x > 4.0 {
        y = y * 3.0;
    }
    if y > 100.0 {
        y = 100.0;
    }
    y
}

#[test]
fn if_without_else_and_constant_assignment() {
    for x in [-1.0, 0.5, 1.9] {
        check1!(if_no_else, x, 1.0);
    }
    for x in [-3.0, 2.5, 30.0] {
        check1!(if_no_else, x, 3.0);
    }
    for x in [40.0, 100.0] {
        check1!(if_no_else, x, 0.0);
    }
}

#[differentiable]
fn logic(x: f64, y: f64, flag: bool) -> f64 {
    if flag && x > y || x < -2.0 {
        x * y
    } else if !flag || y > 1.0 {
        x + y * y
    } else {
        x.sin() * y.cos()
    }
}

#[test]
fn conditions_with_bools_and_logic_operators() {
    let cases = [
        (0.5, 0.2, true, 0),
        (-3.0, 1.0, false, 0),
        (-3.0, 0.5, true, 0),
        (0.5, 0.7, false, 1),
        (0.2, 1.5, true, 1),
        (0.2, 0.5, true, 2),
        (-1.0, 0.5, true, 2),
    ];
    for (x, y, flag, branch) in cases {
        let (ex, ey) = match branch {
            0 => (y, x),
            1 => (1.0, 2.0 * y),
            _ => (x.cos() * y.cos(), -x.sin() * y.sin()),
        };
        let (gx, gy) = gradient!(at: (x, y, flag), of: logic);
        assert!(
            close(gx, ex, 1e-12) && close(gy, ey, 1e-12),
            "{x} {y} {flag}: ({gx}, {gy}) vs ({ex}, {ey})"
        );
        assert!(close(fd(|x| logic(x, y, flag), x), ex, 1e-6));
        assert!(close(fd(|y| logic(x, y, flag), y), ey, 1e-6));
        let (v, df) = value_with_differential!(at: (x, y, flag), of: logic);
        assert_eq!(v, logic(x, y, flag));
        let dy = differential!(at: (x, y, flag), of: logic)((0.0, 1.0));
        assert!(close(df((1.0, 0.0)), gx, 1e-12) && close(dy, gy, 1e-12));
    }
}

#[differentiable]
fn swap_outer(x: f64, y: f64) -> f64 {
    let mut a = x;
    let mut b = y;
    if x * y > 1.0 {
        let t = a;
        a = b * 2.0;
        b = t * a;
    } else {
        a = a + b;
        if y < 0.0 {
            b = b * b;
        }
    }
    a * b.sin()
}

#[test]
fn branches_assign_several_outer_variables() {
    // x*y > 1: a = 2y, b = 2xy, f = 2y sin(2xy)
    for (x, y) in [(2.0, 1.0), (-1.5, -1.0)] {
        let c = (2.0 * x * y).cos();
        check2!(
            swap_outer,
            x,
            y,
            (4.0 * y * y * c, 2.0 * (2.0 * x * y).sin() + 4.0 * x * y * c)
        );
    }
    // x*y <= 1, y >= 0: f = (x + y) sin y
    for (x, y) in [(0.3, 0.4), (-2.0, 0.5)] {
        check2!(swap_outer, x, y, (y.sin(), y.sin() + (x + y) * y.cos()));
    }
    // x*y <= 1, y < 0: f = (x + y) sin(y^2)
    for (x, y) in [(0.3, -0.4), (2.0, -0.7)] {
        let s = (y * y).sin();
        check2!(swap_outer, x, y, (s, s + (x + y) * 2.0 * y * (y * y).cos()));
    }
}

#[differentiable]
fn int_condition(x: f64, k: i32) -> f64 {
    let mut y = x;
    if k % 2 == 0 {
        y = y * y;
    }
    if k > 2 {
        y = y * (k as f64);
    }
    y
}

#[test]
fn conditions_on_inactive_integers() {
    for x in [-0.7, 1.3] {
        for k in [0, 1, 3, 4] {
            let mut e = if k % 2 == 0 { 2.0 * x } else { 1.0 };
            if k > 2 {
                e *= k as f64;
            }
            let g = gradient!(at: (x, k), of: int_condition);
            assert!(close(g, e, 1e-12), "{x} {k}: {g} vs {e}");
            assert!(close(fd(|x| int_condition(x, k), x), e, 1e-6));
            let (_, df) = value_with_differential!(at: (x, k), of: int_condition);
            assert!(close(df(1.0), g, 1e-12));
        }
    }
}

// ---------------------------------------------------------------- early return

#[differentiable]
fn early(x: f64) -> f64 {
    if x < -1.0 {
        return x * x;
    }
    let y = x.exp();
    if y > 2.0 {
        if x > 3.0 {
            return x;
        }
        return y * x;
    } else if x < 0.0 {
        return 7.0;
    }
    y.sin()
}

#[test]
fn early_return_from_nested_branches() {
    for x in [-3.0, -1.2] {
        check1!(early, x, 2.0 * x);
    }
    for x in [3.5, 10.0] {
        check1!(early, x, 1.0);
    }
    for x in [1.0, 2.5] {
        check1!(early, x, x.exp() * (1.0 + x));
    }
    for x in [-0.8, -0.1] {
        check1!(early, x, 0.0);
    }
    for x in [0.1, 0.5] {
        check1!(early, x, x.exp().cos() * x.exp());
    }
}

#[differentiable]
fn return_before_loop(x: f64, n: usize) -> f64 {
    if n == 0 {
        return x.sin();
    }
    let mut acc = 1.0;
    for _ in 0..n {
        acc = acc * x;
    }
    if acc > 50.0 {
        return 50.0 + acc.ln();
    }
    acc
}

#[test]
fn early_return_around_a_loop() {
    for x in [0.4, 2.0] {
        check_n!(return_before_loop, x, 0, x.cos());
    }
    for (x, n) in [(0.4, 1), (2.0, 5), (1.1, 7)] {
        check_n!(return_before_loop, x, n, n as f64 * x.powi(n as i32 - 1));
    }
    // x^n > 50: 50 + n ln x
    for (x, n) in [(2.0, 6), (3.0, 10)] {
        check_n!(return_before_loop, x, n, n as f64 / x);
    }
}

// ---------------------------------------------------------------- long loops

#[differentiable]
fn compound(x: f64, n: usize) -> f64 {
    let mut y = 1.0;
    let step = x / (n as f64);
    for _ in 0..n {
        y = y * (1.0 + step);
    }
    y
}

#[differentiable]
fn sine_sum(x: f64, n: usize) -> f64 {
    let mut acc = 0.0;
    let mut i = 0;
    while i < n {
        acc += (x * 0.5).sin();
        i += 1;
    }
    acc
}

#[test]
fn ten_thousand_iterations() {
    let n = 10_000;
    for x in [0.3, 1.0, -2.0] {
        // (1 + x/n)^n, derivative (1 + x/n)^(n-1); rounding of the product only.
        let e = (1.0 + x / n as f64).powi(n as i32 - 1);
        assert!(close(
            compound(x, n),
            (1.0 + x / n as f64).powi(n as i32),
            1e-9
        ));
        let g = gradient!(at: (x, n), of: compound);
        assert!(close(g, e, 1e-9), "{g} vs {e}");
        let (_, df) = value_with_differential!(at: (x, n), of: compound);
        assert!(close(df(1.0), g, 1e-12));
        // Every adjoint is exactly 0.5 cos(x/2), summed n times: exact in the order summed.
        let c = 0.5 * (x * 0.5).cos();
        let mut e = 0.0;
        for _ in 0..n {
            e += c;
        }
        assert_eq!(
            value_with_gradient!(at: (x, n), of: sine_sum).0,
            sine_sum(x, n)
        );
        let g = gradient!(at: (x, n), of: sine_sum);
        assert!(close(g, e, 1e-13), "{g} vs {e}");
        assert!(close(g, n as f64 * c, 1e-10));
    }
    // 100k iterations on a thread with a small stack: the pullback must not recurse per
    // iteration.
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(|| {
            let g = gradient!(at: (0.5, 100_000usize), of: compound);
            let e = (1.0 + 0.5 / 100_000.0f64).powi(99_999);
            assert!(close(g, e, 1e-9), "{g} vs {e}");
            let (_, df) = value_with_differential!(at: (0.5, 100_000usize), of: compound);
            assert!(close(df(1.0), g, 1e-12));
        })
        .unwrap()
        .join()
        .unwrap();
}

// ---------------------------------------------------------------- recursion

#[differentiable]
fn pow_rec(x: f64, n: u32) -> f64 {
    if n == 0 {
        1.0
    } else {
        x * pow_rec(x, n - 1)
    }
}

#[differentiable]
fn sum_rec(xs: &[f64], i: usize) -> f64 {
    if i >= xs.len() {
        return 0.0;
    }
    xs[i].sin() + sum_rec(xs, i + 1)
}

#[test]
fn recursion() {
    for x in [0.5, 1.3] {
        let (v, g) = value_with_gradient!(at: (x, 5), of: pow_rec);
        assert_eq!(v, pow_rec(x, 5));
        assert!(close(g, 5.0 * x.powi(4), 1e-12));
        let d = first_derivative!(at: x, of: |x| pow_rec(x, 5));
        assert!(close(d, 5.0 * x.powi(4), 1e-12));
    }
    let xs = vec![0.1, 0.2, 0.3];
    let g = gradient!(at: (&xs, 0), of: sum_rec);
    assert_eq!(g, xs.iter().map(|x| x.cos()).collect::<Vec<_>>());
}

// Mutual recursion: each function's linear map contains the other's, so the ones
// returned are boxed.
#[differentiable]
fn even_terms(xs: &[f64], i: usize) -> f64 {
    if i >= xs.len() {
        return 0.0;
    }
    xs[i].sin() + odd_terms(xs, i + 1)
}

#[differentiable]
fn odd_terms(xs: &[f64], i: usize) -> f64 {
    if i >= xs.len() {
        0.0
    } else {
        xs[i] * xs[i] + even_terms(xs, i + 1)
    }
}

#[differentiable]
fn down(x: f64, n: u32) -> f64 {
    if n == 0 {
        x
    } else {
        up(x * 1.1, n - 1).sin()
    }
}

#[differentiable]
fn up(x: f64, n: u32) -> f64 {
    if n == 0 {
        x * x
    } else {
        down(x, n - 1) * x
    }
}

#[test]
fn mutual_recursion() {
    let xs = vec![0.1, 0.2, 0.3, 0.4, 0.5];
    let (v, g) = value_with_gradient!(at: (&xs, 0), of: even_terms);
    assert_eq!(v, even_terms(&xs, 0));
    let expected: Vec<f64> = (0..5)
        .map(|i| if i % 2 == 0 { xs[i].cos() } else { 2.0 * xs[i] })
        .collect();
    for (g, e) in g.iter().zip(&expected) {
        assert!(close(*g, *e, 1e-12));
    }
    for x in [0.5, 1.3] {
        let (v, d) = value_with_gradient!(at: (x, 4), of: down);
        assert_eq!(v, down(x, 4));
        let h = 1e-6;
        let fd = (down(x + h, 4) - down(x - h, 4)) / (2.0 * h);
        assert!(close(d, fd, 1e-7), "{d} vs {fd}");
        let forward = first_derivative!(at: x, of: |x| down(x, 4));
        assert!(close(forward, d, 1e-12));
    }
}

// ---------------------------------------------------------------- closures bound in the body

#[differentiable]
fn local_closures(x: f64, k: f64) -> f64 {
    let sq = |t: f64| t * t * k;
    let mut acc = 0.0;
    for i in 0..3 {
        if i != 1 {
            acc += sq(x + i as f64);
        }
    }
    acc
}

#[test]
fn closures_called_in_the_body_are_inlined() {
    // k * (x^2 + (x+2)^2)
    let (v, (gx, gk)) = value_with_gradient!(at: (0.5, 2.0), of: local_closures);
    assert_eq!(v, local_closures(0.5, 2.0));
    assert!(close(gx, 2.0 * (2.0 * 0.5 + 2.0 * 2.5), 1e-12));
    assert!(close(gk, 0.25 + 6.25, 1e-12));
}

/// Closures called where they are written, as a `macro_rules!` expansion writes them
/// (`$f(x)` with `$f` a closure): inlined like bound ones, reading what they capture.
macro_rules! applied {
    ($name:ident, $f:expr) => {
        #[differentiable]
        fn $name(x: f64, k: f64) -> f64 {
            $f(x) * k
        }
    };
}

applied!(k_sin, |t: f64| t.sin());

#[differentiable]
#[allow(clippy::redundant_closure_call)] // written so on purpose
fn closures_called_where_written(x: f64, k: f64) -> f64 {
    let a = (|t: f64| k * t * t)(x);
    let mut acc = k_sin(x, k);
    acc += (|u: f64, v: f64| u * v)(a, x);
    acc
}

#[test]
fn closures_called_where_they_are_written_are_inlined() {
    // k sin x + (k x^2) x
    for (x, k) in [(0.5, 2.0), (-1.2, 0.7)] {
        let (v, (gx, gk)) = value_with_gradient!(at: (x, k), of: closures_called_where_written);
        assert_eq!(v, closures_called_where_written(x, k));
        assert!(close(v, k * x.sin() + k * x * x * x, 1e-12));
        assert!(close(gx, k * x.cos() + 3.0 * k * x * x, 1e-12));
        assert!(close(gk, x.sin() + x * x * x, 1e-12));
        let dx = first_derivative!(at: x, of: |x| closures_called_where_written(x, k));
        assert!(close(dx, gx, 1e-12));
        let h =
            hessian!(at: vec![x, k], of: |p: Vec<f64>| closures_called_where_written(p[0], p[1]));
        assert!(close(h[0][0], -k * x.sin() + 6.0 * k * x, 1e-10));
        assert!(close(h[0][1], x.cos() + 3.0 * x * x, 1e-10));
    }
}

// ---------------------------------------------------------------- helpers returning integers

/// Helpers of the crate returning an integer or a `bool` are primal code, whatever their
/// arguments: no derivative to give.
fn count_positive(xs: &[f64]) -> usize {
    xs.iter().filter(|x| **x > 0.0).count()
}

fn is_large(x: f64) -> bool {
    x.abs() > 1.0
}

#[differentiable]
fn mean_of_positive(xs: &[f64]) -> f64 {
    let n = count_positive(xs) as f64;
    let mut s = 0.0;
    for &x in xs {
        if x > 0.0 && !is_large(x) {
            s += x * x;
        } else if is_large(x) {
            s += x;
        }
    }
    s / n
}

#[test]
fn helpers_returning_integers_are_primal_code() {
    let xs = vec![0.5, -0.3, 2.0, 0.25];
    let (v, g) = value_with_gradient!(at: xs.clone(), of: |v: Vec<f64>| mean_of_positive(&v));
    assert_eq!(v, mean_of_positive(&xs));
    let want = [2.0 * 0.5 / 3.0, 0.0, 1.0 / 3.0, 2.0 * 0.25 / 3.0];
    for (g, w) in g.iter().zip(want) {
        assert!(close(*g, w, 1e-12), "{g} vs {w}");
    }
}

// ---------------------------------------------------------------- destructuring assignment, let-else

#[differentiable]
fn leapfrog(x0: f64, v0: f64, k: f64) -> f64 {
    let (mut x, mut v) = (x0, v0);
    for _ in 0..20 {
        (x, v) = (x + 0.05 * v, v - 0.05 * k * x);
    }
    let mut pair = [x, v];
    [pair[1], _] = [pair[0] * pair[1], 0.0];
    (x, v) = (v, x);
    x * 2.0 + v + pair[1]
}

#[differentiable]
fn product_after_first(xs: &[f64]) -> f64 {
    let Some(first) = xs.first() else {
        return 0.0;
    };
    let mut s = *first;
    for &x in &xs[1..] {
        let Some(y) = (if x > 0.0 { Some(x) } else { None }) else {
            continue;
        };
        s *= y;
    }
    s
}

#[differentiable]
fn split_pair(p: (f64, f64), flag: bool) -> f64 {
    let (mut a, b) = if flag { (p.0, Some(p.1)) } else { (p.1, None) };
    let Some(mut c) = b else { panic!("no second") };
    c += a;
    a *= c;
    a + c
}

#[test]
fn destructuring_assignments_and_let_else() {
    let (x0, v0, k) = (1.0, 0.5, 2.0);
    let (v, (gx, gv, gk)) = value_with_gradient!(at: (x0, v0, k), of: leapfrog);
    assert_eq!(v, leapfrog(x0, v0, k));
    assert!(close(gx, fd(|x| leapfrog(x, v0, k), x0), 1e-7));
    assert!(close(gv, fd(|v| leapfrog(x0, v, k), v0), 1e-7));
    assert!(close(gk, fd(|k| leapfrog(x0, v0, k), k), 1e-7));
    let d = first_derivative!(at: x0, of: |x| leapfrog(x, v0, k));
    assert!(close(d, gx, 1e-12));

    let xs = vec![2.0, 3.0, -1.0, 4.0];
    let (v, g) = value_with_gradient!(at: xs.clone(), of: |v: Vec<f64>| product_after_first(&v));
    assert_eq!(v, 24.0);
    assert_eq!(g, vec![12.0, 8.0, 0.0, 6.0]);
    assert_eq!(
        gradient!(at: Vec::<f64>::new(), of: |v: Vec<f64>| product_after_first(&v)),
        Vec::<f64>::new()
    );

    // a = p.0, c = p.1 + p.0: (a c) + c.
    let (v, g) =
        value_with_gradient!(at: (0.5, 1.5), of: |a: f64, b: f64| split_pair((a, b), true));
    assert_eq!(v, 0.5 * 2.0 + 2.0);
    assert_eq!(g, (2.0 * 0.5 + 1.5 + 1.0, 0.5 + 1.0));
}
