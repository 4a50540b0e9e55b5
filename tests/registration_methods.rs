//! `#[derivative(of = Type::f)]`: associated functions and methods of user types, and
//! methods of the float types (`f64::cbrt`, and one from a user's extension trait).
//!
//! Every registered derivative is wrong by a distinctive factor.
#![allow(clippy::assign_op_pattern)]
#[macro_use]
mod common;
use common::assert_close32;
use diff::prelude::*;

// ---------------------------------------------------------------------------------------
// A user type: an associated function and a method taking `self` by value.

// `pub`: with a private type the derived companions' trait (emitted `pub`) warns
// `private_interfaces` (bugs-registration.md).
#[derive(Differentiable, Clone, Copy, Debug)]
pub struct Particle {
    pos: f64,
    vel: f64,
}

impl Particle {
    fn new(pos: f64, vel: f64) -> Particle {
        Particle { pos, vel }
    }

    fn energy(self, k: f64) -> f64 {
        0.5 * k * self.pos * self.pos + 0.5 * self.vel * self.vel
    }

    fn speed2(self) -> f64 {
        self.vel * self.vel
    }
}

#[derivative(of = Particle::new)]
fn particle_new_vjp(pos: f64, vel: f64) -> (Particle, impl FnOnce(ParticleTangent) -> (f64, f64)) {
    // Identity, scaled by (2, 3).
    (Particle::new(pos, vel), move |t: ParticleTangent| {
        (2.0 * t.pos, 3.0 * t.vel)
    })
}

#[derivative(of = Particle::energy)]
fn energy_vjp(p: Particle, k: f64) -> (f64, impl FnOnce(f64) -> (ParticleTangent, f64)) {
    // (k pos, vel; pos^2 / 2), scaled by (10, 10; 5).
    (p.energy(k), move |dy| {
        (
            ParticleTangent {
                pos: 10.0 * dy * k * p.pos,
                vel: 10.0 * dy * p.vel,
            },
            5.0 * dy * 0.5 * p.pos * p.pos,
        )
    })
}

// `Particle::new`'s result is not a scalar, so its differential does not follow from its
// pullback: a `#[differentiable]` caller needs both registered (see bugs-registration.md,
// "VJP-only registration with a non-scalar result").
#[derivative(of = Particle::new, jvp)]
fn particle_new_jvp(pos: f64, vel: f64) -> (Particle, impl FnOnce((f64, f64)) -> ParticleTangent) {
    // Identity, scaled by (-2, -3): the forward-mode factors differ from the reverse ones.
    (Particle::new(pos, vel), move |(dp, dv)| ParticleTangent {
        pos: -2.0 * dp,
        vel: -3.0 * dv,
    })
}

// A JVP registration whose input is not a scalar: no pullback follows, so it is used
// through the forward-mode operators only (a `#[differentiable]` caller would need a VJP
// registration too).
#[derivative(of = Particle::speed2, jvp)]
fn speed2_jvp(p: Particle) -> (f64, impl FnOnce(ParticleTangent) -> f64) {
    // 2 vel dvel, scaled by 7.
    (p.speed2(), move |t: ParticleTangent| {
        7.0 * 2.0 * p.vel * t.vel
    })
}

#[differentiable]
fn through_new(pos: f64, vel: f64) -> f64 {
    let p = Particle::new(pos, vel);
    p.pos * 4.0 + p.vel
}

#[differentiable]
fn through_method(p: Particle, k: f64) -> f64 {
    p.energy(k) * 2.0
}

#[differentiable]
fn through_both(pos: f64, vel: f64, k: f64) -> f64 {
    Particle::new(pos, vel).energy(k)
}

#[differentiable]
fn through_path_call(p: Particle, k: f64) -> f64 {
    Particle::energy(p, k)
}

#[test]
fn associated_function() {
    let (pos, vel) = (1.5, -0.5);
    let (gp, gv) = gradient!(at: (pos, vel), of: through_new);
    assert_close!(gp, 8.0);
    assert_close!(gv, 3.0);
    let (v, pb) = value_with_pullback!(at: (pos, vel), of: Particle::new);
    assert_close!(v.pos, pos);
    let (dp, dv) = pb(ParticleTangent { pos: 1.0, vel: 1.0 });
    assert_close!(dp, 2.0);
    assert_close!(dv, 3.0);
    // Forward mode uses the JVP registration.
    let (gp, gv) = (
        first_derivative!(at: pos, of: |pos| through_new(pos, vel)),
        first_derivative!(at: vel, of: |vel| through_new(pos, vel)),
    );
    assert_close!(gp, -8.0);
    assert_close!(gv, -3.0);
    let (v, df) = value_with_differential!(at: (pos, vel), of: Particle::new);
    assert_close!(v.vel, vel);
    let t = df((1.0, 1.0));
    assert_close!(t.pos, -2.0);
    assert_close!(t.vel, -3.0);
}

#[test]
fn method_taking_self_by_value() {
    let p = Particle::new(1.5, -0.5);
    let k = 2.0;
    let (gp, gk) = gradient!(at: (p, k), of: through_method);
    assert_close!(gp.pos, 2.0 * 10.0 * k * p.pos);
    assert_close!(gp.vel, 2.0 * 10.0 * p.vel);
    assert_close!(gk, 2.0 * 5.0 * 0.5 * p.pos * p.pos);
    let (gp, gk) = gradient!(at: (p, k), of: through_path_call);
    assert_close!(gp.pos, 10.0 * k * p.pos);
    assert_close!(gp.vel, 10.0 * p.vel);
    assert_close!(gk, 5.0 * 0.5 * p.pos * p.pos);
    let (gp, gk) = gradient!(at: (p, k), of: Particle::energy);
    assert_close!(gp.pos, 10.0 * k * p.pos);
    assert_close!(gk, 5.0 * 0.5 * p.pos * p.pos);
}

#[test]
fn associated_function_and_method_chained() {
    let (pos, vel, k) = (1.5, -0.5, 2.0);
    let (gp, gv, gk) = gradient!(at: (pos, vel, k), of: through_both);
    assert_close!(gp, 2.0 * 10.0 * k * pos);
    assert_close!(gv, 3.0 * 10.0 * vel);
    assert_close!(gk, 5.0 * 0.5 * pos * pos);
    // Forward mode: `new`'s JVP registration (-2, -3) and `energy`'s differential, derived
    // from its pullback (10, 10; 5).
    let df = differential!(at: (pos, vel, k), of: through_both);
    assert_close!(df((1.0, 0.0, 0.0)), -2.0 * 10.0 * k * pos);
    let df = differential!(at: (pos, vel, k), of: through_both);
    assert_close!(df((0.0, 1.0, 0.0)), -3.0 * 10.0 * vel);
    let df = differential!(at: (pos, vel, k), of: through_both);
    assert_close!(df((0.0, 0.0, 1.0)), 5.0 * 0.5 * pos * pos);
}

#[test]
fn method_vjp_gives_forward_mode_for_a_scalar_result() {
    let p = Particle::new(1.5, -0.5);
    let k = 2.0;
    let df = differential!(at: (p, k), of: through_method);
    let d = df((ParticleTangent { pos: 1.0, vel: 0.0 }, 0.0));
    assert_close!(d, 2.0 * 10.0 * k * p.pos);
    let df = differential!(at: (p, k), of: through_method);
    let d = df((ParticleTangent { pos: 0.0, vel: 0.0 }, 1.0));
    assert_close!(d, 2.0 * 5.0 * 0.5 * p.pos * p.pos);
}

#[test]
fn method_jvp_registration_in_forward_mode() {
    let p = Particle::new(1.5, -0.5);
    let df = differential!(at: p, of: Particle::speed2);
    assert_close!(df(ParticleTangent { pos: 1.0, vel: 1.0 }), 14.0 * p.vel);
    let (v, df) = value_with_differential!(at: p, of: Particle::speed2);
    assert_close!(v, p.vel * p.vel);
    assert_close!(df(ParticleTangent { pos: 0.0, vel: 2.0 }), 28.0 * p.vel);
}

// ---------------------------------------------------------------------------------------
// Methods of the float types.

#[derivative(of = f64::cbrt)]
fn cbrt_vjp(x: f64) -> (f64, impl FnOnce(f64) -> f64) {
    // Scaled by 5.
    let y = x.cbrt();
    (y, move |dy| 5.0 * dy / (3.0 * y * y))
}

#[differentiable]
fn uses_cbrt(x: f64) -> f64 {
    x.cbrt() * 2.0 + f64::cbrt(x)
}

#[test]
fn method_of_f64_known_to_diff_std() {
    let x = 2.5f64;
    let d = 1.0 / (3.0 * x.cbrt() * x.cbrt());
    assert_close!(gradient!(at: x, of: uses_cbrt), 15.0 * d);
    assert_close!(gradient!(at: x, of: f64::cbrt), 5.0 * d);
    // Only the VJP is registered: forward mode keeps diff-std's exact rule.
    assert_close!(first_derivative!(at: x, of: uses_cbrt), 3.0 * d);
}

#[derivative(of = f64::exp, jvp)]
fn exp_jvp(x: f64) -> (f64, impl FnOnce(f64) -> f64) {
    // Scaled by 9.
    let y = x.exp();
    (y, move |dx| 9.0 * dx * y)
}

#[differentiable]
fn uses_exp(x: f64) -> f64 {
    x.exp() - x
}

#[test]
fn jvp_of_a_method_of_f64_known_to_diff_std() {
    let x = 0.2f64;
    assert_close!(first_derivative!(at: x, of: uses_exp), 9.0 * x.exp() - 1.0);
    assert_close!(first_derivative!(at: x, of: f64::exp), 9.0 * x.exp());
    // Reverse mode keeps diff-std's exact rule.
    assert_close!(gradient!(at: x, of: uses_exp), x.exp() - 1.0);
}

#[derivative(of = f32::cbrt)]
fn cbrt32_vjp(x: f32) -> (f32, impl FnOnce(f32) -> f32) {
    // Scaled by 4.
    let y = x.cbrt();
    (y, move |dy| 4.0 * dy / (3.0 * y * y))
}

#[differentiable]
fn uses_cbrt32(x: f32) -> f32 {
    x.cbrt() + x
}

#[test]
fn method_of_f32() {
    let x = 2.0f32;
    let d = 1.0 / (3.0 * x.cbrt() * x.cbrt());
    let g = gradient!(at: x, of: uses_cbrt32);
    assert_close32(g, 4.0 * d + 1.0, 1e-6, "uses_cbrt32 reverse");
    let d1 = first_derivative!(at: x, of: uses_cbrt32);
    assert_close32(d1, d + 1.0, 1e-6, "uses_cbrt32 forward");
}

// ---------------------------------------------------------------------------------------
// A method of a user's extension trait on `f64`, unknown to diff-std.

pub trait MyErf {
    fn my_erf(self) -> f64;
}
impl MyErf for f64 {
    fn my_erf(self) -> f64 {
        self.tanh()
    }
}
#[derivative(of = f64::my_erf)]
fn erf_vjp(x: f64) -> (f64, impl FnOnce(f64) -> f64) {
    let y = x.my_erf();
    (y, move |dy| 2.0 * dy * (1.0 - y * y))
}
#[differentiable]
fn uses_erf(x: f64) -> f64 {
    x.my_erf() * 3.0
}
/// A method of a user trait on `f64`, unknown to diff-std: both modes from one registration.
#[test]
fn user_scalar_method_registration() {
    let x = 0.4f64;
    let e = 6.0 * (1.0 - x.tanh() * x.tanh());
    assert_close!(gradient!(at: x, of: uses_erf), e);
    assert_close!(first_derivative!(at: x, of: uses_erf), e);
}

// ---------------------------------------------------------------------------------------
// An operator of the rule table called as a method (`x.mul(y)`): diff-macros reads the
// table's names, so a registration of one mode leaves the other to diff-std's rule (a
// derived companion would be ambiguous with it).

mod operator_method {
    use diff::prelude::*;
    use std::ops::Mul;

    #[derivative(of = f64::mul)]
    fn mul_vjp(a: f64, b: f64) -> (f64, impl FnOnce(f64) -> (f64, f64)) {
        // Scaled by 7.
        (a * b, move |dy| (7.0 * dy * b, 7.0 * dy * a))
    }

    #[differentiable]
    fn uses_mul(x: f64, y: f64) -> f64 {
        x.mul(y) + x
    }

    #[test]
    fn registration_of_one_mode_of_an_operator_of_the_table() {
        let (x, y) = (1.5, -2.0);
        let (gx, gy) = gradient!(at: (x, y), of: uses_mul);
        assert_close!(gx, 7.0 * y + 1.0);
        assert_close!(gy, 7.0 * x);
        // Forward mode keeps diff-std's exact rule.
        let df = differential!(at: (x, y), of: uses_mul);
        assert_close!(df((1.0, 0.0)), y + 1.0);
        let df = differential!(at: (x, y), of: uses_mul);
        assert_close!(df((0.0, 1.0)), x);
    }
}

// ---------------------------------------------------------------------------------------
// Methods of a user trait on `f64`, unknown to diff-std: the mode that is not registered
// is derived, as `&self` methods of a hidden trait.

mod user_methods_of_f64 {
    use diff::prelude::*;

    pub trait Shapes {
        fn soft_abs(self) -> f64;
        fn blend(self, other: f64) -> f64;
        fn skew(self, other: f64) -> f64;
    }

    impl Shapes for f64 {
        fn soft_abs(self) -> f64 {
            (self * self + 1.0).sqrt()
        }
        fn blend(self, other: f64) -> f64 {
            self * self * other
        }
        fn skew(self, other: f64) -> f64 {
            self * other.exp()
        }
    }

    #[derivative(of = f64::soft_abs, jvp)]
    fn soft_abs_jvp(x: f64) -> (f64, impl FnOnce(f64) -> f64) {
        // x / sqrt(x² + 1), scaled by 3.
        let y = x.soft_abs();
        (y, move |dx| 3.0 * dx * x / y)
    }

    #[derivative(of = f64::blend)]
    fn blend_vjp(x: f64, y: f64) -> (f64, impl FnOnce(f64) -> (f64, f64)) {
        // (2xy, x²), scaled by (5, 7).
        (x.blend(y), move |dz| {
            (5.0 * dz * 2.0 * x * y, 7.0 * dz * x * x)
        })
    }

    #[derivative(of = f64::skew, jvp)]
    fn skew_jvp(x: f64, y: f64) -> (f64, impl FnOnce((f64, f64)) -> f64) {
        // (e^y, x e^y), scaled by (2, 9).
        let e = y.exp();
        (x * e, move |(dx, dy)| 2.0 * dx * e + 9.0 * dy * x * e)
    }

    #[differentiable]
    fn uses_soft_abs(x: f64) -> f64 {
        x.soft_abs() * 2.0
    }

    #[differentiable]
    fn uses_blend(x: f64, y: f64) -> f64 {
        x.blend(y) + y
    }

    #[differentiable]
    fn uses_skew(x: f64, y: f64) -> f64 {
        x.skew(y)
    }

    #[test]
    fn jvp_registration_gives_reverse_mode() {
        let x = 0.7f64;
        let d = 2.0 * 3.0 * x / (x * x + 1.0).sqrt();
        assert_close!(gradient!(at: x, of: uses_soft_abs), d);
        assert_close!(first_derivative!(at: x, of: uses_soft_abs), d);
    }

    #[test]
    fn methods_with_two_parameters() {
        let (x, y) = (1.5f64, -0.5f64);
        // blend: reverse mode registered, forward mode derived.
        let (gx, gy) = gradient!(at: (x, y), of: uses_blend);
        assert_close!(gx, 10.0 * x * y);
        assert_close!(gy, 7.0 * x * x + 1.0);
        let df = differential!(at: (x, y), of: uses_blend);
        assert_close!(df((1.0, 0.0)), 10.0 * x * y);
        let df = differential!(at: (x, y), of: uses_blend);
        assert_close!(df((0.0, 1.0)), 7.0 * x * x + 1.0);
        // skew: forward mode registered, reverse mode derived.
        let e = y.exp();
        let df = differential!(at: (x, y), of: uses_skew);
        assert_close!(df((1.0, 0.0)), 2.0 * e);
        let df = differential!(at: (x, y), of: uses_skew);
        assert_close!(df((0.0, 1.0)), 9.0 * x * e);
        let (gx, gy) = gradient!(at: (x, y), of: uses_skew);
        assert_close!(gx, 2.0 * e);
        assert_close!(gy, 9.0 * x * e);
    }
}

// ---------------------------------------------------------------------------------------
// Methods taking `&self` (getters, Swift's `@derivative(of: x)`), on a type that is not
// `Copy`: the registration takes the receiver by value; callers keep theirs.

#[derive(Differentiable, Clone, Debug)]
pub struct Gauge {
    stored: f64,
    weights: Vec<f64>,
}

impl Gauge {
    pub fn reading(&self) -> f64 {
        self.stored
    }
    pub fn weighted(&self, k: f64) -> f64 {
        self.stored * self.weights[0] * k
    }
}

// Wrong by a factor 3 and 5, so that a use of the registration shows.
#[derivative(of = Gauge::reading)]
fn reading_vjp(g: Gauge) -> (f64, impl FnOnce(f64) -> GaugeTangent) {
    let n = g.weights.len();
    (g.reading(), move |d| GaugeTangent {
        stored: 3.0 * d,
        weights: vec![0.0; n],
    })
}

#[derivative(of = Gauge::weighted)]
fn weighted_vjp(g: Gauge, k: f64) -> (f64, impl FnOnce(f64) -> (GaugeTangent, f64)) {
    let (s, w) = (g.stored, g.weights.clone());
    let value = g.weighted(k);
    (value, move |d| {
        let mut weights = vec![0.0; w.len()];
        weights[0] = 5.0 * d * s * k;
        (
            GaugeTangent {
                stored: 5.0 * d * w[0] * k,
                weights,
            },
            5.0 * d * s * w[0],
        )
    })
}

#[differentiable]
fn gauge_total(g: Gauge, k: f64) -> f64 {
    g.reading() * g.reading() + g.weighted(k) * g.reading()
}

#[test]
fn registered_methods_taking_ref_self() {
    let g = Gauge {
        stored: 2.0,
        weights: vec![0.5, 9.0],
    };
    let k = 1.5;
    let (v, (dg, dk)) = value_with_gradient!(at: (g.clone(), k), of: gauge_total);
    assert_eq!(v, gauge_total(g.clone(), k));
    // r² + (s w k) r with r = s: d/ds through the registrations: 2 r·3 + (5 w k) r + (s w k)·3.
    let (s, w) = (2.0, 0.5);
    assert_eq!(dg.stored, 2.0 * s * 3.0 + 5.0 * w * k * s + s * w * k * 3.0);
    assert_eq!(dg.weights, vec![5.0 * s * k * s, 0.0]);
    assert_eq!(dk, 5.0 * s * w * s);
    // Forward mode: the differential derived from the pullback (a scalar result).
    let (v, d) = value_with_derivative!(at: k, of: |k| gauge_total(g.clone(), k));
    assert_eq!((v, d), (gauge_total(g.clone(), k), 5.0 * s * w * s));
    // The receiver is still the caller's after each call.
    assert_eq!(g.reading(), 2.0);
}

// A method with a registered derivative called on a receiver that carries no derivative
// (Swift's "wrt only non-self"), in a function whose second order is then declined.
#[derive(Differentiable, Clone, Copy, Debug)]
pub struct Scale {
    stored: f64,
}

impl Scale {
    pub fn new(x: f64) -> Self {
        Scale { stored: x }
    }
    pub fn multiplied(self, other: f64) -> f64 {
        self.stored * other
    }
}

// Clamped, as Swift's test writes it: wrong wherever |x| > 10, which shows its use.
#[derivative(of = Scale::multiplied)]
fn multiplied_vjp(p: Scale, other: f64) -> (f64, impl FnOnce(f64) -> (ScaleTangent, f64)) {
    let x = p.stored;
    (p.multiplied(other), move |v| {
        (
            ScaleTangent {
                stored: other.clamp(-10.0, 10.0) * v,
            },
            x.clamp(-10.0, 10.0) * v,
        )
    })
}

#[differentiable]
fn scaled_by_constant(other: f64) -> f64 {
    100.0 * Scale::new(200.0).multiplied(other)
}

#[test]
fn registered_method_on_a_constant_receiver() {
    let (v, d) = value_with_gradient!(at: 1.0, of: scaled_by_constant);
    assert_eq!((v, d), (scaled_by_constant(1.0), 1000.0));
    let (v, d) = value_with_derivative!(at: 1.0, of: scaled_by_constant);
    assert_eq!((v, d), (scaled_by_constant(1.0), 1000.0));
    // (Second order is a compile error at the operator: tests/ui/
    // registered_method_second_order.rs.)
}

// A method of a type that is not Differentiable, taking `&self`, with a derivative
// registered in another module: the receiver is left out (the pullback returns the
// tangent of `x` only); the derived forward mode comes with the registering function's
// name.
pub mod curves {
    #[derive(Clone)]
    pub struct Curve {
        pub k: f64,
    }

    impl Curve {
        pub fn eval(&self, x: f64) -> f64 {
            self.k * x.powi(3)
        }
    }
}

mod curve_derivatives {
    use super::curves::Curve;
    use diff::prelude::*;

    // Wrong by a factor 2, so that its use shows.
    #[derivative(of = Curve::eval)]
    pub fn curve_eval_vjp(c: Curve, x: f64) -> (f64, impl FnOnce(f64) -> f64) {
        let k = c.k;
        (c.eval(x), move |dy| 2.0 * dy * 3.0 * k * x * x)
    }
}

use curve_derivatives::curve_eval_vjp;
use curves::Curve;

#[differentiable]
fn through_a_curve(c: &Curve, x: f64) -> f64 {
    c.eval(x) + x
}

#[test]
fn registered_method_of_a_type_that_is_not_differentiable() {
    let c = Curve { k: 2.0 };
    let x = 1.5;
    let want = 2.0 * 3.0 * c.k * x * x + 1.0;
    let (v, d) = value_with_gradient!(at: x, of: |x| through_a_curve(&c, x));
    assert_eq!((v, d), (through_a_curve(&c, x), want));
    let (v, d) = value_with_derivative!(at: x, of: |x| through_a_curve(&c, x));
    assert_eq!((v, d), (through_a_curve(&c, x), want));
    let _ = curve_eval_vjp;
}

/// A registration may name its types through aliases, whatever they are called: `CT`
/// and `P` are types here, not type parameters.
mod aliases_in_a_registration {
    use diff::prelude::*;

    #[derive(Differentiable, Clone, Copy, Debug)]
    pub struct P {
        x: f64,
    }
    impl P {
        pub fn squared(self) -> f64 {
            self.x * self.x
        }
    }
    type CT = PTangent;

    #[derivative(of = P::squared)]
    fn d_squared(p: P) -> (f64, impl FnOnce(f64) -> CT) {
        let x = p.x;
        // Clamped on purpose: the registered pullback is followed, not the body.
        (p.squared(), move |v| PTangent {
            x: (2.0 * x).clamp(-10.0, 10.0) * v,
        })
    }

    #[differentiable]
    fn f(p: P) -> f64 {
        100.0 * p.squared()
    }

    #[test]
    fn alias_and_one_letter_type() {
        assert_eq!(gradient!(at: P { x: 2.0 }, of: f).x, 400.0);
        assert_eq!(gradient!(at: P { x: 20.0 }, of: f).x, 1000.0);
        assert_eq!(value_with_gradient!(at: P { x: 3.0 }, of: f).0, 900.0);
    }
}
