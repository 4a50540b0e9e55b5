//! Reverse mode on `#[derive(Differentiable)]` structs and their methods (the gradient is
//! the tangent struct), slices and `Vec` parameters (the gradient is a `Vec`).

mod common;

use common::{assert_close, assert_vec_close, fd, fd_grad, Rng};
use diff::prelude::*;

// ---------------------------------------------------------------------------------------
// Methods on a struct.

#[derive(Differentiable, Clone, Debug, PartialEq)]
pub struct Particle {
    pos: f64,
    vel: f64,
    #[no_derivative]
    id: usize,
}

impl Particle {
    #[differentiable]
    fn energy(&self, k: f64) -> f64 {
        0.5 * k * self.pos * self.pos + 0.5 * self.vel * self.vel
    }

    #[differentiable]
    fn into_momentum_sq(self) -> f64 {
        let m = self.vel * 2.0;
        m * m + self.pos.sin()
    }

    #[differentiable]
    fn lagrangian(&self, k: f64) -> f64 {
        let kinetic = 0.5 * self.vel.powi(2);
        kinetic - 0.5 * k * self.pos.powi(2)
    }
}

fn particle() -> Particle {
    Particle {
        pos: 1.5,
        vel: -0.5,
        id: 7,
    }
}

#[test]
fn ref_self_method_gradient_is_tangent_struct() {
    let p = particle();
    let (dp, dk): (ParticleTangent, f64) = gradient!(at: (&p, 3.0), of: Particle::energy);
    assert_eq!(
        dp,
        ParticleTangent {
            pos: 3.0 * 1.5,
            vel: -0.5
        }
    );
    assert_eq!(dk, 0.5 * 1.5 * 1.5);
    let (v, _) = value_with_gradient!(at: (&p, 3.0), of: Particle::energy);
    assert_eq!(v, p.energy(3.0));
    assert_eq!(p.energy(3.0), 0.5 * 3.0 * 2.25 + 0.125);
}

#[test]
fn self_by_value_method() {
    let p = particle();
    let (v, dp) = value_with_gradient!(at: p.clone(), of: Particle::into_momentum_sq);
    assert_eq!(v, p.clone().into_momentum_sq());
    assert_eq!(
        dp,
        ParticleTangent {
            pos: 1.5f64.cos(),
            vel: 8.0 * -0.5
        }
    );
}

#[test]
fn method_gradient_vs_finite_differences() {
    let mut rng = Rng::new(3);
    for _ in 0..10 {
        let p = Particle {
            pos: rng.uniform(-2.0, 2.0),
            vel: rng.uniform(-2.0, 2.0),
            id: 1,
        };
        let k = rng.uniform(0.5, 4.0);
        let (dp, dk) = gradient!(at: (&p, k), of: Particle::lagrangian);
        let at = |pos: f64, vel: f64, k: f64| Particle { pos, vel, id: 1 }.lagrangian(k);
        assert_close(dp.pos, fd(|t| at(t, p.vel, k), p.pos), 1e-7, "pos");
        assert_close(dp.vel, fd(|t| at(p.pos, t, k), p.vel), 1e-7, "vel");
        assert_close(dk, fd(|t| at(p.pos, p.vel, t), k), 1e-7, "k");
    }
}

#[test]
fn method_pullback_with_seed() {
    let p = particle();
    let pb = pullback!(at: (&p, 2.0), of: Particle::energy);
    let (dp, dk) = pb(-2.0);
    assert_eq!(
        dp,
        ParticleTangent {
            pos: -6.0,
            vel: 1.0
        }
    );
    assert_eq!(dk, -2.25);
}

// ---------------------------------------------------------------------------------------
// Slices, Vec, arrays.

#[differentiable]
fn slice_fn(p: &[f64]) -> f64 {
    p[0] * p[1].sin() + p[2] * p[2] * p[0]
}

fn slice_grad(p: &[f64]) -> Vec<f64> {
    vec![
        p[1].sin() + p[2] * p[2],
        p[0] * p[1].cos(),
        2.0 * p[2] * p[0],
    ]
}

#[test]
fn slice_parameter_gradient_is_vec() {
    let mut rng = Rng::new(4);
    for _ in 0..10 {
        let x = rng.direction(3);
        let g: Vec<f64> = gradient!(at: &x, of: slice_fn);
        assert_vec_close(&g, &slice_grad(&x), 1e-14, "analytic");
        assert_vec_close(&g, &fd_grad(slice_fn, &x), 1e-8, "fd");
        let (v, _) = value_with_gradient!(at: &x, of: slice_fn);
        assert_eq!(v, slice_fn(&x));
        let g2 = gradient!(at: &x[..], of: slice_fn);
        assert_eq!(g, g2);
    }
}

#[test]
fn slice_pullback_is_linear_in_seed() {
    let x = vec![0.3, -1.2, 0.8];
    let pb = pullback!(at: &x, of: slice_fn);
    let g = slice_grad(&x);
    let scaled: Vec<f64> = g.iter().map(|v| v * 4.0).collect();
    assert_vec_close(&pb(4.0), &scaled, 1e-14, "seed 4");
}

// Indexing in a counted loop is the form under test.
#[allow(clippy::needless_range_loop)]
#[differentiable]
fn slice_loop(p: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        s += p[i] * p[i] * (i as f64 + 1.0);
    }
    s
}

#[test]
fn slice_indexed_in_loop() {
    let x = vec![0.5, -1.0, 2.0, 3.0];
    let g: Vec<f64> = gradient!(at: (&x, 3usize), of: slice_loop);
    assert_eq!(g, vec![1.0, -4.0, 12.0, 0.0]);
    assert_eq!(slice_loop(&x, 3), 0.25 + 2.0 + 12.0);
}

// `&Vec<T>` parameters are part of the contract (API.md).
#[allow(clippy::ptr_arg)]
#[differentiable]
fn vec_ref(p: &Vec<f64>) -> f64 {
    p[0].exp() * p[1]
}

#[test]
fn vec_parameters() {
    let x = vec![0.5, 2.0];
    let g = gradient!(at: &x, of: vec_ref);
    assert_vec_close(&g, &[0.5f64.exp() * 2.0, 0.5f64.exp()], 1e-15, "&Vec");
    assert_eq!(vec_ref(&x), 0.5f64.exp() * 2.0);
    // `fn vec_owned(p: Vec<f64>)` indexing `p`: bugs-reverse.md 5.
}

// ---------------------------------------------------------------------------------------
// A struct with a `Vec` field and a `#[no_derivative]` field, taken by value (with a slice)
// and by reference: the gradient is the tangent struct, the differential takes one.

#[derive(Differentiable, Clone, Debug)]
struct Model {
    w: Vec<f64>,
    b: f64,
    #[no_derivative]
    name: String,
}

#[differentiable]
fn loss(m: Model, xs: &[f64]) -> f64 {
    let pred: f64 = m.w.iter().zip(xs.iter()).map(|(w, x)| w * x).sum::<f64>() + m.b;
    println!("{}: {pred}", m.name);
    (pred - 1.0) * (pred - 1.0)
}

#[differentiable]
fn loss_ref(m: &Model) -> f64 {
    let mut s = m.b * m.b;
    for i in 0..m.w.len() {
        s += m.w[i] * m.w[i] * (i as f64 + 1.0);
    }
    s
}

#[test]
fn struct_with_a_vec_field_by_value_and_by_reference() {
    let model = Model {
        w: vec![0.5, -1.0, 2.0],
        b: 0.25,
        name: "m".into(),
    };
    let xs = vec![1.0, 2.0, 3.0];
    let (v, pb) = value_with_pullback!(at: (model.clone(), &xs), of: loss);
    let (t, gx): (ModelTangent, Vec<f64>) = pb(1.0);
    let pred = 0.5 - 2.0 + 6.0 + 0.25;
    assert_eq!(v, (pred - 1.0) * (pred - 1.0));
    let r = 2.0 * (pred - 1.0);
    assert_eq!(t.w, vec![r * 1.0, r * 2.0, r * 3.0]);
    assert_eq!(t.b, r);
    assert_eq!(gx, vec![r * 0.5, -r, r * 2.0]);
    let g = gradient!(at: &model, of: loss_ref);
    assert_eq!(g.w, vec![1.0, -4.0, 12.0]);
    assert_eq!(g.b, 0.5);
    let z = ModelTangent {
        w: vec![0.0; 3],
        b: 1.0,
    };
    let d = differential!(at: &model, of: loss_ref)(z);
    assert_eq!(d, 0.5);
}

// ---------------------------------------------------------------------------------------
// A method calling another method through `self`, and a method taking `self` by value
// and returning a struct (`..self` passes the other fields through).

#[derive(Differentiable, Clone, Debug, PartialEq)]
struct PointMass {
    pos: f64,
    vel: f64,
    mass: f64,
    #[no_derivative]
    id: u32,
}

impl PointMass {
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
    fn scaled(self, s: f64) -> PointMass {
        PointMass {
            pos: self.pos * s,
            vel: self.vel * s,
            ..self
        }
    }
}

#[test]
fn self_method_gradient_is_a_tangent_struct() {
    let p = PointMass {
        pos: 0.7,
        vel: -1.3,
        mass: 2.5,
        id: 9,
    };
    let k = 3.0;
    let (v, (dp, dk)) = value_with_gradient!(at: (&p, k), of: PointMass::energy);
    assert_eq!(v, p.energy(k));
    assert_close(dp.pos, k * p.pos, 1e-15, "dE/dpos");
    assert_close(dp.vel, p.mass * p.vel, 1e-15, "dE/dvel");
    assert_close(dp.mass, 0.5 * p.vel * p.vel, 1e-15, "dE/dmass");
    assert_close(dk, 0.5 * p.pos * p.pos, 1e-15, "dE/dk");

    let t: PointMassTangent = gradient!(at: &p, of: PointMass::kinetic);
    assert_close(t.pos, 0.0, 0.0, "dK/dpos");
    assert_close(t.vel, p.mass * p.vel, 1e-15, "dK/dvel");

    // The tangent struct can be built by a literal and used as a differential input.
    let df = differential!(at: (&p, k), of: PointMass::energy);
    let dir = PointMassTangent {
        pos: 1.0,
        vel: 0.5,
        mass: -2.0,
    };
    let expect = dp.pos * dir.pos + dp.vel * dir.vel + dp.mass * dir.mass + dk * 0.25;
    assert_close(df((dir, 0.25)), expect, 1e-14, "energy differential");
}

#[test]
fn consuming_method_returning_a_struct() {
    let p = PointMass {
        pos: 0.7,
        vel: -1.3,
        mass: 2.5,
        id: 4,
    };
    let s = 1.5;
    let (q, pb) = value_with_pullback!(at: (p.clone(), s), of: PointMass::scaled);
    assert_eq!(q, p.clone().scaled(s));
    assert_eq!(q.id, 4);
    let (tp, ts) = pb(PointMassTangent {
        pos: 1.0,
        vel: 2.0,
        mass: 3.0,
    });
    assert_close(tp.pos, s, 1e-15, "scaled dpos");
    assert_close(tp.vel, 2.0 * s, 1e-15, "scaled dvel");
    assert_close(tp.mass, 3.0, 1e-15, "scaled dmass (passed through ..self)");
    assert_close(ts, p.pos + 2.0 * p.vel, 1e-15, "scaled ds");
}

#[derive(Differentiable, Clone, Debug)]
struct Particle2 {
    pos: [f64; 2],
    vel: [f64; 2],
}

impl Particle2 {
    #[differentiable]
    fn drift(&mut self, dt: f64) {
        for k in 0..2 {
            self.pos[k] += self.vel[k] * dt;
        }
    }
}

/// `&mut self` methods called on elements of a `Vec` (`ps[i].drift(dt)`, and through
/// `iter_mut`), in a copy of a parameter that shadows it.
#[allow(clippy::ptr_arg, clippy::needless_range_loop)]
#[differentiable]
fn fall(ps: &Vec<Particle2>, dt: f64) -> f64 {
    let mut ps = ps.clone();
    for _ in 0..3 {
        for p in ps.iter_mut() {
            p.vel[1] -= 9.8 * dt;
            p.drift(dt);
        }
        for i in 0..ps.len() {
            ps[i].drift(0.5 * dt);
        }
    }
    ps.iter().map(|p| p.pos[1]).sum::<f64>()
}

#[test]
fn methods_updating_elements_of_a_vec() {
    let ps = vec![
        Particle2 {
            pos: [0.0, 1.0],
            vel: [1.0, 0.0],
        },
        Particle2 {
            pos: [1.0, 2.0],
            vel: [0.0, 0.5],
        },
    ];
    let dt = 0.1;
    let (v, (gp, gdt)) = value_with_gradient!(at: (&ps, dt), of: fall);
    assert_eq!(v, fall(&ps, dt));
    // Each step adds 1.5 dt v_y to y, after v_y -= 9.8 dt: y0 + 4.5 dt v0 - 9.8 * 1.5 * 6 dt^2.
    for p in &gp {
        assert!(
            (p.pos[1] - 1.0).abs() < 1e-12 && (p.vel[1] - 4.5 * dt).abs() < 1e-12,
            "{p:?}"
        );
        assert!(p.pos[0].abs() < 1e-12 && p.vel[0].abs() < 1e-12);
    }
    let expected_dt: f64 = ps
        .iter()
        .map(|p| 4.5 * p.vel[1] - 2.0 * 9.8 * 9.0 * dt)
        .sum();
    assert!((gdt - expected_dt).abs() < 1e-9, "{gdt} vs {expected_dt}");
}
