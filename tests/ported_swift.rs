//! Cases in the style of Swift's differentiation tests (test/AutoDiff): methods on
//! structs taking `&self`, `self` and `&mut self` (Swift's `inout`), `&mut` parameters,
//! `wrt` (Swift's `@differentiable(wrt:)`), registered derivatives used by callers
//! (`@derivative(of:)`), and generic functions over `T: Float` instantiated with `f32`
//! and `f64`. Every derivative is checked against a closed form or finite differences.
#![allow(clippy::assign_op_pattern, clippy::needless_range_loop)]

use diff::prelude::*;

fn fd(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    let h = 1e-3 * x.abs().max(1.0);
    (-f(x + 2.0 * h) + 8.0 * f(x + h) - 8.0 * f(x - h) + f(x - 2.0 * h)) / (12.0 * h)
}

#[track_caller]
fn close(a: f64, b: f64, tol: f64, what: &str) {
    let scale = a.abs().max(b.abs()).max(1.0);
    assert!(
        (a - b).abs() <= tol * scale,
        "{what}: got {a}, expected {b} (tol {tol})"
    );
}

#[track_caller]
fn close32(a: f32, b: f32, tol: f32, what: &str) {
    let scale = a.abs().max(b.abs()).max(1.0);
    assert!(
        (a - b).abs() <= tol * scale,
        "{what}: got {a}, expected {b} (tol {tol})"
    );
}

// ------------------------------------------------------------------ methods on structs

#[derive(Differentiable, Clone, Debug, PartialEq)]
struct Particle {
    pos: f64,
    vel: f64,
    mass: f64,
    #[no_derivative]
    id: u32,
}

impl Particle {
    #[differentiable]
    fn kinetic(&self) -> f64 {
        0.5 * self.mass * self.vel * self.vel
    }

    /// Calls another method through `self`.
    #[differentiable]
    fn energy(&self, k: f64) -> f64 {
        self.kinetic() + 0.5 * k * self.pos * self.pos
    }

    /// By value, returning a struct.
    #[differentiable]
    fn scaled(self, s: f64) -> Particle {
        Particle {
            pos: self.pos * s,
            vel: self.vel * s,
            ..self
        }
    }
}

#[derive(Differentiable, Clone, Copy, Debug)]
struct Spring {
    pos: f64,
    vel: f64,
    mass: f64,
}

impl Spring {
    /// Swift's `mutating func`: one step of symplectic Euler for a spring.
    #[differentiable]
    fn step(&mut self, dt: f64, k: f64) {
        self.vel -= dt * k * self.pos / self.mass;
        self.pos += dt * self.vel;
    }

    #[differentiable]
    fn energy(&self, k: f64) -> f64 {
        0.5 * self.mass * self.vel * self.vel + 0.5 * k * self.pos * self.pos
    }
}

#[test]
fn self_method_gradient_is_a_tangent_struct() {
    let p = Particle {
        pos: 0.7,
        vel: -1.3,
        mass: 2.5,
        id: 9,
    };
    let k = 3.0;
    let (v, (dp, dk)) = value_with_gradient!(at: (&p, k), of: Particle::energy);
    assert_eq!(v, p.energy(k));
    close(dp.pos, k * p.pos, 1e-15, "dE/dpos");
    close(dp.vel, p.mass * p.vel, 1e-15, "dE/dvel");
    close(dp.mass, 0.5 * p.vel * p.vel, 1e-15, "dE/dmass");
    close(dk, 0.5 * p.pos * p.pos, 1e-15, "dE/dk");

    let t: ParticleTangent = gradient!(at: &p, of: Particle::kinetic);
    close(t.pos, 0.0, 0.0, "dK/dpos");
    close(t.vel, p.mass * p.vel, 1e-15, "dK/dvel");

    // The tangent struct can be built by a literal and used as a differential input.
    let df = differential!(at: (&p, k), of: Particle::energy);
    let dir = ParticleTangent {
        pos: 1.0,
        vel: 0.5,
        mass: -2.0,
    };
    let expect = dp.pos * dir.pos + dp.vel * dir.vel + dp.mass * dir.mass + dk * 0.25;
    close(df((dir, 0.25)), expect, 1e-14, "energy differential");
}

#[test]
fn consuming_method_returning_a_struct() {
    let p = Particle {
        pos: 0.7,
        vel: -1.3,
        mass: 2.5,
        id: 4,
    };
    let s = 1.5;
    let (q, pb) = value_with_pullback!(at: (p.clone(), s), of: Particle::scaled);
    assert_eq!(q, p.clone().scaled(s));
    assert_eq!(q.id, 4);
    let (tp, ts) = pb(ParticleTangent {
        pos: 1.0,
        vel: 2.0,
        mass: 3.0,
    });
    close(tp.pos, s, 1e-15, "scaled dpos");
    close(tp.vel, 2.0 * s, 1e-15, "scaled dvel");
    close(tp.mass, 3.0, 1e-15, "scaled dmass (passed through ..self)");
    close(ts, p.pos + 2.0 * p.vel, 1e-15, "scaled ds");
}

/// Swift's inout test: a mutating method called in a loop from a differentiable body.
#[differentiable]
fn spring_energy_after(p0: f64, k: f64) -> f64 {
    let mut p = Spring {
        pos: p0,
        vel: 0.0,
        mass: 2.0,
    };
    for _ in 0..5 {
        // `p.step(0.1, k)` drops the mutation from the derivative, and the path form
        // needs a `Copy` struct here (bugs-ported.md, P4 and P5).
        Spring::step(&mut p, 0.1, k);
    }
    p.energy(k)
}

#[test]
fn mutating_method_in_a_loop() {
    for (p0, k) in [(1.0, 3.0), (-0.4, 0.5)] {
        let (v, (gp, gk)) = value_with_gradient!(at: (p0, k), of: spring_energy_after);
        assert_eq!(v, spring_energy_after(p0, k));
        close(gp, fd(|x| spring_energy_after(x, k), p0), 1e-9, "d/dp0");
        close(gk, fd(|x| spring_energy_after(p0, x), k), 1e-9, "d/dk");
        // Energy is quadratic in p0 for fixed k (the dynamics are linear).
        close(gp, 2.0 * v / p0, 1e-12, "homogeneity");
        let d = first_derivative!(at: p0, of: |x| spring_energy_after(x, k));
        close(d, gp, 1e-13, "fwd vs rev");
    }
}

// ------------------------------------------------------------------ &mut parameters

#[differentiable]
fn square_in_place(x: &mut f64) {
    *x = *x * *x;
}

#[differentiable]
fn accumulate(acc: &mut f64, v: f64) {
    *acc += v * v;
}

#[differentiable]
fn fourth_power(x: f64) -> f64 {
    let mut y = x;
    square_in_place(&mut y);
    square_in_place(&mut y);
    y
}

#[differentiable]
fn sum_of_squares_inout(a: f64, b: f64) -> f64 {
    let mut acc = 0.0;
    accumulate(&mut acc, a);
    accumulate(&mut acc, b);
    accumulate(&mut acc, a * b);
    acc
}

#[test]
fn inout_parameters() {
    let mut z = 3.0;
    square_in_place(&mut z);
    assert_eq!(z, 9.0);
    for x in [-1.5, 0.5, 2.0] {
        let (v, g) = value_with_gradient!(at: x, of: fourth_power);
        assert_eq!(v, x * x * x * x);
        close(g, 4.0 * x * x * x, 1e-14, "x^4 rev");
        close(
            first_derivative!(at: x, of: fourth_power),
            4.0 * x * x * x,
            1e-14,
            "x^4 fwd",
        );
    }
    let (a, b) = (0.6, -1.7);
    let (ga, gb) = gradient!(at: (a, b), of: sum_of_squares_inout);
    close(ga, 2.0 * a + 2.0 * a * b * b, 1e-14, "inout acc da");
    close(gb, 2.0 * b + 2.0 * a * a * b, 1e-14, "inout acc db");
}

// ------------------------------------------------------------------ wrt

#[differentiable(wrt = (x))]
fn wrt_first(x: f64, y: f64) -> f64 {
    x.powi(3) * y.exp()
}

#[differentiable(wrt = (x, z))]
fn wrt_two_of_three(x: f64, y: f64, z: f64) -> f64 {
    x * y * z + z.sin() * y
}

#[test]
fn wrt_selects_parameters() {
    let (x, y, z) = (1.3, -0.4, 0.9);
    let (v, dx) = value_with_gradient!(at: (x, y), of: wrt_first);
    assert_eq!(v, wrt_first(x, y));
    let dx: f64 = dx;
    close(dx, 3.0 * x * x * y.exp(), 1e-14, "wrt x");

    let (dx, dz) = gradient!(at: (x, y, z), of: wrt_two_of_three);
    close(dx, y * z, 1e-15, "wrt (x, z): dx");
    close(dz, x * y + z.cos() * y, 1e-15, "wrt (x, z): dz");
}

// ------------------------------------------------------------------ registered derivatives

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
        close(g, expect, 1e-15, "clipped gradient");
    }

    let (gx, gy) = gradient!(at: (3.0, 4.0), of: radius);
    close(gx, 0.6, 1e-15, "radius dx");
    close(gy, 0.8, 1e-15, "radius dy");
    let (gx, gy) = gradient!(at: (0.0, 0.0), of: radius);
    assert_eq!((gx, gy), (0.0, 0.0), "safe_sqrt at 0");

    for x in [-0.8, 0.4, 1.1] {
        let e = (x * x).exp();
        let expect = e + x * e * 2.0 * x + 1.0;
        close(
            first_derivative!(at: x, of: uses_weighted),
            expect,
            1e-13,
            "jvp registration, forward",
        );
        close(
            gradient!(at: x, of: uses_weighted),
            expect,
            1e-13,
            "jvp registration, derived reverse",
        );
    }
}

// ------------------------------------------------------------------ generics, f32 and f64

#[differentiable]
fn generic_poly<T: Float>(x: T) -> T {
    let two = T::one() + T::one();
    x * x * x - two * x + T::one()
}

#[differentiable]
fn generic_smooth_abs<T: Float>(x: T, eps: T) -> T {
    (x * x + eps * eps).sqrt()
}

#[differentiable]
fn generic_sum_sq<T: Float>(xs: &[T]) -> T {
    // `T::zero()` is ambiguous under the prelude (bugs-ported.md, P3).
    let mut s = T::from(0.0).unwrap();
    for i in 0..xs.len() {
        s = s + xs[i] * xs[i] * T::from(0.5).unwrap();
    }
    s
}

#[differentiable]
fn generic_caller<T: Float>(x: T) -> T {
    generic_poly(x.sin()) * generic_smooth_abs(x, x.cos())
}

#[test]
fn generics_instantiated_with_f64() {
    for x in [-1.2, 0.0, 0.5, 2.0] {
        let (v, g) = value_with_gradient!(at: x, of: generic_poly::<f64>);
        assert_eq!(v, generic_poly(x));
        close(g, 3.0 * x * x - 2.0, 1e-14, "poly f64");
        let d = first_derivative!(at: x, of: generic_poly);
        close(d, 3.0 * x * x - 2.0, 1e-14, "poly f64 fwd");

        let eps = 0.1;
        let (gx, ge) = gradient!(at: (x, eps), of: generic_smooth_abs::<f64>);
        let r = (x * x + eps * eps).sqrt();
        close(gx, x / r, 1e-14, "smooth abs dx");
        close(ge, eps / r, 1e-14, "smooth abs deps");

        let g = gradient!(at: x, of: generic_caller::<f64>);
        close(g, fd(generic_caller, x), 1e-9, "generic caller");
    }
    let xs = vec![1.0, -2.0, 3.5];
    assert_eq!(gradient!(at: &xs, of: generic_sum_sq::<f64>), xs);
}

#[test]
fn generics_instantiated_with_f32() {
    for x in [-1.2f32, 0.5, 2.0] {
        let (v, g) = value_with_gradient!(at: x, of: generic_poly::<f32>);
        assert_eq!(v, generic_poly(x));
        close32(g, 3.0 * x * x - 2.0, 1e-6, "poly f32");
        let d: f32 = first_derivative!(at: x, of: generic_poly);
        close32(d, 3.0 * x * x - 2.0, 1e-6, "poly f32 fwd");

        let (gx, ge) = gradient!(at: (x, 0.1f32), of: generic_smooth_abs::<f32>);
        let r = (x * x + 0.01f32).sqrt();
        close32(gx, x / r, 1e-6, "smooth abs f32 dx");
        close32(ge, 0.1 / r, 1e-6, "smooth abs f32 deps");

        // f32 against the f64 instantiation, at f32 tolerance.
        let g32 = gradient!(at: x, of: generic_caller::<f32>);
        let g64 = gradient!(at: x as f64, of: generic_caller::<f64>);
        close(g32 as f64, g64, 1e-5, "generic caller f32 vs f64");
    }
    let xs = vec![1.0f32, -2.0, 3.5];
    assert_eq!(gradient!(at: &xs, of: generic_sum_sq::<f32>), xs);
}
