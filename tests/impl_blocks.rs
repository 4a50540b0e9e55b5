//! Differentiable functions in `impl` blocks: associated functions with and without a
//! receiver, types named by one capital letter, generic impls and trait impls. With
//! `#[differentiable]` on the block, the macro knows the functions are associated ones.
mod common;
use common::{assert_close, fd};
use diff::prelude::*;

/// A type whose name is one capital letter, as in tests ported from other systems.
#[derive(Clone, Copy, Debug, PartialEq, Differentiable)]
struct A {
    v: f64,
}

#[differentiable]
impl A {
    /// No receiver, no `Self`: only the block's attribute says it is associated.
    #[differentiable]
    fn times(a: A, b: A) -> A {
        A { v: a.v * b.v }
    }

    #[differentiable]
    fn new(v: f64) -> A {
        A { v: v.sin() }
    }

    #[differentiable]
    fn value(self) -> f64 {
        self.v
    }

    /// Not differentiable: left alone.
    fn describe(&self) -> String {
        format!("A({})", self.v)
    }
}

#[differentiable]
fn through_associated(x: f64) -> f64 {
    A::times(A::new(x), A::new(x * 2.0)).value()
}

fn through_associated_plain(x: f64) -> f64 {
    A::times(A::new(x), A::new(x * 2.0)).value()
}

#[test]
fn associated_functions_without_receiver() {
    assert_eq!(A::new(0.5).describe(), format!("A({})", 0.5f64.sin()));
    for x in [0.3, 1.1, -2.0] {
        let (v, d) = value_with_gradient!(at: x, of: through_associated);
        assert_eq!(v, through_associated_plain(x));
        // d/dx sin(x) sin(2x) = cos(x) sin(2x) + 2 sin(x) cos(2x).
        let expected = x.cos() * (2.0 * x).sin() + 2.0 * x.sin() * (2.0 * x).cos();
        assert_close(d, expected, 1e-12, "formula");
        assert_close(
            d,
            fd(through_associated_plain, x),
            1e-7,
            "finite differences",
        );
        let forward = first_derivative!(at: x, of: through_associated);
        assert_close(forward, expected, 1e-12, "forward mode");
    }
}

#[derive(Clone, Copy, Debug, Differentiable)]
struct P<T: Float> {
    x: T,
    y: T,
}

#[differentiable]
impl<T: Float> P<T> {
    /// `T` is the block's float parameter: a scalar, known from the block.
    #[differentiable]
    fn dot(a: P<T>, b: P<T>) -> T {
        a.x * b.x + a.y * b.y
    }
}

#[differentiable]
fn norm2(x: f64, y: f64) -> f64 {
    let p = P { x, y };
    P::dot(p, p)
}

#[test]
fn generic_impl_block() {
    let (v, (dx, dy)) = value_with_gradient!(at: (1.5, -0.5), of: norm2);
    assert_eq!(v, norm2(1.5, -0.5));
    assert_eq!(v, 2.5);
    assert_close(dx, 3.0, 1e-12, "d/dx (x^2 + y^2)");
    assert_close(dy, -1.0, 1e-12, "d/dy (x^2 + y^2)");
}

/// A trait impl's methods implement the companions the trait declares: the trait marks
/// the method too (more in `traits.rs`).
trait Objective {
    #[differentiable]
    fn objective(&self, t: f64) -> f64;
}

#[derive(Clone, Copy, Debug, Differentiable)]
struct Model {
    k: f64,
}

#[differentiable]
impl Objective for Model {
    #[differentiable]
    fn objective(&self, t: f64) -> f64 {
        (self.k * t).exp()
    }
}

#[differentiable]
fn fit(k: f64, t: f64) -> f64 {
    let m = Model { k };
    m.objective(t)
}

#[test]
fn trait_impl_method_called_on_the_type() {
    let (k, t) = (0.7, 1.3);
    let (v, (dk, dt)) = value_with_gradient!(at: (k, t), of: fit);
    assert_eq!(v, Model { k }.objective(t));
    assert_close(dk, t * (k * t).exp(), 1e-12, "d/dk");
    assert_close(dt, k * (k * t).exp(), 1e-12, "d/dt");
}

// Blocks without the attribute: the macro reads where each function is written.

/// One capital letter again, in an unmarked block: associated functions without a
/// receiver, named by the type's name rather than `Self`.
#[derive(Clone, Copy, Debug, PartialEq, Differentiable)]
struct Q {
    x: f64,
    y: f64,
}

impl Q {
    #[differentiable]
    fn new(x: f64, y: f64) -> Q {
        Q {
            x: x * y,
            y: y.exp(),
        }
    }

    #[differentiable]
    fn dot(a: Q, b: Q) -> f64 {
        a.x * b.x + a.y * b.y
    }

    #[differentiable]
    fn norm2(&self) -> f64 {
        Q::dot(*self, *self)
    }
}

/// A unit struct grouping functions, with a generic block.
struct Ops<T>(std::marker::PhantomData<T>);

impl<T: Float> Ops<T> {
    #[differentiable]
    fn horner(c: &[T], x: T) -> T {
        let n = c.len();
        let mut acc = c[n - 1];
        for k in (0..n - 1).rev() {
            acc = acc * x + c[k];
        }
        acc
    }
}

#[differentiable]
fn through_unmarked_blocks(x: f64) -> f64 {
    let p = Q::new(x, 2.0 * x);
    p.norm2() + Ops::<f64>::horner(&[1.0, x, 3.0], x)
}

#[test]
fn associated_functions_in_unmarked_blocks() {
    for x in [0.3, -0.8] {
        let (v, g) = value_with_gradient!(at: x, of: through_unmarked_blocks);
        assert_eq!(v, through_unmarked_blocks(x));
        assert_close(g, fd(through_unmarked_blocks, x), 1e-6, "reverse");
        let d = first_derivative!(at: x, of: through_unmarked_blocks);
        assert_close(d, g, 1e-12, "forward against reverse");
    }
    let (gx, gy) = gradient!(at: (0.5, 0.25), of: Q::new_dot_helper);
    assert_close(gx, fd(|x| Q::new_dot_helper(x, 0.25), 0.5), 1e-6, "by path");
    assert_close(gy, fd(|y| Q::new_dot_helper(0.5, y), 0.25), 1e-6, "by path");
    let c = vec![1.0, -2.0, 0.5];
    let (v, gc) = value_with_gradient!(at: &c, of: |c: &[f64]| Ops::<f64>::horner(c, 2.0));
    assert_eq!(v, 1.0 - 2.0 * 2.0 + 0.5 * 4.0);
    assert_eq!(gc, vec![1.0, 2.0, 4.0]);
}

impl Q {
    #[differentiable]
    fn new_dot_helper(x: f64, y: f64) -> f64 {
        Q::dot(Q::new(x, y), Q::new(y, x))
    }
}

/// A trait that does not mark its method, implemented in a block marked
/// `#[differentiable]`: the method is differentiable as a method of the type.
trait Scored {
    fn value(&self, x: &[f64]) -> f64;
}

/// Neither Differentiable nor `Clone`.
struct Cubic {
    k: f64,
}

#[differentiable]
impl Scored for Cubic {
    #[differentiable]
    fn value(&self, x: &[f64]) -> f64 {
        self.k * x.iter().map(|v| v.powi(3)).sum::<f64>()
    }
}

#[test]
fn a_method_of_a_trait_that_does_not_mark_it() {
    let m = Cubic { k: 2.0 };
    let x = vec![0.5, -1.0];
    let (v, g) = value_with_gradient!(at: &x, of: |p: &[f64]| m.value(p));
    assert_eq!(v, m.value(&x));
    assert_eq!(g, vec![6.0 * 0.25, 6.0]);
}

/// `#[differentiable]` on a block marking none of its functions: each whose result can
/// carry a derivative is differentiated (`new`, `sigma`, `log_pdf`, `nll`); the others
/// (`name`, a `String`; `count`, an integer) and one the macro cannot differentiate
/// (`raw`, an `unsafe` block) are left as they are, without an error.
#[derive(Differentiable, Clone, Debug)]
struct Gaussian {
    mu: f64,
    log_sigma: f64,
}

#[differentiable]
impl Gaussian {
    fn new(mu: f64, sigma: f64) -> Self {
        Gaussian {
            mu,
            log_sigma: sigma.ln(),
        }
    }

    fn sigma(&self) -> f64 {
        self.log_sigma.exp()
    }

    fn log_pdf(&self, x: f64) -> f64 {
        let s = self.sigma();
        let z = (x - self.mu) / s;
        -0.5 * z * z - s.ln() - 0.5 * (2.0 * std::f64::consts::PI).ln()
    }

    fn nll(&self, xs: &[f64]) -> f64 {
        -xs.iter().map(|&x| self.log_pdf(x)).sum::<f64>()
    }

    fn name(&self) -> String {
        format!("N({}, {})", self.mu, self.sigma())
    }

    fn count(&self, xs: &[f64]) -> usize {
        xs.iter().filter(|x| **x > self.mu).count()
    }

    #[allow(unused_unsafe)]
    fn raw(&self) -> f64 {
        unsafe { self.mu }
    }
}

#[test]
fn a_block_marking_none_differentiates_what_it_can() {
    let xs = [1.0, 2.0, 1.5, 2.5, 0.5];
    let nll = |mu: f64, ls: f64| Gaussian { mu, log_sigma: ls }.nll(&xs);
    let g = Gaussian {
        mu: 1.2,
        log_sigma: -0.3,
    };
    let (value, d) = value_with_gradient!(at: g.clone(), of: |g: Gaussian| g.nll(&xs));
    assert_close(value, nll(1.2, -0.3), 1e-15, "value");
    assert_close(d.mu, fd(|m| nll(m, -0.3), 1.2), 1e-6, "d mu");
    assert_close(d.log_sigma, fd(|l| nll(1.2, l), -0.3), 1e-6, "d log sigma");
    // d log(sigma) / d sigma = 1 / sigma, through the associated function.
    let slope = first_derivative!(at: 2.0, of: |s: f64| Gaussian::new(0.0, s).log_sigma);
    assert_close(slope, 0.5, 1e-15, "d new");
    // Second order: d2 nll / d mu2 = n / sigma^2.
    let h = hessian!(at: vec![1.2, -0.3], of: |v: Vec<f64>| nll_at(&v, &xs));
    let sigma = (-0.3f64).exp();
    assert_close(h[0][0], 5.0 / (sigma * sigma), 1e-10, "h mu mu");
    assert_eq!(g.name(), format!("N(1.2, {})", g.sigma()));
    assert_eq!(g.count(&xs), 3);
    assert_eq!(g.raw(), 1.2);
}

#[differentiable]
fn nll_at(v: &[f64], xs: &[f64]) -> f64 {
    Gaussian {
        mu: v[0],
        log_sigma: v[1],
    }
    .nll(xs)
}

/// A block marking none of its functions differentiates one that returns nothing and
/// changes `self` through `&mut self`: what it changes is its result.
#[derive(Differentiable, Clone, Copy, Debug)]
struct Ball {
    pos: [f64; 2],
    vel: [f64; 2],
}

#[differentiable]
impl Ball {
    fn step(&mut self, g: f64, dt: f64) {
        self.vel[1] -= g * dt;
        for k in 0..2 {
            self.pos[k] += self.vel[k] * dt;
        }
    }

    fn reset_count(&mut self, n: &mut usize) {
        *n = 0;
    }
}

#[differentiable]
fn flight(v0: f64, g: f64) -> f64 {
    let mut b = Ball {
        pos: [0.0, 0.0],
        vel: [v0, v0],
    };
    for _ in 0..10 {
        b.step(g, 0.1);
    }
    b.pos[0] * b.pos[1]
}

#[test]
fn a_block_marking_none_differentiates_a_method_changing_self() {
    let (v0, g) = (3.0, 9.8);
    let (value, (dv, dg)) = value_with_gradient!(at: (v0, g), of: flight);
    assert_eq!(value, flight(v0, g));
    assert_close(dv, fd(|t| flight(t, g), v0), 1e-6, "d v0");
    assert_close(dg, fd(|t| flight(v0, t), g), 1e-6, "d g");
    let dv_forward = first_derivative!(at: v0, of: |t: f64| flight(t, g));
    assert_close(dv_forward, dv, 1e-12, "forward vs reverse");
    let h = hessian!(at: (v0, g), of: flight);
    let dd = fd(|t| gradient!(at: (t, g), of: flight).0, v0);
    assert_close(h[0][0], dd, 1e-5, "h v0 v0");
    let mut n = 3;
    Ball {
        pos: [0.0; 2],
        vel: [0.0; 2],
    }
    .reset_count(&mut n);
    assert_eq!(n, 0);
}

/// Methods and associated functions calling each other back (mutual recursion).
#[derive(Differentiable, Clone, Debug)]
struct Chain {
    k: f64,
}

impl Chain {
    #[differentiable]
    fn down(&self, x: f64, n: usize) -> f64 {
        if n == 0 {
            x * self.k
        } else {
            self.up(x * 1.1, n - 1).sin()
        }
    }

    #[differentiable]
    fn up(&self, x: f64, n: usize) -> f64 {
        if n == 0 {
            x * x
        } else {
            self.down(x, n - 1) * x
        }
    }

    #[differentiable]
    fn left(x: f64, n: usize) -> f64 {
        if n == 0 {
            x
        } else {
            Chain::right(x, n - 1).cos()
        }
    }

    #[differentiable]
    fn right(x: f64, n: usize) -> f64 {
        if n == 0 {
            x * x
        } else {
            Self::left(x, n - 1) * x
        }
    }
}

#[test]
fn methods_calling_each_other_back() {
    let c = Chain { k: 2.0 };
    for x in [0.5, 0.9] {
        let (v, g) = value_with_gradient!(at: x, of: |x: f64| c.down(x, 4));
        assert_eq!(v, c.down(x, 4));
        assert_close(g, fd(|x| c.down(x, 4), x), 1e-7, "down");
        let (v, g) = value_with_gradient!(at: x, of: |x: f64| Chain::left(x, 5));
        assert_eq!(v, Chain::left(x, 5));
        assert_close(g, fd(|x| Chain::left(x, 5), x), 1e-7, "left");
        let d = first_derivative!(at: x, of: |x: f64| Chain::left(x, 5));
        assert_close(d, g, 1e-12, "forward");
    }
}

/// Methods named like an iterator's adapters (a filter's `filter`, a map's `map`), taking
/// a slice rather than a closure: calls of the struct's methods, in bodies and in
/// operators' closures.
mod methods_named_like_adapters {
    use super::*;

    #[derive(Differentiable, Clone, Copy, Debug)]
    pub struct Gain {
        pub k: f64,
    }

    impl Gain {
        #[differentiable]
        pub fn filter(&self, x: &[f64]) -> Vec<f64> {
            x.iter().map(|v| v * self.k).collect()
        }

        #[differentiable]
        pub fn map(&self, x: f64) -> f64 {
            self.k * x * x
        }
    }

    #[differentiable]
    fn loss(g: &Gain, x: &[f64], target: &[f64]) -> f64 {
        let y = g.filter(x);
        let mut s = 0.0;
        for (a, b) in y.iter().zip(target) {
            s += (a - b) * (a - b);
        }
        s + g.map(x[0])
    }

    #[test]
    fn in_bodies_and_closures() {
        let x = vec![1.0, 2.0];
        let t = vec![0.5, 0.0];
        let gain = Gain { k: 2.0 };
        let (v, g) = value_with_gradient!(at: &x, of: |p: &[f64]| loss(&gain, p, &t));
        assert_eq!(v, loss(&gain, &x, &t));
        // 2 k (k x - t) for each element, and 2 k x[0] from `map`.
        assert_close(
            g[0],
            2.0 * 2.0 * (2.0 - 0.5) + 2.0 * 2.0 * 1.0,
            1e-12,
            "d/dx0",
        );
        assert_close(g[1], 2.0 * 2.0 * 4.0, 1e-12, "d/dx1");
        let j = jacobian!(at: &x, of: |s: &[f64]| gain.filter(s));
        assert_eq!(j, vec![vec![2.0, 0.0], vec![0.0, 2.0]]);
        let d = first_derivative!(at: 1.5, of: |u: f64| gain.map(u));
        assert_close(d, fd(|u| gain.map(u), 1.5), 1e-7, "d map");
    }
}

/// A method named like a local variable of a function it calls (CppAD's `det` and the
/// `det` its helper computes): the local is not a call back to the method.
mod method_named_like_a_local_of_its_callee {
    use super::*;

    #[allow(clippy::let_and_return)]
    #[differentiable]
    fn helper(a: &[f64]) -> f64 {
        let det = a[0] * a[3] - a[1] * a[2];
        det
    }

    #[derive(Differentiable, Clone, Debug)]
    struct M2 {
        data: Vec<f64>,
    }

    impl M2 {
        #[differentiable]
        fn det(&self) -> f64 {
            helper(&self.data)
        }
    }

    #[differentiable]
    fn total(data: Vec<f64>) -> f64 {
        let m = M2 { data };
        m.det()
    }

    #[test]
    fn differentiated() {
        let x = vec![1.0, 2.0, 3.0, 4.0];
        let (v, g) = value_with_gradient!(at: x.clone(), of: total);
        assert_eq!(v, -2.0);
        assert_eq!(g, vec![4.0, -3.0, -2.0, 1.0]);
    }
}
