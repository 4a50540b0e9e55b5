//! Arithmetic operators implemented for a struct of the crate (`impl Add for V2`) with
//! `#[differentiable]` on the operator's method: `p + q`, `p * s`, `-p`, `p += q` on such
//! values call the implementation's derivatives. Checked against hand-written gradients,
//! forward against reverse mode, and central differences.
#![allow(
    clippy::assign_op_pattern,
    clippy::needless_range_loop,
    clippy::useless_vec
)]
mod common;
use common::{assert_close, fd};
use diff::prelude::*;

mod geometry {
    use diff::prelude::*;
    use std::ops::{Add, AddAssign, Div, Mul, Neg, Sub};

    #[derive(Differentiable, Clone, Copy, Debug, PartialEq)]
    pub struct V2 {
        pub x: f64,
        pub y: f64,
    }

    impl Add for V2 {
        type Output = V2;
        #[differentiable]
        fn add(self, o: V2) -> V2 {
            V2 {
                x: self.x + o.x,
                y: self.y + o.y,
            }
        }
    }

    // `p += q` is differentiated as `p = p + q`.
    impl AddAssign for V2 {
        fn add_assign(&mut self, o: V2) {
            *self = *self + o;
        }
    }

    impl Sub for V2 {
        type Output = V2;
        #[differentiable]
        fn sub(self, o: V2) -> V2 {
            V2 {
                x: self.x - o.x,
                y: self.y - o.y,
            }
        }
    }

    // The attribute on the block works as well.
    #[differentiable]
    impl Mul<f64> for V2 {
        type Output = V2;
        #[differentiable]
        fn mul(self, s: f64) -> V2 {
            V2 {
                x: self.x * s,
                y: self.y * s,
            }
        }
    }

    impl Div<f64> for V2 {
        type Output = V2;
        #[differentiable]
        fn div(self, s: f64) -> V2 {
            V2 {
                x: self.x / s,
                y: self.y / s,
            }
        }
    }

    impl Neg for V2 {
        type Output = V2;
        #[differentiable]
        fn neg(self) -> V2 {
            V2 {
                x: -self.x,
                y: -self.y,
            }
        }
    }

    // A float on the left: the derivatives are `V2`'s.
    impl Mul<V2> for f64 {
        type Output = V2;
        #[differentiable]
        fn mul(self, v: V2) -> V2 {
            V2 {
                x: self * v.x,
                y: self * v.y,
            }
        }
    }

    impl V2 {
        #[differentiable]
        pub fn dot(self, o: V2) -> f64 {
            self.x * o.x + self.y * o.y
        }

        /// Operators on the receiver.
        #[differentiable]
        pub fn lerp(self, o: V2, t: f64) -> V2 {
            self + (o - self) * t
        }
    }
}

// Used where `std::ops` is not imported.
use geometry::V2;

/// k |p - q|^2 + |(p + q) / 2|^2 - (-p).x
#[differentiable]
fn energy(p: V2, q: V2, k: f64) -> f64 {
    let d = p - q;
    let m = (p + q) * 0.5;
    let n = -p;
    k * d.dot(d) + (m / 1.0).dot(m) + n.x
}

/// A block's own `let` shadows a struct variable (`{ let p = p.x + ..; p }` is a float):
/// the arithmetic on the block's value is a float's, not `f64 * V2`; the struct-valued
/// block (`{ let r = p * 2.0; r }`) still takes V2's operators.
#[differentiable]
#[allow(clippy::let_and_return)]
fn shadowed_in_a_block(x: f64, flag: bool) -> f64 {
    let p = V2 { x, y: x * x };
    let s = if flag {
        let p = p.x + 0.5 * p.y;
        p
    } else {
        p.dot(p)
    };
    let r = {
        let r = p * 2.0;
        r
    };
    1.5 * s + (r - p).x
}

#[test]
fn a_struct_variable_shadowed_inside_a_block() {
    for flag in [true, false] {
        let f = |x: f64| shadowed_in_a_block(x, flag);
        let (v, g) = value_with_gradient!(at: 0.7, of: |x: f64| shadowed_in_a_block(x, flag));
        assert_eq!(v, f(0.7));
        assert_close(g, fd(f, 0.7), 1e-7, "reverse vs fd");
        let d = first_derivative!(at: 0.7, of: |x: f64| shadowed_in_a_block(x, flag));
        assert_close(d, g, 1e-12, "forward");
    }
}

#[test]
fn operators_on_a_struct_use_their_implementations_derivatives() {
    let (p, q, k) = (V2 { x: 1.0, y: 2.0 }, V2 { x: 0.5, y: -1.0 }, 3.0);
    let (v, (gp, gq, gk)) = value_with_gradient!(at: (p, q, k), of: energy);
    assert_close(v, energy(p, q, k), 1e-12, "value");
    let (d, m) = (
        (p.x - q.x, p.y - q.y),
        ((p.x + q.x) / 2.0, (p.y + q.y) / 2.0),
    );
    assert_close(gp.x, 2.0 * k * d.0 + m.0 - 1.0, 1e-12, "dp.x");
    assert_close(gp.y, 2.0 * k * d.1 + m.1, 1e-12, "dp.y");
    assert_close(gq.x, -2.0 * k * d.0 + m.0, 1e-12, "dq.x");
    assert_close(gq.y, -2.0 * k * d.1 + m.1, 1e-12, "dq.y");
    assert_close(gk, d.0 * d.0 + d.1 * d.1, 1e-12, "dk");
    let forward = first_derivative!(at: k, of: |k| energy(p, q, k));
    assert_close(forward, gk, 1e-12, "forward dk");
}

/// A projectile under gravity and drag, Euler steps, state held in `V2`s updated with
/// `+=` and `=` in the loop: the horizontal distance travelled.
#[differentiable]
fn distance(v0: V2, drag: f64) -> f64 {
    let g = V2 { x: 0.0, y: -9.81 };
    let dt = 0.01;
    let mut pos = V2 { x: 0.0, y: 0.0 };
    let mut vel = v0;
    for _ in 0..100 {
        let acc = g - vel * drag;
        vel += acc * dt;
        pos = pos + vel * dt;
    }
    pos.x
}

#[test]
fn struct_state_updated_by_operators_in_a_loop() {
    let (v0, drag) = (V2 { x: 3.0, y: 4.0 }, 0.1);
    let (v, (gv, gd)) = value_with_gradient!(at: (v0, drag), of: distance);
    assert_close(v, distance(v0, drag), 1e-12, "value");
    let fx = fd(|t| distance(V2 { x: t, y: 4.0 }, drag), 3.0);
    let fy = fd(|t| distance(V2 { x: 3.0, y: t }, drag), 4.0);
    let fdrag = fd(|t| distance(v0, t), drag);
    assert_close(gv.x, fx, 1e-6, "dv0.x");
    assert_close(gv.y, fy, 1e-6, "dv0.y");
    assert_close(gd, fdrag, 1e-6, "ddrag");
    let forward = first_derivative!(at: drag, of: |d| distance(v0, d));
    assert_close(forward, gd, 1e-12, "forward ddrag");
}

/// A particle whose fields are `V2`s: `self.pos + self.vel * dt` calls `V2`'s operators.
#[derive(Differentiable, Clone, Copy, Debug)]
struct Particle {
    pos: V2,
    vel: V2,
}

impl Particle {
    #[differentiable]
    fn advanced(&self, dt: f64) -> V2 {
        self.pos + self.vel * dt
    }
}

#[differentiable]
fn height_after(p: Particle, dt: f64) -> f64 {
    let next = p.advanced(dt);
    let drift = p.vel * 2.0 - p.pos;
    next.y * next.y + drift.x
}

#[test]
fn operators_on_fields_of_a_struct() {
    let p = Particle {
        pos: V2 { x: 1.0, y: 2.0 },
        vel: V2 { x: -0.5, y: 3.0 },
    };
    let dt = 0.25;
    let (v, (gp, gdt)) = value_with_gradient!(at: (p, dt), of: height_after);
    assert_close(v, height_after(p, dt), 1e-12, "value");
    let y = p.pos.y + p.vel.y * dt;
    assert_close(gp.pos.x, -1.0, 1e-12, "d pos.x");
    assert_close(gp.pos.y, 2.0 * y, 1e-12, "d pos.y");
    assert_close(gp.vel.x, 2.0, 1e-12, "d vel.x");
    assert_close(gp.vel.y, 2.0 * y * dt, 1e-12, "d vel.y");
    assert_close(gdt, 2.0 * y * p.vel.y, 1e-12, "d dt");
}

#[test]
fn operators_in_a_closure_taking_a_struct() {
    let (p, q) = (V2 { x: 1.5, y: -2.0 }, V2 { x: 0.5, y: 1.0 });
    // |p - q|^2 / 2 + (p * 3).y
    let g = gradient!(at: p, of: |p: V2| {
        let d = p - q;
        0.5 * d.dot(d) + (p * 3.0).y
    });
    assert_close(g.x, p.x - q.x, 1e-12, "dx");
    assert_close(g.y, p.y - q.y + 3.0, 1e-12, "dy");
    let (g1, g2) = gradient!(at: (p, q), of: |a: V2, b: V2| (a + b).dot(-b));
    // (a + b)·(-b): d/da = -b, d/db = -a - 2b
    assert_close(g1.x, -q.x, 1e-12, "d a.x");
    assert_close(g2.y, -p.y - 2.0 * q.y, 1e-12, "d b.y");
}

/// Floats on the left of `*`: `2.0 * p`, `k * (p - q)`, `dt * self.vel`.
#[differentiable]
fn scaled_gap(p: V2, q: V2, k: f64) -> f64 {
    let d = k * (p - q);
    let e = 2.0 * p + d;
    e.dot(d)
}

#[test]
fn a_float_times_a_struct() {
    let (p, q, k) = (V2 { x: 1.0, y: -2.0 }, V2 { x: 0.25, y: 0.5 }, 1.5);
    let (v, (gp, gq, gk)) = value_with_gradient!(at: (p, q, k), of: scaled_gap);
    assert_close(v, scaled_gap(p, q, k), 1e-12, "value");
    // f = (2p + k(p-q))·k(p-q)
    let fp = |x: f64, y: f64| scaled_gap(V2 { x, y }, q, k);
    assert_close(gp.x, fd(|t| fp(t, p.y), p.x), 1e-6, "dp.x");
    assert_close(gp.y, fd(|t| fp(p.x, t), p.y), 1e-6, "dp.y");
    assert_close(
        gq.x,
        fd(|t| scaled_gap(p, V2 { x: t, y: q.y }, k), q.x),
        1e-6,
        "dq.x",
    );
    assert_close(gk, fd(|t| scaled_gap(p, q, t), k), 1e-6, "dk");
    let forward = first_derivative!(at: k, of: |k| scaled_gap(p, q, k));
    assert_close(forward, gk, 1e-12, "forward dk");
}

#[test]
fn operators_on_the_receiver() {
    let (p, q, t) = (V2 { x: 1.0, y: -2.0 }, V2 { x: 3.0, y: 0.5 }, 0.25);
    let (gp, gq, gt) = gradient!(at: (p, q, t), of: |p: V2, q: V2, t: f64| p.lerp(q, t).y);
    assert_close(gp.y, 1.0 - t, 1e-12, "dp.y");
    assert_close(gp.x, 0.0, 1e-12, "dp.x");
    assert_close(gq.y, t, 1e-12, "dq.y");
    assert_close(gt, q.y - p.y, 1e-12, "dt");
}

/// Elements of a slice of `V2`s: `points[i] * w` with an active weight, and items of a
/// loop over them.
#[differentiable]
fn weighted_sum_x(points: &[V2], w: f64) -> f64 {
    let mut acc = V2 { x: 0.0, y: 0.0 };
    for i in 0..points.len() {
        acc = acc + points[i] * (w * i as f64);
    }
    for p in points.iter() {
        acc += *p * w;
    }
    acc.x + acc.y
}

#[test]
fn operators_on_elements_of_a_slice_of_structs() {
    let points = vec![
        V2 { x: 1.0, y: 2.0 },
        V2 { x: -0.5, y: 0.25 },
        V2 { x: 3.0, y: 1.0 },
    ];
    let w = 0.7;
    let (gp, gw) = gradient!(at: (&points[..], w), of: weighted_sum_x);
    assert_close(gw, fd(|t| weighted_sum_x(&points, t), w), 1e-6, "dw");
    for (i, g) in gp.iter().enumerate() {
        let c = w * i as f64 + w;
        assert_close(g.x, c, 1e-12, "dx");
        assert_close(g.y, c, 1e-12, "dy");
    }
}

/// A world built in the body, holding a particle: its fields' operators are found
/// through the struct literals, at any depth.
#[derive(Differentiable, Clone, Copy)]
struct World {
    body: Particle,
    gravity: V2,
}

/// A damped particle stepped in a loop, built in the body rather than given.
#[differentiable]
fn settle(k: f64, damping: f64) -> f64 {
    let mut w = World {
        body: Particle {
            pos: V2 { x: 1.0, y: 0.0 },
            vel: V2 { x: 0.0, y: 0.5 },
        },
        gravity: V2 { x: 0.0, y: -0.1 },
    };
    let dt = 0.05;
    for _ in 0..40 {
        let force = w.body.pos * (-k) - w.body.vel * damping + w.gravity;
        w.body.vel = w.body.vel + force * dt;
        w.body.pos = w.body.advanced(dt);
    }
    let p = w.body.pos;
    p.x * p.x + p.y * p.y
}

#[test]
fn operators_on_fields_of_structs_built_in_the_body() {
    let (k, c) = (2.0, 0.3);
    let (v, (gk, gc)) = value_with_gradient!(at: (k, c), of: settle);
    assert_eq!(v, settle(k, c));
    assert_close(gk, fd(|k| settle(k, c), k), 1e-6, "d k");
    assert_close(gc, fd(|c| settle(k, c), c), 1e-6, "d damping");
    let (v, df) = value_with_differential!(at: (k, c), of: settle);
    assert_eq!(v, settle(k, c));
    assert_close(df((1.0, 0.0)), gk, 1e-12, "forward d k");
    let df = differential!(at: (k, c), of: settle);
    assert_close(df((0.0, 1.0)), gc, 1e-12, "forward d damping");
}

/// An operator that is not a scaling (`b + k`): a float rule applied in its place would
/// give a wrong derivative, so every operand must be seen as a `Shift`.
#[derive(Differentiable, Clone, Copy, Debug)]
struct Shift {
    a: f64,
    b: f64,
}

impl Shift {
    #[differentiable]
    fn new(a: f64, b: f64) -> Self {
        Shift { a, b }
    }

    #[differentiable]
    fn doubled(self) -> Shift {
        Shift {
            a: 2.0 * self.a,
            b: self.b * self.b,
        }
    }
}

impl std::ops::Mul<f64> for Shift {
    type Output = Shift;
    #[differentiable]
    fn mul(self, k: f64) -> Shift {
        Shift {
            a: self.a * k,
            b: self.b + k * k,
        }
    }
}

#[differentiable]
fn make_shift(x: f64) -> Shift {
    Shift::new(x.sin(), x * x)
}

/// Shifts from an associated function, a free function, a method, a local `Vec` and an
/// `if`.
#[differentiable]
fn shifted(x: f64, k: f64) -> f64 {
    let p = Shift::new(x, x * x) * 2.0;
    let q = make_shift(x) * k;
    let r = Shift::new(k, x).doubled() * 0.5;
    let mut pts = vec![Shift::new(0.0, 0.0); 2];
    pts[1] = Shift::new(x * k, k);
    let s = pts[1] * x;
    let t = if x > 0.0 {
        Shift::new(x, 1.0)
    } else {
        make_shift(x)
    } * 1.5;
    p.a * p.b + q.a * q.b + r.a * r.b + s.a * s.b + t.a * t.b
}

#[test]
fn structs_from_calls_and_local_collections_use_their_operators() {
    let (x, k) = (0.7, 1.3);
    let (v, (gx, gk)) = value_with_gradient!(at: (x, k), of: shifted);
    assert_eq!(v, shifted(x, k));
    assert_close(gx, fd(|x| shifted(x, k), x), 1e-6, "d x");
    assert_close(gk, fd(|k| shifted(x, k), k), 1e-6, "d k");
    let df = differential!(at: (x, k), of: shifted);
    assert_close(df((1.0, 0.0)), gx, 1e-12, "forward d x");
}

/// A vector type as often written: the attribute on each `impl` block (the compound
/// assignments' too), `-> Self::Output`,
/// `*` implemented twice (by a float, and by a vector as the dot product, whose `Output`
/// is `f64`), `Mul<Vec3> for f64` written through `Self::Output` too.
mod vec3 {
    use diff::prelude::*;
    use std::ops::{Add, AddAssign, Mul, Sub, SubAssign};

    #[derive(Differentiable, Clone, Copy, Debug)]
    pub struct Vec3 {
        pub x: f64,
        pub y: f64,
        pub z: f64,
    }

    impl Vec3 {
        #[differentiable]
        pub fn new(x: f64, y: f64, z: f64) -> Self {
            Self { x, y, z }
        }
    }

    #[differentiable]
    impl Add for Vec3 {
        type Output = Self;
        fn add(self, o: Self) -> Self::Output {
            Self::new(self.x + o.x, self.y + o.y, self.z + o.z)
        }
    }

    #[differentiable]
    impl Sub for Vec3 {
        type Output = Self;
        fn sub(self, o: Self) -> Self::Output {
            Self::new(self.x - o.x, self.y - o.y, self.z - o.z)
        }
    }

    #[differentiable]
    impl Mul<f64> for Vec3 {
        type Output = Self;
        fn mul(self, k: f64) -> Self::Output {
            Self::new(self.x * k, self.y * k, self.z * k)
        }
    }

    /// The dot product.
    impl Mul for Vec3 {
        type Output = f64;
        #[differentiable]
        fn mul(self, o: Self) -> Self::Output {
            self.x * o.x + self.y * o.y + self.z * o.z
        }
    }

    impl Mul<Vec3> for f64 {
        type Output = Vec3;
        #[differentiable]
        fn mul(self, v: Vec3) -> Self::Output {
            v * self
        }
    }

    // Marking a compound assignment is allowed (`+=` is differentiated as `p = p + q`).
    impl AddAssign for Vec3 {
        #[differentiable]
        fn add_assign(&mut self, o: Self) {
            *self = *self + o;
        }
    }

    #[differentiable]
    impl SubAssign for Vec3 {
        fn sub_assign(&mut self, o: Self) {
            *self = *self - o;
        }
    }
}

use vec3::Vec3;

/// The work along a few Euler steps: `*` as scaling and as the dot product.
#[differentiable]
fn work(k: f64, c: f64) -> f64 {
    let mut pos = Vec3::new(1.0, 0.0, 0.5);
    let mut vel = Vec3::new(0.0, 1.0, 0.0);
    let mut w = 0.0;
    for _ in 0..5 {
        let force = pos * -k - c * vel;
        w += force * vel * 0.1;
        vel += force * 0.1;
        pos -= -0.1 * vel;
    }
    w + pos * pos
}

#[test]
fn one_operator_implemented_for_several_right_operands() {
    let (k, c) = (0.8, 0.3);
    let (v, (gk, gc)) = value_with_gradient!(at: (k, c), of: work);
    assert_eq!(v, work(k, c));
    assert_close(gk, fd(|k| work(k, c), k), 1e-6, "d k");
    assert_close(gc, fd(|c| work(k, c), c), 1e-6, "d c");
    let dk = first_derivative!(at: k, of: |k| work(k, c));
    assert_close(dk, gk, 1e-12, "forward d k");
}

/// A struct literal in a condition, in a function whose parameters are named like the
/// struct's fields: the field names stay field names.
#[differentiable]
fn literal_in_condition(x: f64, y: f64) -> f64 {
    let mut g = x;
    if (Vec3 { x: y, y: 2.0, z: x }).x <= x {
        g *= 2.0;
    }
    if (Vec3 { x, y, z: 0.0 }).y > 0.0 {
        g *= y;
    }
    g * y
}

#[test]
fn a_struct_literal_in_a_condition_keeps_its_field_names() {
    for (x, y) in [(0.7, 1.3), (1.7, -0.3), (1.2, 0.5)] {
        let (v, (gx, gy)) = value_with_gradient!(at: (x, y), of: literal_in_condition);
        assert_eq!(v, literal_in_condition(x, y));
        assert_close(gx, fd(|x| literal_in_condition(x, y), x), 1e-6, "d x");
        assert_close(gy, fd(|y| literal_in_condition(x, y), y), 1e-6, "d y");
    }
}

/// A clone of a struct with operators is one too.
#[differentiable]
#[allow(clippy::clone_on_copy)]
fn cloned(k: f64) -> f64 {
    let p = Vec3::new(k, 1.0, 2.0);
    let q = p.clone();
    (q * k) * p + (p.clone() - q * 2.0) * q
}

#[test]
fn a_clone_of_a_struct_uses_its_operators() {
    let k = 0.6;
    let (v, g) = value_with_gradient!(at: k, of: cloned);
    assert_eq!(v, cloned(k));
    assert_close(g, fd(cloned, k), 1e-6, "d k");
}

/// Operators on structs from calls inside `vec![..]`.
#[differentiable]
fn in_a_vec(k: f64) -> f64 {
    let q = Vec3 {
        x: 1.0,
        y: k,
        z: 0.5,
    };
    let xs = vec![
        (Vec3::new(k, 2.0, 1.0) + q).x,
        (Vec3::new(0.3, k, k) * k) * q,
    ];
    xs[0] * xs[1]
}

#[test]
fn operators_inside_a_vec_literal() {
    let k = 0.9;
    let (v, g) = value_with_gradient!(at: k, of: in_a_vec);
    assert_eq!(v, in_a_vec(k));
    assert_close(g, fd(in_a_vec, k), 1e-6, "d k");
}

/// The hessian of `f` at `x` by central differences of its gradient (`grad`).
fn fd_hessian(grad: impl Fn(&[f64]) -> Vec<f64>, x: &[f64]) -> Vec<Vec<f64>> {
    let h = 1e-5;
    (0..x.len())
        .map(|j| {
            let (mut a, mut b) = (x.to_vec(), x.to_vec());
            a[j] += h;
            b[j] -= h;
            let (ga, gb) = (grad(&a), grad(&b));
            ga.iter()
                .zip(&gb)
                .map(|(p, m)| (p - m) / (2.0 * h))
                .collect()
        })
        .collect()
}

fn assert_matrix_close(actual: &[Vec<f64>], expected: &[Vec<f64>], tol: f64, what: &str) {
    assert_eq!(actual.len(), expected.len(), "{what}: rows");
    for (i, (a, e)) in actual.iter().zip(expected).enumerate() {
        for (j, (a, e)) in a.iter().zip(e).enumerate() {
            assert_close(*a, *e, tol * (1.0 + e.abs()), &format!("{what} [{i}][{j}]"));
            assert_close(*a, actual[j][i], 1e-12 * (1.0 + a.abs()), "symmetric");
        }
    }
}

/// Second order through structs whose operators are all `#[differentiable]`: the
/// operators' dual companions run on the structs' dual twins (a struct nesting them, a
/// slice of them, a float on the left, operators returning a float, `+=`).
#[test]
fn second_order_through_operators_of_a_struct() {
    let v2 = |z: &[f64], k: usize| V2 {
        x: z[k],
        y: z[k + 1],
    };
    let z = [1.0, 2.0, 0.5, -1.0, 3.0];
    let h = hessian!(at: z.to_vec(), of: |z: Vec<f64>| {
        energy(V2 { x: z[0], y: z[1] }, V2 { x: z[2], y: z[3] }, z[4])
    });
    let grad = |z: &[f64]| {
        let (gp, gq, gk) = gradient!(at: (v2(z, 0), v2(z, 2), z[4]), of: energy);
        vec![gp.x, gp.y, gq.x, gq.y, gk]
    };
    assert_matrix_close(&h, &fd_hessian(grad, &z), 1e-6, "energy");

    let z = [3.0, 4.0, 0.1];
    let h = hessian!(at: z.to_vec(), of: |z: Vec<f64>| distance(V2 { x: z[0], y: z[1] }, z[2]));
    let grad = |z: &[f64]| {
        let (gv, gd) = gradient!(at: (v2(z, 0), z[2]), of: distance);
        vec![gv.x, gv.y, gd]
    };
    assert_matrix_close(&h, &fd_hessian(grad, &z), 1e-5, "distance");

    let z = [1.0, -2.0, 0.25, 0.5, 1.5];
    let h = hessian!(at: z.to_vec(), of: |z: Vec<f64>| {
        scaled_gap(V2 { x: z[0], y: z[1] }, V2 { x: z[2], y: z[3] }, z[4])
    });
    let grad = |z: &[f64]| {
        let (gp, gq, gk) = gradient!(at: (v2(z, 0), v2(z, 2), z[4]), of: scaled_gap);
        vec![gp.x, gp.y, gq.x, gq.y, gk]
    };
    assert_matrix_close(&h, &fd_hessian(grad, &z), 1e-6, "scaled_gap");

    // A struct nesting `V2`s, its method using their operators.
    let particle = |z: &[f64]| Particle {
        pos: v2(z, 0),
        vel: v2(z, 2),
    };
    let z = [1.0, 2.0, -0.5, 3.0, 0.25];
    let h = hessian!(at: z.to_vec(), of: |z: Vec<f64>| {
        let p = Particle {
            pos: V2 { x: z[0], y: z[1] },
            vel: V2 { x: z[2], y: z[3] },
        };
        height_after(p, z[4])
    });
    let grad = |z: &[f64]| {
        let (gp, gdt) = gradient!(at: (particle(z), z[4]), of: height_after);
        vec![gp.pos.x, gp.pos.y, gp.vel.x, gp.vel.y, gdt]
    };
    assert_matrix_close(&h, &fd_hessian(grad, &z), 1e-6, "height_after");

    // Structs built in the body, nested, stepped in a loop.
    let z = [2.0, 0.3];
    let h = hessian!(at: (z[0], z[1]), of: settle);
    let grad = |z: &[f64]| {
        let (a, b) = gradient!(at: (z[0], z[1]), of: settle);
        vec![a, b]
    };
    assert_matrix_close(&h, &fd_hessian(grad, &z), 1e-5, "settle");

    // `*` as scaling and as the dot product, `+=` and `-=`.
    let z = [0.8, 0.3];
    let h = hessian!(at: (z[0], z[1]), of: work);
    let grad = |z: &[f64]| {
        let (a, b) = gradient!(at: (z[0], z[1]), of: work);
        vec![a, b]
    };
    assert_matrix_close(&h, &fd_hessian(grad, &z), 1e-5, "work");

    // A closure building the structs, and `second_derivative!` through a method.
    let q = V2 { x: 0.5, y: -1.0 };
    let d2 = second_derivative!(at: 0.75, of: |t| {
        let p = V2 { x: t, y: t * t };
        p.lerp(q, t).dot(p - q)
    });
    let d1 = |t: f64| {
        first_derivative!(at: t, of: |t| {
            let p = V2 { x: t, y: t * t };
            p.lerp(q, t).dot(p - q)
        })
    };
    assert_close(d2, fd(d1, 0.75), 1e-6, "d2 through lerp");
}

/// A loop whose only carried value with a derivative is a `V2`: summed (`p += q`) or
/// passed on unchanged (as random programs write it). Not a reduction loop of floats (`fused_loops.rs`), whose seed
/// scales as a float: the tape (was E0277, `V2: Unit`, random programs seed 46400,
/// program 160).
#[allow(clippy::self_assignment, dead_code)]
#[differentiable]
fn sums_of_a_struct(x: f64, n: usize) -> f64 {
    let mut p = V2 { x, y: 1.0 };
    for i in 0..n {
        p += V2 {
            x: x * i as f64,
            y: x.sin(),
        };
    }
    let mut q = V2 { x: x * x, y: x };
    for _ in 0..n {
        q = q;
    }
    p.x * p.y + q.x
}

#[test]
fn loops_carrying_a_struct_keep_their_tape() {
    for n in [0, 1, 3] {
        let f = |x: f64| sums_of_a_struct(x, n);
        let (v, g) = value_with_gradient!(at: 0.7, of: |x: f64| sums_of_a_struct(x, n));
        assert_eq!(v, f(0.7));
        assert_close(g, fd(f, 0.7), 1e-7, "reverse vs fd");
        let d = first_derivative!(at: 0.7, of: |x: f64| sums_of_a_struct(x, n));
        assert_close(d, g, 1e-12, "forward");
    }
}

/// Operators on struct fields of the elements of a slice parameter (`bs[1].pos -
/// bs[0].pos`).
#[differentiable]
fn spread(bs: &[Particle]) -> f64 {
    let d = bs[1].pos - bs[0].pos;
    let w = bs[0].vel * 2.0 + bs[1].vel;
    d.x * d.x + d.y * w.y
}

#[test]
fn operators_on_fields_of_elements() {
    let p = |x: f64, y: f64| Particle {
        pos: V2 { x, y },
        vel: V2 { x: y, y: x },
    };
    let bs = vec![p(1.0, 2.0), p(3.0, -1.0)];
    let (v, g) = value_with_gradient!(at: &bs, of: spread);
    assert_close(v, spread(&bs), 1e-12, "value");
    // d = (2, -3), w.y = 2·1 + 3 = 5: 4 - 15.
    assert_close(v, -11.0, 1e-12, "value by hand");
    assert_close(g[1].pos.x, 4.0, 1e-12, "d pos1.x");
    assert_close(g[0].pos.y, -5.0, 1e-12, "d pos0.y");
    assert_close(g[0].vel.y, 2.0 * -3.0, 1e-12, "d vel0.y");
    assert_close(g[1].vel.y, -3.0, 1e-12, "d vel1.y");
}

/// Geometry as kurbo writes it: `Point - Point` is a `Vec2` (an operator whose `Output`
/// is another struct), methods called on a struct's field (`q.p0.to_vec2()`), a trait
/// method's result (`self.eval(t)`), associated constants (`Vec2::ZERO`): each value's
/// struct is known, so the arithmetic on it calls the struct's operators.
mod geometry_as_kurbo_writes_it {
    use super::common::{assert_close, fd};
    use diff::prelude::*;
    use std::ops::{Add, AddAssign, Mul, Sub};

    #[derive(Differentiable, Clone, Copy, Debug)]
    pub struct Vec2 {
        pub x: f64,
        pub y: f64,
    }

    #[derive(Differentiable, Clone, Copy, Debug)]
    pub struct Point {
        pub x: f64,
        pub y: f64,
    }

    impl Vec2 {
        pub const ZERO: Vec2 = Vec2 { x: 0.0, y: 0.0 };

        #[differentiable]
        pub fn hypot(self) -> f64 {
            self.x.hypot(self.y)
        }
    }

    impl Point {
        pub const ORIGIN: Point = Point { x: 0.0, y: 0.0 };

        #[differentiable]
        pub fn to_vec2(self) -> Vec2 {
            Vec2 {
                x: self.x,
                y: self.y,
            }
        }
    }

    impl Sub for Point {
        type Output = Vec2;
        #[differentiable]
        fn sub(self, o: Point) -> Vec2 {
            Vec2 {
                x: self.x - o.x,
                y: self.y - o.y,
            }
        }
    }

    impl Add<Vec2> for Point {
        type Output = Point;
        #[differentiable]
        fn add(self, o: Vec2) -> Point {
            Point {
                x: self.x + o.x,
                y: self.y + o.y,
            }
        }
    }

    impl Add for Vec2 {
        type Output = Vec2;
        #[differentiable]
        fn add(self, o: Vec2) -> Vec2 {
            Vec2 {
                x: self.x + o.x,
                y: self.y + o.y,
            }
        }
    }

    impl AddAssign for Vec2 {
        #[differentiable]
        fn add_assign(&mut self, o: Vec2) {
            *self = Vec2 {
                x: self.x + o.x,
                y: self.y + o.y,
            }
        }
    }

    impl Mul<f64> for Vec2 {
        type Output = Vec2;
        #[differentiable]
        fn mul(self, s: f64) -> Vec2 {
            Vec2 {
                x: self.x * s,
                y: self.y * s,
            }
        }
    }

    pub trait Curve {
        #[differentiable]
        fn eval(&self, t: f64) -> Point;
    }

    #[derive(Differentiable, Clone, Copy, Debug)]
    pub struct Line {
        pub p0: Point,
        pub p1: Point,
    }

    impl Curve for Line {
        #[differentiable]
        fn eval(&self, t: f64) -> Point {
            self.p0 + (self.p1 - self.p0) * t
        }
    }

    impl Line {
        #[differentiable]
        fn shifted(&self, t: f64, v: Vec2) -> f64 {
            let p = self.eval(t);
            let q = p + v;
            q.x * q.y
        }
    }

    impl Point {
        /// kurbo's `Point::distance`.
        #[differentiable]
        pub fn distance(self, other: Point) -> f64 {
            let d: Vec2 = self - other;
            d.hypot()
        }
    }

    #[differentiable]
    fn gap(p: Point, q: Point) -> f64 {
        let d = (p - q) * 2.0;
        d.x + d.y * d.y
    }

    #[differentiable]
    fn of_a_field(l: Line, t: f64) -> f64 {
        let v = l.p0.to_vec2() * t + (l.p1 - Point::ORIGIN);
        v.x + v.y * t
    }

    #[differentiable]
    fn summed(s: f64) -> f64 {
        let v = Vec2 { x: s, y: s * s };
        let mut acc = Vec2::ZERO;
        acc += v;
        acc += v * 2.0;
        let w = acc + Vec2::ZERO;
        w.x * w.y
    }

    #[test]
    fn values_of_structs_known_by_what_gives_them() {
        let (p, q) = (Point { x: 1.0, y: 2.0 }, Point { x: 0.5, y: -1.0 });
        let (v, (gp, gq)) = value_with_gradient!(at: (p, q), of: gap);
        assert_close(v, gap(p, q), 1e-15, "value");
        // d = 2 (p - q): d.x + d.y^2, d.y = 6
        assert_close(gp.x, 2.0, 1e-12, "gp.x");
        assert_close(gp.y, 2.0 * 2.0 * 6.0, 1e-12, "gp.y");
        assert_close(gq.y, -24.0, 1e-12, "gq.y");

        let l = Line {
            p0: Point { x: 1.0, y: 2.0 },
            p1: Point { x: 3.0, y: 5.0 },
        };
        let t = 0.25;
        let (v, (gl, gt)) = value_with_gradient!(at: (l, t), of: of_a_field);
        assert_close(v, of_a_field(l, t), 1e-15, "value");
        // v = (p0 t + p1): v.x + v.y t
        assert_close(gl.p0.x, t, 1e-12, "p0.x");
        assert_close(gl.p0.y, t * t, 1e-12, "p0.y");
        assert_close(gl.p1.y, t, 1e-12, "p1.y");
        assert_close(gt, fd(|t| of_a_field(l, t), t), 1e-6, "t");

        let shift = Vec2 { x: 1.0, y: 1.0 };
        let d = first_derivative!(at: 0.5, of: |t: f64| l.shifted(t, shift));
        assert_close(
            d,
            fd(|t| l.shifted(t, shift), 0.5),
            1e-6,
            "through the trait method",
        );
        let g = gradient!(at: 0.5, of: |t: f64| l.shifted(t, shift));
        assert_close(g, d, 1e-12, "reverse");

        // |(s, 2)|'' = 4 / (s^2 + 4)^(3/2), through `Point - Point` giving a `Vec2`.
        let o = Point { x: 0.0, y: 0.0 };
        let far = |s: f64| Point { x: s, y: 2.0 }.distance(o);
        let (v, d1, d2) =
            value_with_second_derivative!(at: 1.5, of: |s: f64| Point { x: s, y: 2.0 }.distance(o));
        assert_close(v, far(1.5), 1e-15, "value");
        assert_close(d1, 1.5 / 2.5, 1e-12, "first");
        assert_close(d2, 4.0 / 6.25f64.powf(1.5), 1e-12, "second");

        // w = 3 (s, s^2): 9 s^3, 27 s^2
        let (v, d) = value_with_gradient!(at: 0.5, of: summed);
        assert_close(v, 9.0 * 0.125, 1e-15, "value");
        assert_close(d, 27.0 * 0.25, 1e-12, "constants of the struct");
    }
}

// ---------------------------------------------------------------------------------------
// In a crate with arithmetic of its own, a count carried beside a float (a fold's `(acc,
// n)` accumulator) is an integer: its arithmetic is integer arithmetic, also at second
// order.

#[differentiable]
fn mean_of_squares(xs: &[f64]) -> f64 {
    let (s, n) = xs.iter().fold((0.0, 0usize), |(acc, n): (f64, usize), v| {
        (acc + v * v, n + 1)
    });
    s / (n - usize::from(xs.is_empty())) as f64
}

#[test]
fn a_count_beside_a_float_in_a_fold() {
    let x = vec![1.0, 2.0, 3.0];
    let (v, g) = value_with_gradient!(at: &x, of: mean_of_squares);
    assert_eq!(v, mean_of_squares(&x));
    for (gi, xi) in g.iter().zip(&x) {
        assert_close(*gi, 2.0 * xi / 3.0, 1e-14, "d/dx mean of squares");
    }
    let h = hessian!(at: &x, of: mean_of_squares);
    for (i, row) in h.iter().enumerate() {
        for (j, hij) in row.iter().enumerate() {
            let want = if i == j { 2.0 / 3.0 } else { 0.0 };
            assert_close(*hij, want, 1e-14, "hessian of the mean of squares");
        }
    }
}

// An associated constant of a float type (`Self::SHIFT`) is a float: at second order,
// in a crate with arithmetic of its own, it meets dual numbers as a constant.
#[derive(Differentiable, Clone, Debug)]
pub struct Shifted {
    pub c: Vec<f64>,
}

impl Shifted {
    const SHIFT: f64 = 0.5;

    #[differentiable]
    pub fn eval(&self, t: f64) -> f64 {
        self.c
            .iter()
            .rev()
            .fold(0.0, |acc, c| acc * (t - Self::SHIFT) + c)
    }
}

#[test]
fn associated_float_constants_at_second_order() {
    // p(t) = 1 + 2 (t - 0.5) + 3 (t - 0.5)².
    let p = Shifted {
        c: vec![1.0, 2.0, 3.0],
    };
    let t = 1.0;
    let (v, d) = value_with_derivative!(at: t, of: |t: f64| p.eval(t));
    assert_eq!(v, p.eval(t));
    assert_close(d, 2.0 + 6.0 * (t - 0.5), 1e-14, "p'");
    assert_close(
        second_derivative!(at: t, of: |t: f64| p.eval(t)),
        6.0,
        1e-14,
        "p''",
    );
}
