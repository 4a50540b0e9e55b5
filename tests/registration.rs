//! `#[derivative(of = ...)]` on free functions: where a registration is found (same
//! module, another module imported with `use`, a path `m::h`), used from control flow,
//! forward/reverse mode derived from the other, precedence over a `#[differentiable]`
//! body, and both modes registered.
//!
//! Every registered derivative is deliberately wrong by a distinctive factor (2, 3, 5,
//! 7, 10, ...), so each assertion proves which rule was used.
#![allow(clippy::assign_op_pattern)]
#[macro_use]
mod common;
use common::assert_close;
use diff::prelude::*;

// ---------------------------------------------------------------------------------------
// A free function in the same module.

/// Never annotated: the registration is its only derivative.
fn sq(x: f64) -> f64 {
    x * x
}

#[derivative(of = sq)]
fn sq_vjp(x: f64) -> (f64, impl FnOnce(f64) -> f64) {
    // 2x, scaled by 2.
    (sq(x), move |dy| 2.0 * dy * 2.0 * x)
}

#[differentiable]
fn uses_sq(x: f64) -> f64 {
    sq(x) + x
}

#[test]
fn same_module_free_function() {
    let x = 1.5;
    assert_close!(gradient!(at: x, of: sq), 4.0 * x);
    assert_close!(gradient!(at: x, of: uses_sq), 4.0 * x + 1.0);
    let (v, g) = value_with_gradient!(at: x, of: uses_sq);
    assert_close!(v, x * x + x);
    assert_close!(g, 4.0 * x + 1.0);
    let (v, pb) = value_with_pullback!(at: x, of: sq);
    assert_close!(v, x * x);
    assert_close!(pb(0.5), 0.5 * 4.0 * x);
    let pb = pullback!(at: x, of: uses_sq);
    assert_close!(pb(2.0), 2.0 * (4.0 * x + 1.0));
    // Closure literals see the registration too.
    assert_close!(gradient!(at: x, of: |x| 3.0 * sq(x)), 12.0 * x);
}

#[test]
fn vjp_registration_gives_forward_mode_for_a_scalar_result() {
    // Only the VJP is registered; forward mode derives dx -> <pullback(1), dx>.
    let x = -0.75;
    assert_close!(first_derivative!(at: x, of: sq), 4.0 * x);
    assert_close!(first_derivative!(at: x, of: uses_sq), 4.0 * x + 1.0);
    let (v, d) = value_with_derivative!(at: x, of: uses_sq);
    assert_close!(v, x * x + x);
    assert_close!(d, 4.0 * x + 1.0);
    let df = differential!(at: x, of: sq);
    assert_close!(df(3.0), 3.0 * 4.0 * x);
    let (v, df) = value_with_differential!(at: x, of: uses_sq);
    assert_close!(v, x * x + x);
    assert_close!(df(0.5), 0.5 * (4.0 * x + 1.0));
    assert_close!(first_derivative!(at: x, of: |x| sq(x) * 2.0), 8.0 * x);
}

// A VJP registration of two parameters, used by forward mode (scalar result).

fn prod(x: f64, y: f64) -> f64 {
    x * y
}

#[derivative(of = prod)]
fn prod_vjp(x: f64, y: f64) -> (f64, impl FnOnce(f64) -> (f64, f64)) {
    // (y, x), scaled by (2, 7).
    (prod(x, y), move |dy| (2.0 * dy * y, 7.0 * dy * x))
}

#[differentiable]
fn uses_prod(x: f64, y: f64) -> f64 {
    prod(x, y) + prod(y, 1.0)
}

#[test]
fn vjp_registration_of_two_parameters() {
    let (x, y) = (1.25, -2.0);
    let (gx, gy) = gradient!(at: (x, y), of: prod);
    assert_close!(gx, 2.0 * y);
    assert_close!(gy, 7.0 * x);
    let (gx, gy) = gradient!(at: (x, y), of: uses_prod);
    assert_close!(gx, 2.0 * y);
    assert_close!(gy, 7.0 * x + 2.0);
    // Forward mode, derived: <(2y, 7x), (dx, dy)>.
    let (v, df) = value_with_differential!(at: (x, y), of: uses_prod);
    assert_close!(v, x * y + y);
    assert_close!(df((1.0, 0.0)), 2.0 * y);
    let df = differential!(at: (x, y), of: uses_prod);
    assert_close!(df((0.0, 1.0)), 7.0 * x + 2.0);
    let df = differential!(at: (x, y), of: prod);
    assert_close!(df((0.5, 0.25)), 0.5 * 2.0 * y + 0.25 * 7.0 * x);
}

// ---------------------------------------------------------------------------------------
// A function in another module, its registration in a third one imported with a glob.

mod maths {
    pub fn cube(x: f64) -> f64 {
        x * x * x
    }
    pub fn shifted(x: f64, c: f64) -> f64 {
        x + c
    }
}

mod regs {
    use super::maths::{cube, shifted};
    use diff::prelude::*;

    #[derivative(of = cube)]
    pub fn cube_vjp(x: f64) -> (f64, impl FnOnce(f64) -> f64) {
        // 3x^2, scaled by 10.
        (cube(x), move |dy| 10.0 * dy * 3.0 * x * x)
    }

    #[derivative(of = shifted)]
    pub fn shifted_vjp(x: f64, c: f64) -> (f64, impl FnOnce(f64) -> (f64, f64)) {
        // (1, 1), scaled by (5, -1).
        (shifted(x, c), move |dy| (5.0 * dy, -dy))
    }
}

mod user {
    use super::maths::{cube, shifted};
    use super::regs::*;
    use diff::prelude::*;

    #[differentiable]
    pub fn f(x: f64) -> f64 {
        cube(x) + shifted(x, 2.0)
    }

    #[differentiable]
    pub fn g(x: f64, c: f64) -> f64 {
        shifted(x, c) * 2.0
    }
}

#[test]
fn registration_in_another_module_imported_with_a_glob() {
    let x = 0.8;
    assert_close!(gradient!(at: x, of: user::f), 30.0 * x * x + 5.0);
    assert_close!(first_derivative!(at: x, of: user::f), 30.0 * x * x + 5.0);
    let (gx, gc) = gradient!(at: (x, 3.0), of: user::g);
    assert_close!(gx, 10.0);
    assert_close!(gc, -2.0);
}

#[test]
fn registered_function_of_another_module_as_an_operator_path() {
    // The registration lives in `regs`: the operators find it when that module is in
    // scope, with the original's own name.
    use maths::cube;
    use regs::*;
    let x = 1.1;
    assert_close!(gradient!(at: x, of: cube), 30.0 * x * x);
    assert_close!(first_derivative!(at: x, of: cube), 30.0 * x * x);
    let (v, pb) = value_with_pullback!(at: x, of: cube);
    assert_close!(v, cube(x));
    assert_close!(pb(2.0), 60.0 * x * x);
}

// A registration placed in the original's module, called as `m::h(x)` from outside.

mod shapes {
    use diff::prelude::*;

    pub fn quart(x: f64) -> f64 {
        x * x * x * x
    }

    #[derivative(of = quart)]
    pub fn quart_vjp(x: f64) -> (f64, impl FnOnce(f64) -> f64) {
        // 4x^3, scaled by 3.
        (quart(x), move |dy| 3.0 * dy * 4.0 * x * x * x)
    }
}

#[differentiable]
fn uses_path_call(x: f64) -> f64 {
    shapes::quart(x) - x
}

#[test]
fn path_call_finds_the_registration_in_that_module() {
    let x = 0.9;
    assert_close!(gradient!(at: x, of: uses_path_call), 12.0 * x * x * x - 1.0);
    assert_close!(
        first_derivative!(at: x, of: uses_path_call),
        12.0 * x * x * x - 1.0
    );
    assert_close!(gradient!(at: x, of: shapes::quart), 12.0 * x * x * x);
    assert_close!(
        first_derivative!(at: x, of: shapes::quart),
        12.0 * x * x * x
    );
}

// ---------------------------------------------------------------------------------------
// Control flow around the call.

fn bump(x: f64) -> f64 {
    x.sin()
}

#[derivative(of = bump)]
fn bump_vjp(x: f64) -> (f64, impl FnOnce(f64) -> f64) {
    // cos x, scaled by 2.
    (bump(x), move |dy| 2.0 * dy * x.cos())
}

#[differentiable]
fn in_loop_and_branch(x: f64, n: usize) -> f64 {
    let mut acc = 0.0;
    let mut i = 0;
    while i < n {
        if i % 2 == 0 {
            acc = acc + bump(x);
        } else {
            acc = acc - 0.5 * bump(x);
        }
        i += 1;
    }
    for k in 0..n {
        if x > 0.0 && k == 0 {
            acc = acc * bump(x);
        }
    }
    acc
}

fn in_loop_and_branch_expected(x: f64, n: usize) -> f64 {
    // acc0 = c * sin x with c = #even - 0.5 #odd, times sin x when x > 0 and n > 0.
    let evens = n.div_ceil(2) as f64;
    let odds = (n / 2) as f64;
    let c = evens - 0.5 * odds;
    let d = 2.0 * x.cos();
    if x > 0.0 && n > 0 {
        // d/dx (c sin^2 x) with each sin's derivative scaled: 2 c sin x * d.
        2.0 * c * x.sin() * d
    } else {
        c * d
    }
}

#[test]
fn registration_used_in_a_loop_and_a_branch() {
    for &(x, n) in &[
        (0.7, 0usize),
        (0.7, 1),
        (0.7, 4),
        (0.7, 5),
        (-0.3, 3),
        (-0.3, 0),
    ] {
        let g = gradient!(at: x, of: |x| in_loop_and_branch(x, n));
        assert_close!(g, in_loop_and_branch_expected(x, n));
        let d = first_derivative!(at: x, of: |x| in_loop_and_branch(x, n));
        assert_close!(d, in_loop_and_branch_expected(x, n));
    }
}

#[differentiable]
fn in_match_and_early_return(x: f64, k: u8) -> f64 {
    if k == 0 {
        return bump(x);
    }
    match k {
        1 => bump(x) * 3.0,
        _ => {
            let mut y = x;
            for _ in 0..k {
                y = bump(y);
            }
            y
        }
    }
}

#[test]
fn registration_used_in_match_arms_early_return_and_a_chain() {
    let x = 0.6;
    assert_close!(
        gradient!(at: x, of: |x| in_match_and_early_return(x, 0)),
        2.0 * x.cos()
    );
    assert_close!(
        gradient!(at: x, of: |x| in_match_and_early_return(x, 1)),
        6.0 * x.cos()
    );
    // sin(sin x): each link scaled by 2.
    let expect = 2.0 * x.sin().cos() * 2.0 * x.cos();
    assert_close!(
        gradient!(at: x, of: |x| in_match_and_early_return(x, 2)),
        expect
    );
    assert_close!(
        first_derivative!(at: x, of: |x| in_match_and_early_return(x, 2)),
        expect
    );
}

// ---------------------------------------------------------------------------------------
// JVP registrations: used by forward mode, and (scalar inputs) by reverse mode, derived.

fn tw(x: f64) -> f64 {
    x.exp()
}

#[derivative(of = tw, jvp)]
fn tw_jvp(x: f64) -> (f64, impl FnOnce(f64) -> f64) {
    // exp x, scaled by 10.
    let y = tw(x);
    (y, move |dx| 10.0 * dx * y)
}

#[differentiable]
fn uses_tw(x: f64) -> f64 {
    tw(x) * x
}

#[test]
fn jvp_registration_in_forward_mode() {
    let x = 0.3;
    assert_close!(first_derivative!(at: x, of: tw), 10.0 * x.exp());
    assert_close!(
        first_derivative!(at: x, of: uses_tw),
        10.0 * x.exp() * x + x.exp()
    );
    let (v, df) = value_with_differential!(at: x, of: tw);
    assert_close!(v, x.exp());
    assert_close!(df(0.5), 5.0 * x.exp());
    let (v, d) = value_with_derivative!(at: x, of: uses_tw);
    assert_close!(v, x.exp() * x);
    assert_close!(d, 10.0 * x.exp() * x + x.exp());
}

#[test]
fn jvp_registration_gives_reverse_mode_for_a_scalar_input() {
    let x = 0.3;
    assert_close!(gradient!(at: x, of: tw), 10.0 * x.exp());
    assert_close!(gradient!(at: x, of: uses_tw), 10.0 * x.exp() * x + x.exp());
    let (v, pb) = value_with_pullback!(at: x, of: tw);
    assert_close!(v, x.exp());
    assert_close!(pb(-2.0), -20.0 * x.exp());
    assert_close!(
        gradient!(at: x, of: |x| tw(2.0 * x)),
        20.0 * (2.0 * x).exp()
    );
}

fn mix(x: f64, y: f64) -> f64 {
    x * y.sin()
}

#[derivative(of = mix, jvp)]
fn mix_jvp(x: f64, y: f64) -> (f64, impl FnOnce((f64, f64)) -> f64) {
    // (sin y, x cos y), scaled by (3, 5).
    (mix(x, y), move |(dx, dy)| {
        3.0 * dx * y.sin() + 5.0 * dy * x * y.cos()
    })
}

#[differentiable]
fn uses_mix(x: f64, y: f64) -> f64 {
    mix(x, y) + mix(y, 1.0)
}

#[test]
fn jvp_registration_of_two_scalar_inputs_in_both_modes() {
    let (x, y) = (0.4, 1.3);
    let (v, df) = value_with_differential!(at: (x, y), of: mix);
    assert_close!(v, x * y.sin());
    assert_close!(df((1.0, 0.0)), 3.0 * y.sin());
    let df = differential!(at: (x, y), of: mix);
    assert_close!(df((0.0, 1.0)), 5.0 * x * y.cos());
    // Reverse mode, derived one input at a time.
    let (gx, gy) = gradient!(at: (x, y), of: mix);
    assert_close!(gx, 3.0 * y.sin());
    assert_close!(gy, 5.0 * x * y.cos());
    let (gx, gy) = gradient!(at: (x, y), of: uses_mix);
    assert_close!(gx, 3.0 * y.sin());
    assert_close!(gy, 5.0 * x * y.cos() + 3.0 * 1f64.sin());
}

// ---------------------------------------------------------------------------------------
// A registration takes precedence over a `#[differentiable]` body.
//
// Only the VJP is registered for `softplus`; `#[differentiable]` callers of it and forward
// mode on it do not compile (bugs-registration.md, "VJP registration of a
// #[differentiable] function"), so this part uses reverse mode through operators and
// closure literals, and `softplus2` below registers both modes.

#[differentiable]
fn softplus(x: f64) -> f64 {
    (1.0 + x.exp()).ln()
}

/// Numerically stable softplus and sigmoid.
fn stable(x: f64) -> (f64, f64) {
    let y = x.max(0.0) + (-x.abs()).exp().ln_1p();
    let s = if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        let e = x.exp();
        e / (1.0 + e)
    };
    (y, s)
}

#[derivative(of = softplus)]
fn softplus_vjp(x: f64) -> (f64, impl FnOnce(f64) -> f64) {
    // The derivative (sigmoid) scaled by 7.
    let (y, s) = stable(x);
    (y, move |dy| 7.0 * dy * s)
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

#[test]
fn registration_takes_precedence_over_the_differentiable_body() {
    for &x in &[-3.0, 0.0, 0.4, 5.0] {
        assert_close!(gradient!(at: x, of: softplus), 7.0 * sigmoid(x));
        assert_close!(
            gradient!(at: x, of: |x| softplus(x) * 2.0),
            14.0 * sigmoid(x)
        );
    }
    // The stable value: the body's (1 + e^800).ln() is inf.
    assert_eq!(softplus(800.0), f64::INFINITY);
    let (v, g) = value_with_gradient!(at: 800.0, of: softplus);
    assert_eq!(v, 800.0);
    assert_close!(g, 7.0);
    let (v, pb) = value_with_pullback!(at: -800.0, of: softplus);
    assert_eq!(v, 0.0);
    assert_eq!(pb(1.0), 0.0);
}

#[differentiable]
fn softplus2(x: f64) -> f64 {
    (1.0 + x.exp()).ln()
}

#[derivative(of = softplus2)]
fn softplus2_vjp(x: f64) -> (f64, impl FnOnce(f64) -> f64) {
    // Scaled by 7.
    let (y, s) = stable(x);
    (y, move |dy| 7.0 * dy * s)
}

#[derivative(of = softplus2, jvp)]
fn softplus2_jvp(x: f64) -> (f64, impl FnOnce(f64) -> f64) {
    // Scaled by 11.
    let (y, s) = stable(x);
    (y, move |dx| 11.0 * dx * s)
}

#[differentiable]
fn uses_softplus2(x: f64) -> f64 {
    softplus2(x) * 2.0
}

#[test]
fn both_registrations_take_precedence_over_the_differentiable_body() {
    for &x in &[-3.0, 0.0, 0.4, 5.0] {
        assert_close!(gradient!(at: x, of: softplus2), 7.0 * sigmoid(x));
        assert_close!(gradient!(at: x, of: uses_softplus2), 14.0 * sigmoid(x));
        assert_close!(first_derivative!(at: x, of: softplus2), 11.0 * sigmoid(x));
        assert_close!(
            first_derivative!(at: x, of: uses_softplus2),
            22.0 * sigmoid(x)
        );
    }
    let (v, d) = value_with_derivative!(at: 800.0, of: uses_softplus2);
    assert_eq!(v, 1600.0);
    assert_close!(d, 22.0);
}

// ---------------------------------------------------------------------------------------
// Both modes registered for one function: each mode uses its own registration.

fn both(x: f64) -> f64 {
    x.cos()
}

#[derivative(of = both)]
fn both_vjp(x: f64) -> (f64, impl FnOnce(f64) -> f64) {
    // -sin x, scaled by 2.
    (both(x), move |dy| -2.0 * dy * x.sin())
}

#[derivative(of = both, jvp)]
fn both_jvp(x: f64) -> (f64, impl FnOnce(f64) -> f64) {
    // -sin x, scaled by 5.
    (both(x), move |dx| -5.0 * dx * x.sin())
}

#[differentiable]
fn uses_both(x: f64) -> f64 {
    both(x) + both(2.0 * x)
}

#[test]
fn both_modes_registered_each_used_by_its_mode() {
    let x = 0.45;
    assert_close!(gradient!(at: x, of: both), -2.0 * x.sin());
    assert_close!(first_derivative!(at: x, of: both), -5.0 * x.sin());
    assert_close!(
        gradient!(at: x, of: uses_both),
        -2.0 * x.sin() - 4.0 * (2.0 * x).sin()
    );
    assert_close!(
        first_derivative!(at: x, of: uses_both),
        -5.0 * x.sin() - 10.0 * (2.0 * x).sin()
    );
    let (_, pb) = value_with_pullback!(at: x, of: uses_both);
    assert_close!(pb(1.0), -2.0 * x.sin() - 4.0 * (2.0 * x).sin());
    let (_, df) = value_with_differential!(at: x, of: uses_both);
    assert_close!(df(1.0), -5.0 * x.sin() - 10.0 * (2.0 * x).sin());
}

// ---------------------------------------------------------------------------------------
// Registrations that change a derivative on purpose (a clipped gradient, sqrt's derivative
// defined as 0 at 0), and a JVP of two parameters whose pullback is derived.

/// Not annotated; given a derivative by registration (Swift's `@derivative(of:)`).
fn clip_gradient(x: f64) -> f64 {
    x
}

/// Identity in value, but the gradient passed back is clipped to [-1, 1]: a derivative
/// deliberately different from the function's own, so that its use is visible.
#[derivative(of = clip_gradient)]
fn clip_gradient_vjp(x: f64) -> (f64, impl FnOnce(f64) -> f64) {
    (clip_gradient(x), move |dy: f64| dy.clamp(-1.0, 1.0))
}

#[differentiable]
fn clipped_loss(x: f64) -> f64 {
    let y = clip_gradient(5.0 * x);
    y * y
}

/// sqrt with a derivative defined as 0 at 0 (instead of +inf).
fn safe_sqrt(x: f64) -> f64 {
    x.sqrt()
}

#[derivative(of = safe_sqrt)]
fn safe_sqrt_vjp(x: f64) -> (f64, impl FnOnce(f64) -> f64) {
    let y = x.sqrt();
    (y, move |dy| if y == 0.0 { 0.0 } else { dy * 0.5 / y })
}

#[differentiable]
fn radius(x: f64, y: f64) -> f64 {
    safe_sqrt(x * x + y * y)
}

/// Two parameters, registered in forward mode only; the pullback of the caller is
/// derived from it (scalar result).
fn weighted(a: f64, b: f64) -> f64 {
    a * b.exp()
}

#[derivative(of = weighted, jvp)]
fn weighted_jvp(a: f64, b: f64) -> (f64, impl FnOnce((f64, f64)) -> f64) {
    let e = b.exp();
    (a * e, move |(da, db)| da * e + db * a * e)
}

#[differentiable]
fn uses_weighted(x: f64) -> f64 {
    weighted(x, x * x) + x
}

#[test]
fn registered_derivatives_are_used_by_callers() {
    // (5x)^2 has derivative 50 x; with the clip the pullback sees 2 y = 10 x, clipped,
    // then times 5.
    for x in [-1.0, -0.05, 0.02, 0.3] {
        let (v, g) = value_with_gradient!(at: x, of: clipped_loss);
        assert_eq!(v, (5.0 * x) * (5.0 * x));
        let expect = 5.0 * (10.0 * x).clamp(-1.0, 1.0);
        assert_close(g, expect, 1e-15, "clipped gradient");
    }

    let (gx, gy) = gradient!(at: (3.0, 4.0), of: radius);
    assert_close(gx, 0.6, 1e-15, "radius dx");
    assert_close(gy, 0.8, 1e-15, "radius dy");
    let (gx, gy) = gradient!(at: (0.0, 0.0), of: radius);
    assert_eq!((gx, gy), (0.0, 0.0), "safe_sqrt at 0");

    for x in [-0.8, 0.4, 1.1] {
        let e = (x * x).exp();
        let expect = e + x * e * 2.0 * x + 1.0;
        assert_close(
            first_derivative!(at: x, of: uses_weighted),
            expect,
            1e-13,
            "jvp registration, forward",
        );
        assert_close(
            gradient!(at: x, of: uses_weighted),
            expect,
            1e-13,
            "jvp registration, derived reverse",
        );
    }
}

// ---------------------------------------------------------------------------------------
// Three kinds of registration used by one body, in a loop and a branch: a VJP of a free
// function, a JVP of a function of another module imported by name, and a VJP of a
// method of `f64` (`cbrt`); and a registration's precedence over the body once more.

mod used_together {
    use diff::prelude::*;

    fn h(x: f64) -> f64 {
        x.sin() * 3.0
    }

    #[derivative(of = h)]
    fn h_vjp(x: f64) -> (f64, impl FnOnce(f64) -> f64) {
        // Deliberately twice the true derivative, to prove the registration is used.
        (h(x), move |dy| dy * 2.0 * 3.0 * x.cos())
    }

    mod other {
        pub fn g(x: f64, y: f64) -> f64 {
            x * y
        }
    }
    use other::g;

    #[derivative(of = g, jvp)]
    fn g_jvp(x: f64, y: f64) -> (f64, impl FnOnce((f64, f64)) -> f64) {
        (g(x, y), move |(dx, dy)| 10.0 * (dx * y + x * dy))
    }

    #[derivative(of = f64::cbrt)]
    fn cbrt_vjp(x: f64) -> (f64, impl FnOnce(f64) -> f64) {
        let y = x.cbrt();
        (y, move |dy| 5.0 * dy / (3.0 * y * y))
    }

    #[differentiable]
    fn uses(x: f64) -> f64 {
        let mut acc = 0.0;
        for _ in 0..3 {
            if x > 0.0 {
                acc += h(x);
            } else {
                acc -= h(x);
            }
        }
        acc + g(x, 2.0) + x.cbrt()
    }

    #[test]
    fn registrations_are_used() {
        let x = 0.7;
        let g_rev = gradient!(at: x, of: uses);
        // h: 3 * 2 * 3cos; g: forward-only registration scaled by 10, derived pullback: 10*2; cbrt: 5x
        let expect = 3.0 * 2.0 * 3.0 * x.cos() + 20.0 + 5.0 / (3.0 * x.cbrt() * x.cbrt());
        assert_close!(g_rev, expect);
        // Forward mode: h's differential is derived from its pullback (scaled by 2), g's is
        // registered, and cbrt's comes from diff-std's exact rule (only its VJP is registered).
        let g_fwd = first_derivative!(at: x, of: uses);
        let expect_fwd = 3.0 * 2.0 * 3.0 * x.cos() + 20.0 + 1.0 / (3.0 * x.cbrt() * x.cbrt());
        assert_close!(g_fwd, expect_fwd);
        assert_eq!(gradient!(at: 1.0, of: h), 6.0 * 1f64.cos());
    }

    #[differentiable]
    fn only_cbrt(x: f64) -> f64 {
        x.cbrt()
    }

    #[test]
    fn one_registration_at_a_time() {
        let x = 0.7f64;
        let a = gradient!(at: x, of: only_cbrt);
        let b = first_derivative!(at: x, of: only_cbrt);
        let c = gradient!(at: x, of: |x| g(x, 2.0));
        let d = gradient!(at: x, of: |x| h(x));
        assert_close!(a, 5.0 / (3.0 * x.cbrt() * x.cbrt()));
        assert_close!(b, 1.0 / (3.0 * x.cbrt() * x.cbrt()));
        assert_eq!(c, 20.0);
        assert_close!(d, 6.0 * x.cos());
    }

    #[differentiable]
    fn softplus(x: f64) -> f64 {
        (1.0 + x.exp()).ln()
    }

    #[derivative(of = softplus)]
    fn softplus_vjp(x: f64) -> (f64, impl FnOnce(f64) -> f64) {
        // Numerically stable: sigmoid(x), scaled by 3 to prove the registration wins.
        let s = 1.0 / (1.0 + (-x).exp());
        (softplus(x), move |dy| 3.0 * dy * s)
    }

    #[test]
    fn registration_takes_precedence_over_the_body() {
        let x = 0.4f64;
        let s = 1.0 / (1.0 + (-x).exp());
        assert_close!(gradient!(at: x, of: softplus), 3.0 * s);
        assert_close!(gradient!(at: x, of: |x| 2.0 * softplus(x)), 6.0 * s);
    }
}

// ---------------------------------------------------------------------------------------
// The README's registration example, as written there: a registration in another module,
// brought in with a glob import, is the one used.

mod readme_example {
    mod regs {
        use diff::prelude::*;
        pub fn softplus(x: f64) -> f64 {
            (1.0 + x.exp()).ln()
        }
        #[derivative(of = softplus)]
        pub fn softplus_vjp(x: f64) -> (f64, impl FnOnce(f64) -> f64) {
            let s = 1.0 / (1.0 + (-x).exp()); // stable for large |x|
            (softplus(x), move |dy| dy * s)
        }
    }
    use diff::prelude::*;
    use regs::*;

    #[differentiable]
    fn loss(x: f64) -> f64 {
        softplus(x) * 2.0
    }

    #[test]
    fn readme_registration_example() {
        for x in [-3.0f64, 0.0, 2.5, 800.0] {
            let s = 1.0 / (1.0 + (-x).exp());
            assert_close!(gradient!(at: x, of: loss), 2.0 * s);
            assert_close!(first_derivative!(at: x, of: loss), 2.0 * s);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Parameters named like the locals of the generated companions (`value`, `seed`,
// `pullback`): a companion never reads a parameter through a local of the same name.

fn scaled_square(value: f64, seed: f64) -> f64 {
    value * seed * seed
}

#[derivative(of = scaled_square, jvp)]
fn scaled_square_jvp(value: f64, seed: f64) -> (f64, impl FnOnce((f64, f64)) -> f64) {
    // (seed², 2 value seed), scaled by (2, 3).
    (scaled_square(value, seed), move |(dv, ds)| {
        2.0 * dv * seed * seed + 3.0 * ds * 2.0 * value * seed
    })
}

fn product(pullback: f64, unit: f64) -> f64 {
    pullback * unit
}

#[derivative(of = product)]
fn product_vjp(pullback: f64, unit: f64) -> (f64, impl FnOnce(f64) -> (f64, f64)) {
    // (unit, pullback), scaled by (5, 7).
    (product(pullback, unit), move |dy| {
        (5.0 * dy * unit, 7.0 * dy * pullback)
    })
}

#[test]
fn parameters_named_like_generated_locals() {
    let (v, s) = (3.0, 0.5);
    // Reverse mode derived from the JVP registration.
    let (gv, gs) = gradient!(at: (v, s), of: scaled_square);
    assert_close!(gv, 2.0 * s * s);
    assert_close!(gs, 3.0 * 2.0 * v * s);
    // Forward mode derived from the VJP registration.
    let df = differential!(at: (v, s), of: product);
    assert_close!(df((1.0, 0.0)), 5.0 * s);
    let df = differential!(at: (v, s), of: product);
    assert_close!(df((0.0, 1.0)), 7.0 * v);
}

/// Counts the runs of `mean_sq_vjp`: a registration whose pullback borrows runs twice.
static MEAN_SQ_RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn mean_sq(v: &[f64], w: f64) -> f64 {
    w * v.iter().map(|x| x * x).sum::<f64>() / v.len() as f64
}

/// A pullback borrowing its arguments, as it says (`+ '_`).
#[derivative(of = mean_sq)]
fn mean_sq_vjp(v: &[f64], w: f64) -> (f64, impl FnOnce(f64) -> (Vec<f64>, f64) + '_) {
    MEAN_SQ_RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let n = v.len() as f64;
    (mean_sq(v, w), move |dy| {
        let dv = v.iter().map(|x| dy * w * 2.0 * x / n).collect();
        (dv, dy * mean_sq(v, 1.0))
    })
}

#[differentiable]
fn uses_mean_sq(v: &[f64], w: f64) -> f64 {
    mean_sq(v, w).sqrt()
}

#[test]
fn a_registration_whose_pullback_borrows_the_arguments() {
    let v = vec![1.0, -2.0, 2.0];
    let w = 0.5;
    let before = MEAN_SQ_RUNS.load(std::sync::atomic::Ordering::Relaxed);
    let (value, (gv, gw)) = value_with_gradient!(at: (&v[..], w), of: uses_mean_sq);
    let runs = MEAN_SQ_RUNS.load(std::sync::atomic::Ordering::Relaxed) - before;
    // Once for the value, once when the pullback runs (tests run in parallel: at least).
    assert!(runs >= 2, "{runs}");
    let m = mean_sq(&v, w);
    assert_close(value, m.sqrt(), 1e-15, "value");
    assert_close(gw, mean_sq(&v, 1.0) / (2.0 * m.sqrt()), 1e-14, "d w");
    for (i, g) in gv.iter().enumerate() {
        let want = w * 2.0 * v[i] / 3.0 / (2.0 * m.sqrt());
        assert_close(*g, want, 1e-14, "d v");
    }
}

/// Registrations whose other mode does not follow (a vector result for a VJP, a vector
/// input for a JVP), called from differentiable functions, public ones included: the
/// callers compile and run in the registered mode (using the other mode is a compile
/// error at the operator, tests/ui/registration_missing_mode_in_a_caller.rs).
pub mod one_mode_only {
    use diff::prelude::*;

    fn squares(x: &[f64]) -> Vec<f64> {
        x.iter().map(|v| v * v).collect()
    }

    #[derivative(of = squares)]
    fn squares_vjp(x: &[f64]) -> (Vec<f64>, impl FnOnce(Vec<f64>) -> Vec<f64> + '_) {
        (squares(x), move |dy: Vec<f64>| {
            dy.iter().zip(x).map(|(d, v)| 2.0 * d * v).collect()
        })
    }

    /// `sum(x_i^2 * w_i)`.
    #[differentiable]
    pub fn weighted(x: &[f64], w: f64) -> f64 {
        let s = squares(x);
        w * s[0] + s[1] / w
    }

    fn norm2(v: Vec<f64>) -> f64 {
        v.iter().map(|x| x * x).sum()
    }

    #[derivative(of = norm2, jvp)]
    fn norm2_jvp(v: Vec<f64>) -> (f64, impl FnOnce(Vec<f64>) -> f64) {
        let y = norm2(v.clone());
        (y, move |dv: Vec<f64>| {
            v.iter().zip(&dv).map(|(x, d)| 2.0 * x * d).sum()
        })
    }

    #[differentiable]
    pub fn scaled_norm(t: f64) -> f64 {
        norm2(vec![t, 3.0 * t]) * t
    }
}

#[test]
fn registrations_of_one_mode_in_callers_that_use_that_mode() {
    use one_mode_only::*;
    let x = [1.5, -2.0];
    let (value, (gx, gw)) = value_with_gradient!(at: (&x[..], 2.0), of: weighted);
    assert_close(value, 2.0 * 2.25 + 4.0 / 2.0, 1e-15, "value");
    assert_close(gx[0], 2.0 * 2.0 * 1.5, 1e-14, "d x0");
    assert_close(gx[1], 2.0 * -2.0 / 2.0, 1e-14, "d x1");
    assert_close(gw, 2.25 - 4.0 / 4.0, 1e-14, "d w");
    // 10 t^3: 30 t^2.
    let (value, slope) = value_with_derivative!(at: 0.5, of: scaled_norm);
    assert_close(value, 10.0 * 0.125, 1e-15, "value");
    assert_close(slope, 30.0 * 0.25, 1e-14, "slope");
}
