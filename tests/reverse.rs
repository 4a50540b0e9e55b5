//! Reverse mode end to end: `gradient!`, `value_with_gradient!`, `pullback!` and
//! `value_with_pullback!` on scalar functions, checked against analytic derivatives and
//! finite differences; the original functions are checked unchanged.

mod common;

use common::{assert_close, fd, fd_grad, Rng};
use diff::prelude::*;

// ---------------------------------------------------------------------------------------
// The issue snippet.

#[differentiable]
fn issue(x: f64, y: f64) -> f64 {
    let t = x * y + x.sin() / (1.0 + y * y);
    let mut s = t.exp();
    s += t * 3.0;
    -s.powi(2) + y.sqrt()
}

/// The snippet written out by hand, without the macro.
fn issue_by_hand(x: f64, y: f64) -> f64 {
    let t = x * y + x.sin() / (1.0 + y * y);
    let s = t.exp() + t * 3.0;
    -(s * s) + y.sqrt()
}

fn issue_grad_analytic(x: f64, y: f64) -> (f64, f64) {
    let q = 1.0 + y * y;
    let t = x * y + x.sin() / q;
    let s = t.exp() + 3.0 * t;
    let ds_dt = t.exp() + 3.0;
    let dt_dx = y + x.cos() / q;
    let dt_dy = x - 2.0 * y * x.sin() / (q * q);
    (
        -2.0 * s * ds_dt * dt_dx,
        -2.0 * s * ds_dt * dt_dy + 0.5 / y.sqrt(),
    )
}

#[test]
fn issue_snippet_gradient() {
    let (dx, dy) = gradient!(at: (1.0, 2.0), of: issue);
    let (ex, ey) = issue_grad_analytic(1.0, 2.0);
    assert_close(dx, ex, 1e-12, "d/dx");
    assert_close(dy, ey, 1e-12, "d/dy");
    assert_close(dx, fd(|x| issue(x, 2.0), 1.0), 1e-7, "d/dx vs fd");
    assert_close(dy, fd(|y| issue(1.0, y), 2.0), 1e-7, "d/dy vs fd");
}

/// The issue's snippet as it was written, the closure literal included: the gradient at
/// its point against the formula, reverse mode against forward mode, and the closure's
/// derivative in both modes.
#[test]
fn issue_snippet_as_written() {
    let (dx, dy) = gradient!(at: (1.0, 2.0), of: issue);
    let (ex, ey) = issue_grad_analytic(1.0, 2.0);
    assert_close(dx, ex, 1e-12, "d/dx");
    assert_close(dy, ey, 1e-12, "d/dy");
    let (v, df) = value_with_differential!(at: (1.0, 2.0), of: issue);
    assert_eq!(v, issue(1.0, 2.0));
    assert_close(df((1.0, 0.0)), dx, 1e-12, "forward d/dx");
    let dy_fwd = differential!(at: (1.0, 2.0), of: issue)((0.0, 1.0));
    assert_close(dy_fwd, dy, 1e-12, "forward d/dy");
    let d = gradient!(at: 4.0_f64, of: |x| x * x * x);
    assert_eq!(d, 48.0);
    assert_eq!(first_derivative!(at: 4.0_f64, of: |x| x * x * x), 48.0);
}

#[test]
fn issue_snippet_at_several_points() {
    let mut rng = Rng::new(1);
    for _ in 0..20 {
        let (x, y) = (rng.uniform(-1.0, 1.0), rng.uniform(0.1, 1.5));
        let (v, (dx, dy)) = value_with_gradient!(at: (x, y), of: issue);
        assert_eq!(v, issue(x, y), "value is the original function's");
        assert_close(v, issue_by_hand(x, y), 1e-13, "value");
        let (ex, ey) = issue_grad_analytic(x, y);
        assert_close(dx, ex, 1e-11, "d/dx");
        assert_close(dy, ey, 1e-11, "d/dy");
    }
}

#[test]
fn original_function_is_unchanged() {
    // Callable, same signature (as a fn pointer), same value.
    let f: fn(f64, f64) -> f64 = issue;
    for (x, y) in [(1.0, 2.0), (-0.3, 0.7), (2.0, 0.01)] {
        assert_eq!(f(x, y).to_bits(), issue_by_hand(x, y).to_bits());
    }
}

// ---------------------------------------------------------------------------------------
// Rosenbrock.

#[differentiable]
fn rosenbrock(x: f64, y: f64) -> f64 {
    (1.0 - x).powi(2) + 100.0 * (y - x * x).powi(2)
}

fn rosenbrock_grad(x: f64, y: f64) -> (f64, f64) {
    (
        -2.0 * (1.0 - x) - 400.0 * x * (y - x * x),
        200.0 * (y - x * x),
    )
}

#[test]
fn rosenbrock_gradient() {
    assert_eq!(gradient!(at: (1.0, 1.0), of: rosenbrock), (0.0, 0.0));
    assert_eq!(rosenbrock(1.0, 1.0), 0.0);
    let mut rng = Rng::new(2);
    for _ in 0..20 {
        let (x, y) = (rng.uniform(-2.0, 2.0), rng.uniform(-1.0, 3.0));
        let (dx, dy) = gradient!(at: (x, y), of: rosenbrock);
        let (ex, ey) = rosenbrock_grad(x, y);
        assert_close(dx, ex, 1e-12, "d/dx");
        assert_close(dy, ey, 1e-12, "d/dy");
        let g = fd_grad(|p| rosenbrock(p[0], p[1]), &[x, y]);
        assert_close(dx, g[0], 1e-6, "d/dx vs fd");
        assert_close(dy, g[1], 1e-6, "d/dy vs fd");
    }
}

#[test]
fn rosenbrock_gradient_descent_converges() {
    let (mut x, mut y) = (-1.2, 1.0);
    for _ in 0..20000 {
        let (dx, dy) = gradient!(at: (x, y), of: rosenbrock);
        x -= 1e-3 * dx;
        y -= 1e-3 * dy;
    }
    assert!(rosenbrock(x, y) < 1e-4, "f = {}", rosenbrock(x, y));
}

// ---------------------------------------------------------------------------------------
// Nested calls: by name, and by path into a module.

#[differentiable]
fn g(x: f64) -> f64 {
    x.sin() * x
}

fn g_prime(x: f64) -> f64 {
    x.cos() * x + x.sin()
}

#[differentiable]
fn calls_g(x: f64, y: f64) -> f64 {
    g(x) * y + g(y * x)
}

mod m {
    use diff::prelude::*;

    #[differentiable]
    pub fn h(x: f64, y: f64) -> f64 {
        x * y.exp()
    }

    pub mod inner {
        use diff::prelude::*;

        #[differentiable]
        pub fn sq(x: f64) -> f64 {
            x * x
        }
    }
}

#[differentiable]
fn calls_by_path(x: f64, y: f64) -> f64 {
    m::h(x, y) + m::inner::sq(x - y) + self::g(y)
}

#[differentiable]
fn calls_twice_nested(x: f64) -> f64 {
    let a = calls_g(x, 2.0);
    g(a) + g(g(x))
}

#[test]
fn nested_call_by_name() {
    for (x, y) in [(0.5, 1.5), (-1.0, 0.3), (2.0, -0.7)] {
        let (dx, dy) = gradient!(at: (x, y), of: calls_g);
        assert_close(dx, g_prime(x) * y + g_prime(y * x) * y, 1e-12, "dx");
        assert_close(dy, g(x) + g_prime(y * x) * x, 1e-12, "dy");
        assert_eq!(
            value_with_gradient!(at: (x, y), of: calls_g).0,
            calls_g(x, y)
        );
    }
}

#[test]
fn nested_call_by_module_path() {
    for (x, y) in [(0.5, 1.5), (-1.0, 0.3)] {
        let (dx, dy) = gradient!(at: (x, y), of: calls_by_path);
        assert_close(dx, y.exp() + 2.0 * (x - y), 1e-12, "dx");
        assert_close(dy, x * y.exp() - 2.0 * (x - y) + g_prime(y), 1e-12, "dy");
    }
    // The operator also takes a path into a module.
    let (dx, dy) = gradient!(at: (3.0, 0.5), of: m::h);
    assert_close(dx, 0.5f64.exp(), 1e-15, "m::h dx");
    assert_close(dy, 3.0 * 0.5f64.exp(), 1e-15, "m::h dy");
    assert_eq!(gradient!(at: 4.0, of: m::inner::sq), 8.0);
    assert_eq!(m::inner::sq(4.0), 16.0);
    assert_eq!(m::h(3.0, 0.0), 3.0);
    assert_eq!(calls_by_path(1.0, 0.0), 1.0 + 1.0 + 0.0);
}

#[test]
fn deeply_nested_calls() {
    for x in [0.3, -0.8, 1.1] {
        let d = gradient!(at: x, of: calls_twice_nested);
        assert_close(d, fd(calls_twice_nested, x), 1e-7, "vs fd");
    }
}

// ---------------------------------------------------------------------------------------
// Generic functions.

#[differentiable]
fn cube<T: Float>(x: T) -> T {
    x * x * x
}

#[differentiable]
fn generic_mix<T: Float>(x: T, y: T) -> T {
    let z = x.sin() * y + cube(x);
    z.exp() / (y * y + x * x)
}

#[test]
fn generic_cube_f64_f32_and_turbofish() {
    assert_eq!(gradient!(at: 2.0_f64, of: cube), 12.0);
    assert_eq!(gradient!(at: 2.0_f32, of: cube), 12.0_f32);
    assert_eq!(gradient!(at: -3.0, of: cube::<f64>), 27.0);
    assert_eq!(gradient!(at: 0.5, of: cube::<f32>), 0.75_f32);
    assert_eq!(cube(2.0_f64), 8.0);
    assert_eq!(cube(2.0_f32), 8.0);
}

#[test]
fn generic_nested_f64_and_f32() {
    for (x, y) in [(0.5, 1.5), (-1.0, 0.3)] {
        let (dx, dy) = gradient!(at: (x, y), of: generic_mix::<f64>);
        let gr = fd_grad(|p| generic_mix(p[0], p[1]), &[x, y]);
        assert_close(dx, gr[0], 1e-7, "dx");
        assert_close(dy, gr[1], 1e-7, "dy");
        let (fx, fy) = gradient!(at: (x as f32, y as f32), of: generic_mix);
        assert_close(fx as f64, dx, 1e-4, "f32 dx");
        assert_close(fy as f64, dy, 1e-4, "f32 dy");
    }
}

// ---------------------------------------------------------------------------------------
// wrt, no_derivative, inactive parameters, println!.

#[differentiable(wrt = (x))]
fn wrt_x(x: f64, y: f64) -> f64 {
    x.powi(2) * y
}

#[differentiable(wrt = (y))]
fn wrt_y(x: f64, y: f64) -> f64 {
    x.powi(2) * y.sin()
}

#[test]
fn wrt_selects_parameters() {
    let dx: f64 = gradient!(at: (3.0, 2.0), of: wrt_x);
    assert_eq!(dx, 12.0);
    let dy: f64 = gradient!(at: (3.0, 2.0), of: wrt_y);
    assert_close(dy, 9.0 * 2.0f64.cos(), 1e-15, "dy");
    assert_eq!(wrt_x(3.0, 2.0), 18.0);
    assert_eq!(wrt_y(3.0, 2.0), 9.0 * 2.0f64.sin());
}

#[differentiable(wrt = (x))]
fn wrt_first(x: f64, y: f64) -> f64 {
    x.powi(3) * y.exp()
}

#[differentiable(wrt = (x, z))]
fn wrt_two_of_three(x: f64, y: f64, z: f64) -> f64 {
    x * y * z + z.sin() * y
}

#[test]
fn wrt_selects_one_or_two_of_several_parameters() {
    let (x, y, z) = (1.3, -0.4, 0.9);
    let (v, dx) = value_with_gradient!(at: (x, y), of: wrt_first);
    assert_eq!(v, wrt_first(x, y));
    let dx: f64 = dx;
    assert_close(dx, 3.0 * x * x * y.exp(), 1e-14, "wrt x");

    let (dx, dz) = gradient!(at: (x, y, z), of: wrt_two_of_three);
    assert_close(dx, y * z, 1e-15, "wrt (x, z): dx");
    assert_close(dz, x * y + z.cos() * y, 1e-15, "wrt (x, z): dz");
}

#[differentiable]
fn stopped(x: f64) -> f64 {
    x * no_derivative(x) + no_derivative(x.sin() * 3.0)
}

#[differentiable]
fn stopped_in_let(x: f64, y: f64) -> f64 {
    let c = no_derivative(x * y);
    c * x + y
}

#[test]
fn no_derivative_cuts_the_derivative() {
    for x in [3.0, -0.5] {
        let (v, d) = value_with_gradient!(at: x, of: stopped);
        assert_eq!(v, x * x + x.sin() * 3.0);
        assert_eq!(d, x);
    }
    let (dx, dy) = gradient!(at: (2.0, 5.0), of: stopped_in_let);
    assert_eq!((dx, dy), (10.0, 1.0));
    assert_eq!(stopped(3.0), 9.0 + 3.0f64.sin() * 3.0);
    assert_eq!(stopped_in_let(2.0, 5.0), 25.0);
}

#[differentiable]
fn int_param(x: f64, n: usize) -> f64 {
    x.powi(n as i32) * (n as f64)
}

#[differentiable]
fn int_loop(x: f64, n: usize) -> f64 {
    let mut acc = 1.0;
    for _ in 0..n {
        acc *= x;
    }
    acc
}

#[test]
fn inactive_integer_parameters() {
    let d: f64 = gradient!(at: (2.0, 3usize), of: int_param);
    assert_eq!(d, 3.0 * 3.0 * 4.0);
    assert_eq!(int_param(2.0, 3), 24.0);
    for n in 0..6 {
        let d: f64 = gradient!(at: (1.5, n), of: int_loop);
        let expected = if n == 0 {
            0.0
        } else {
            n as f64 * 1.5f64.powi(n as i32 - 1)
        };
        assert_close(d, expected, 1e-14, "d/dx x^n");
        assert_eq!(int_loop(1.5, n), 1.5f64.powi(n as i32));
    }
}

/// A `Vec` that carries no derivative, built and mutated by methods (`push`, `reverse`).
#[differentiable]
#[allow(clippy::needless_range_loop)]
fn with_inactive_mutation(x: f64, n: usize) -> f64 {
    let mut weights = Vec::new();
    for i in 0..n {
        weights.push(i as f64 + 1.0);
    }
    weights.reverse();
    let mut acc = 0.0;
    for i in 0..n {
        acc += weights[i] * x.powi(i as i32 + 1);
    }
    acc
}

#[test]
fn inactive_mutation_by_methods() {
    let (v, g) = value_with_gradient!(at: (2.0, 3), of: with_inactive_mutation);
    // 3x + 2x^2 + x^3 -> 3 + 4x + 3x^2
    assert_eq!(v, with_inactive_mutation(2.0, 3));
    assert_eq!(v, 6.0 + 8.0 + 8.0);
    assert_eq!(g, 3.0 + 8.0 + 12.0);
}

#[differentiable]
fn prints(x: f64) -> f64 {
    let y = x * x;
    println!("y = {}, x = {}", y, x);
    y.sin()
}

#[test]
fn println_of_active_values() {
    let (v, d) = value_with_gradient!(at: 0.7, of: prints);
    assert_eq!(v, prints(0.7));
    assert_eq!(v, (0.7f64 * 0.7).sin());
    assert_close(d, 0.49f64.cos() * 1.4, 1e-15, "d");
}

// ---------------------------------------------------------------------------------------
// Control flow (if/else, for loops).

#[differentiable]
fn piecewise(x: f64) -> f64 {
    let mut y = x;
    if x > 0.0 {
        y = x * x;
    } else {
        y *= -3.0;
    }
    let z = if y > 1.0 { y.ln() } else { y };
    z + x
}

#[differentiable]
fn horner(x: f64, n: usize) -> f64 {
    let mut acc = 0.0;
    for i in 0..n {
        acc = acc * x + (i as f64 + 1.0);
    }
    acc
}

#[test]
fn if_else_branches() {
    for x in [-2.0, -0.1, 0.5, 3.0] {
        let d = gradient!(at: x, of: piecewise);
        assert_close(d, fd(piecewise, x), 1e-8, &format!("x = {x}"));
        assert_eq!(value_with_gradient!(at: x, of: piecewise).0, piecewise(x));
    }
}

#[test]
fn for_loop_carrying_state() {
    for x in [0.5, -1.3, 2.0] {
        let d: f64 = gradient!(at: (x, 5usize), of: horner);
        // 1 x^4 + 2 x^3 + 3 x^2 + 4 x + 5
        let e = 4.0 * x.powi(3) + 6.0 * x * x + 6.0 * x + 4.0;
        assert_close(d, e, 1e-13, "horner");
        assert_eq!(horner(x, 0), 0.0);
        assert_close(
            horner(x, 5),
            fd(
                |t| 0.2 * t.powi(5) + 0.5 * t.powi(4) + t.powi(3) + 2.0 * t * t + 5.0 * t,
                x,
            ),
            1e-9,
            "horner value",
        );
    }
}

// ---------------------------------------------------------------------------------------
// Closure literals.

#[test]
fn closure_literals() {
    assert_eq!(gradient!(at: 4.0_f64, of: |x| x * x * x), 48.0);
    assert_eq!(gradient!(at: 4.0, of: |x| x * x * x), 48.0);
    let (dx, dy) = gradient!(at: (1.0, 2.0), of: |x, y| x * y + x.sin());
    assert_close(dx, 2.0 + 1.0f64.cos(), 1e-15, "dx");
    assert_eq!(dy, 1.0);
    let d = gradient!(at: 0.3_f32, of: |x| x.exp() * x);
    assert_close(d as f64, 0.3f64.exp() * 1.3, 1e-6, "f32 closure");
}

#[test]
fn closure_calling_differentiable_functions() {
    let d = gradient!(at: 1.5, of: |x| g(x) + rosenbrock(x, 2.0));
    assert_close(d, g_prime(1.5) + rosenbrock_grad(1.5, 2.0).0, 1e-12, "d");
    let (dx, dy) = gradient!(at: (0.2, 0.4), of: |a, b| issue(a, b) * 2.0);
    let (ex, ey) = issue_grad_analytic(0.2, 0.4);
    assert_close(dx, 2.0 * ex, 1e-12, "dx");
    assert_close(dy, 2.0 * ey, 1e-12, "dy");
}

#[test]
fn closure_with_a_block_body() {
    let d = gradient!(at: 0.5, of: |x| {
        let y = x * 2.0;
        let mut z = y.sin();
        z += y;
        z * x
    });
    let e = fd(|x: f64| ((2.0 * x).sin() + 2.0 * x) * x, 0.5);
    assert_close(d, e, 1e-8, "block closure");
}

// ---------------------------------------------------------------------------------------
// value_with_*, pullbacks with non-unit seeds.

#[test]
fn value_with_pullback_and_linearity() {
    let (v, pb) = value_with_pullback!(at: (0.4, 1.2), of: issue);
    assert_eq!(v, issue(0.4, 1.2));
    let (gx, gy) = gradient!(at: (0.4, 1.2), of: issue);
    let (px, py) = pb(2.5);
    assert_close(px, 2.5 * gx, 1e-14, "seed 2.5 dx");
    assert_close(py, 2.5 * gy, 1e-14, "seed 2.5 dy");
    let pb = pullback!(at: (0.4, 1.2), of: issue);
    assert_eq!(pb(0.0), (0.0, 0.0));
    let pb = pullback!(at: (0.4, 1.2), of: issue);
    let (nx, ny) = pb(-1.0);
    assert_close(nx, -gx, 1e-15, "seed -1 dx");
    assert_close(ny, -gy, 1e-15, "seed -1 dy");
}

#[test]
fn pullback_single_input_and_closure() {
    let pb = pullback!(at: 1.5, of: g);
    assert_close(pb(3.0), 3.0 * g_prime(1.5), 1e-15, "g");
    let pb = pullback!(at: 2.0, of: |x| x * x);
    assert_eq!(pb(0.5), 2.0);
    let (v, pb) = value_with_pullback!(at: (2.0, 3.0), of: |x, y| x * y);
    assert_eq!(v, 6.0);
    assert_eq!(pb(2.0), (6.0, 4.0));
}
