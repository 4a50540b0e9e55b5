#![allow(clippy::assign_op_pattern)]
use diff::prelude::*;

#[differentiable]
fn step(x: &mut f64, k: f64) {
    *x = *x * k + k.sin();
}

#[differentiable]
fn scale_and_report(x: &mut f64, k: f64) -> f64 {
    let before = *x;
    *x *= k;
    before * k
}

#[differentiable]
fn run(x0: f64, k: f64) -> f64 {
    let mut x = x0;
    for _ in 0..3 {
        step(&mut x, k);
    }
    let r = scale_and_report(&mut x, 2.0);
    x + r
}

fn fd(f: impl Fn(f64, f64) -> f64, x: f64, k: f64) -> (f64, f64) {
    let h = 1e-6;
    (
        (f(x + h, k) - f(x - h, k)) / (2.0 * h),
        (f(x, k + h) - f(x, k - h)) / (2.0 * h),
    )
}

#[test]
fn mutable_parameters() {
    let mut y = 1.5;
    step(&mut y, 2.0);
    assert_eq!(y, 3.0 + 2f64.sin());
    for (x, k) in [(0.3, 0.7), (1.2, -0.4)] {
        let (gx, gk) = gradient!(at: (x, k), of: run);
        let (fx, fk) = fd(run, x, k);
        assert!(
            (gx - fx).abs() < 1e-6 && (gk - fk).abs() < 1e-6,
            "{gx} {fx} {gk} {fk}"
        );
        let dx = differential!(at: (x, k), of: run)((1.0, 0.0));
        let dk = differential!(at: (x, k), of: run)((0.0, 1.0));
        assert!((dx - gx).abs() < 1e-12 && (dk - gk).abs() < 1e-12);
    }
}

#[derive(Differentiable, Clone, Debug)]
struct Body {
    pos: f64,
    vel: f64,
}

impl Body {
    #[differentiable]
    fn advance(&mut self, dt: f64) {
        self.vel -= dt * self.pos;
        self.pos += dt * self.vel;
    }
}

#[differentiable]
fn simulate(p: f64, dt: f64) -> f64 {
    let mut b = Body { pos: p, vel: 0.0 };
    b.vel = 0.5 * p;
    for _ in 0..4 {
        Body::advance(&mut b, dt);
    }
    b.pos * b.vel
}

#[differentiable]
fn fill(x: f64, n: usize) -> f64 {
    let mut v = vec![0.0; n];
    let mut a = [0.0, 0.0];
    for i in 0..n {
        v[i] = x * (i as f64 + 1.0);
        a[i % 2] += v[i] * x;
    }
    v[n - 1] * a[0] + a[1]
}

#[test]
fn struct_fields_and_elements() {
    let h = 1e-6;
    for (p, dt) in [(0.3, 0.1), (1.2, 0.05)] {
        let (gp, gdt) = gradient!(at: (p, dt), of: simulate);
        let fp = (simulate(p + h, dt) - simulate(p - h, dt)) / (2.0 * h);
        let fdt = (simulate(p, dt + h) - simulate(p, dt - h)) / (2.0 * h);
        assert!(
            (gp - fp).abs() < 1e-6 && (gdt - fdt).abs() < 1e-6,
            "{gp} {fp} {gdt} {fdt}"
        );
        let d = first_derivative!(at: p, of: |p| simulate(p, dt));
        assert!((d - gp).abs() < 1e-12);
    }
    for x in [0.5, -1.5] {
        let g = gradient!(at: (x, 5), of: fill);
        let fx = (fill(x + h, 5) - fill(x - h, 5)) / (2.0 * h);
        assert!((g - fx).abs() < 1e-5, "{g} {fx}");
        assert!((first_derivative!(at: x, of: |x| fill(x, 5)) - g).abs() < 1e-12);
    }
}

#[derive(Differentiable, Clone, Debug)]
pub struct Spring {
    x: f64,
    v: f64,
}

impl Spring {
    #[differentiable]
    fn step(&mut self, dt: f64, k: f64) {
        self.v -= dt * k * self.x;
        self.x += dt * self.v;
    }

    #[differentiable]
    fn energy(&self, k: f64) -> f64 {
        0.5 * (k * self.x * self.x + self.v * self.v)
    }
}

#[differentiable]
fn spring_energy(x0: f64, k: f64) -> f64 {
    let mut s = Spring { x: x0, v: 0.0 };
    for _ in 0..3 {
        s.step(0.1, k);
    }
    s.energy(k)
}

#[test]
fn mutating_methods_called_with_method_syntax() {
    let h = 1e-6;
    for (x0, k) in [(1.0, 1.5), (-0.3, 0.7)] {
        let (gx, gk) = gradient!(at: (x0, k), of: spring_energy);
        let fx = (spring_energy(x0 + h, k) - spring_energy(x0 - h, k)) / (2.0 * h);
        let fk = (spring_energy(x0, k + h) - spring_energy(x0, k - h)) / (2.0 * h);
        assert!(
            (gx - fx).abs() < 1e-6 && (gk - fk).abs() < 1e-6,
            "{gx} {fx} {gk} {fk}"
        );
        let d = first_derivative!(at: x0, of: |x| spring_energy(x, k));
        assert!((d - gx).abs() < 1e-12);
    }
}

#[derive(Differentiable, Clone, Debug)]
pub struct Acc {
    v: f64,
}
impl Acc {
    #[differentiable]
    fn bump(&mut self, k: f64) {
        self.v = self.v * k + 1.0;
    }
    fn describe(&self) -> String {
        format!("{}", self.v)
    }
}
#[differentiable]
fn through_mut_param(a: &mut Acc, k: f64) {
    a.bump(k);
    a.bump(k);
}
#[differentiable]
fn run_acc(x: f64, k: f64) -> f64 {
    let mut a = Acc { v: x };
    through_mut_param(&mut a, k);
    a.v
}
#[differentiable]
fn shared(a: &Acc, k: f64) -> f64 {
    a.describe();
    a.v * k
}
#[test]
fn method_statements_through_mut_and_shared_parameters() {
    // v = (x k + 1) k + 1 = x k^2 + k + 1
    assert_eq!(
        gradient!(at: (2.0, 3.0), of: run_acc),
        (9.0, 2.0 * 2.0 * 3.0 + 1.0)
    );
    let g: (AccTangent, f64) = gradient!(at: (&Acc { v: 2.0 }, 3.0), of: shared);
    assert_eq!((g.0.v, g.1), (3.0, 2.0));
}
