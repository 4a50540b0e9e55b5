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
