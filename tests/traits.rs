//! Differentiable trait methods: declared in a trait (with or without a provided body),
//! implemented in `impl Trait for T`, and called on a concrete type or through a generic
//! `T: Trait`. The trait marks its differentiable methods, and each implementation marks
//! its own; `#[differentiable]` on the trait or an impl block says what the macro also
//! reads from the source (both ways are tested).
mod common;
use common::{assert_close, fd};
use diff::prelude::*;

#[differentiable]
trait Objective {
    /// Declared: every implementation defines it.
    #[differentiable]
    fn value(&self, x: f64) -> f64;

    /// Provided: differentiated once here, for every implementation that keeps it.
    #[differentiable]
    fn doubled(&self, x: f64) -> f64 {
        2.0 * self.value(x) + x
    }

    /// Only `x` is differentiated, in the trait and in every implementation.
    #[differentiable(wrt = (x))]
    fn shifted(&self, x: f64) -> f64;

    /// Not differentiable: the trait's other methods stay as they are.
    fn name(&self) -> &'static str {
        "objective"
    }
}

#[derive(Clone, Debug, Differentiable)]
struct Quadratic {
    a: f64,
}

/// Marks on the methods are enough for an impl of a type without generic parameters.
impl Objective for Quadratic {
    #[differentiable]
    fn value(&self, x: f64) -> f64 {
        self.a * x * x
    }

    #[differentiable(wrt = (x))]
    fn shifted(&self, x: f64) -> f64 {
        self.a * x + 1.0
    }
}

#[derive(Clone, Debug, Differentiable)]
struct Wave {
    b: f64,
    c: f64,
}

/// Overrides the provided method: the override is what is differentiated.
impl Objective for Wave {
    #[differentiable]
    fn value(&self, x: f64) -> f64 {
        self.b * x.sin() + self.c
    }

    #[differentiable]
    fn doubled(&self, x: f64) -> f64 {
        3.0 * self.value(x)
    }

    #[differentiable(wrt = (x))]
    fn shifted(&self, x: f64) -> f64 {
        x.exp()
    }

    fn name(&self) -> &'static str {
        "wave"
    }
}

/// A generic type: `#[differentiable]` on the impl tells the macro its parameters.
#[derive(Clone, Debug, Differentiable)]
struct Poly<const N: usize> {
    c: [f64; N],
}

#[differentiable]
impl<const N: usize> Objective for Poly<N> {
    #[differentiable]
    fn value(&self, x: f64) -> f64 {
        let mut acc = 0.0;
        for i in 0..N {
            acc = acc * x + self.c[i];
        }
        acc
    }

    #[differentiable(wrt = (x))]
    fn shifted(&self, x: f64) -> f64 {
        self.value(x) - 1.0
    }
}

/// Through a generic `T: Objective`, with respect to `x` only. The trait's methods are
/// differentiated with respect to `self` too, so `T` is `Differentiable`.
#[differentiable(wrt = (x))]
fn evaluate<T: Objective + Differentiable>(m: &T, x: f64) -> f64 {
    m.doubled(x) * x + m.shifted(x)
}

/// Through a generic `T: Objective + Differentiable`, with respect to the model too.
#[differentiable]
fn evaluate_model<T: Objective + Differentiable>(m: &T, x: f64) -> f64 {
    m.doubled(x) * x
}

#[test]
fn through_a_generic_parameter() {
    let q = Quadratic { a: 3.0 };
    let x = 2.0;
    let (v, g) = value_with_gradient!(at: x, of: |x| evaluate(&q, x));
    assert_eq!(v, evaluate(&q, x));
    // (2 a x^2 + x) x + a x + 1
    assert_close(
        g,
        6.0 * 3.0 * x * x + 2.0 * x + 3.0,
        1e-12,
        "d/dx evaluate(Quadratic)",
    );

    let w = Wave { b: 2.0, c: 0.5 };
    let (v, g) = value_with_gradient!(at: x, of: |x| evaluate(&w, x));
    assert_eq!(v, evaluate(&w, x));
    assert_close(g, fd(|x| evaluate(&w, x), x), 1e-6, "d/dx evaluate(Wave)");

    let p = Poly {
        c: [1.0, -2.0, 0.5],
    };
    let (v, g) = value_with_gradient!(at: x, of: |x| evaluate(&p, x));
    assert_eq!(v, evaluate(&p, x));
    assert_close(g, fd(|x| evaluate(&p, x), x), 1e-6, "d/dx evaluate(Poly)");
}

#[test]
fn with_respect_to_the_implementing_type() {
    let q = Quadratic { a: 3.0 };
    let x = 2.0;
    let (dq, dx) = gradient!(at: (q.clone(), x), of: |q, x| evaluate_model(&q, x));
    // (2 a x^2 + x) x: d/da = 2 x^3, d/dx = 6 a x^2 + 2 x
    assert_close(dq.a, 2.0 * x * x * x, 1e-12, "d/da");
    assert_close(dx, 6.0 * 3.0 * x * x + 2.0 * x, 1e-12, "d/dx");

    let w = Wave { b: 2.0, c: 0.5 };
    let dw = gradient!(at: w.clone(), of: |w| evaluate_model(&w, x));
    // 3 (b sin x + c) x
    assert_close(dw.b, 3.0 * x.sin() * x, 1e-12, "d/db");
    assert_close(dw.c, 3.0 * x, 1e-12, "d/dc");

    let p = Poly {
        c: [1.0, -2.0, 0.5],
    };
    let dp = gradient!(at: p.clone(), of: |p| evaluate_model(&p, x));
    // 2 (c0 x^2 + c1 x + c2) x + x^2: d/dc_i = 2 x^(3-i)
    assert_close(dp.c[0], 2.0 * x.powi(3), 1e-12, "d/dc0");
    assert_close(dp.c[1], 2.0 * x.powi(2), 1e-12, "d/dc1");
    assert_close(dp.c[2], 2.0 * x, 1e-12, "d/dc2");
}

#[test]
fn on_the_concrete_type() {
    let q = Quadratic { a: 1.5 };
    let x = -0.7;
    // A provided method, through the operators and in forward mode.
    let (v, g) = value_with_gradient!(at: x, of: |x| q.doubled(x));
    assert_eq!(v, q.doubled(x));
    assert_close(g, 4.0 * 1.5 * x + 1.0, 1e-12, "d/dx doubled");
    let d = first_derivative!(at: x, of: |x| q.doubled(x));
    assert_close(d, 4.0 * 1.5 * x + 1.0, 1e-12, "forward d/dx doubled");
    // By path, with the receiver as the first input.
    let (dq, dx) = gradient!(at: (&q, x), of: Quadratic::value);
    assert_close(dq.a, x * x, 1e-12, "d/da value");
    assert_close(dx, 2.0 * 1.5 * x, 1e-12, "d/dx value");
    // The trait's other methods are untouched.
    assert_eq!(q.name(), "objective");
    assert_eq!(Wave { b: 1.0, c: 0.0 }.name(), "wave");
}

/// A differentiable function calling trait methods on a value it builds.
#[differentiable]
fn fit(a: f64, x: f64) -> f64 {
    let q = Quadratic { a };
    q.doubled(x) + Objective::value(&q, x)
}

#[test]
fn called_by_trait_path_on_a_local_value() {
    let (a, x) = (0.8, 1.9);
    let (v, (da, dx)) = value_with_gradient!(at: (a, x), of: fit);
    assert_eq!(v, fit(a, x));
    // 3 a x^2 + x
    assert_close(da, 3.0 * x * x, 1e-12, "d/da");
    assert_close(dx, 6.0 * a * x + 1.0, 1e-12, "d/dx");
    let dx_forward = first_derivative!(at: x, of: |x| fit(a, x));
    assert_close(dx_forward, 6.0 * a * x + 1.0, 1e-12, "forward d/dx");
}

// The same without `#[differentiable]` on the trait or on a generic impl: the macro reads
// the blocks around each method. A wrapper delegates to its inner value's method of the
// same name, which is not a recursive call.

trait Energy {
    #[differentiable]
    fn energy(&self, x: f64) -> f64;

    #[differentiable]
    fn with_drift(&self, x: f64) -> f64 {
        2.0 * self.energy(x) + x.sin()
    }
}

#[derive(Differentiable, Clone, Debug)]
struct Spring {
    k: f64,
}

impl Energy for Spring {
    #[differentiable]
    fn energy(&self, x: f64) -> f64 {
        0.5 * self.k * x * x
    }
}

#[derive(Differentiable, Clone, Debug)]
struct Scaled<T> {
    inner: T,
    by: f64,
}

impl<T: Energy + Differentiable> Energy for Scaled<T> {
    #[differentiable]
    fn energy(&self, x: f64) -> f64 {
        self.by * self.inner.energy(x)
    }
}

#[differentiable]
fn total_energy<T: Energy + Differentiable>(m: &T, x: f64) -> f64 {
    m.with_drift(x) + m.energy(x)
}

#[test]
fn unmarked_trait_and_generic_impl_delegating_to_a_field() {
    let s = Spring { k: 3.0 };
    let w = Scaled {
        inner: s.clone(),
        by: 2.0,
    };
    for x in [0.5, -1.25] {
        let (v, g) = value_with_gradient!(at: x, of: |x| total_energy(&s, x));
        assert_eq!(v, total_energy(&s, x));
        // 1.5 k x^2 + sin x
        assert_close(g, 3.0 * 3.0 * x + x.cos(), 1e-12, "spring");
        let g = gradient!(at: x, of: |x| total_energy(&w, x));
        assert_close(g, 2.0 * 3.0 * 3.0 * x + x.cos(), 1e-12, "scaled");
        let d = first_derivative!(at: x, of: |x| total_energy(&w, x));
        assert_close(d, g, 1e-12, "forward against reverse");
        // With respect to the model: d/dk of 1.5 by k x^2.
        let gm = gradient!(at: w.clone(), of: |m: Scaled<Spring>| total_energy(&m, x));
        assert_close(gm.inner.k, 1.5 * 2.0 * x * x, 1e-12, "d/dk");
        assert_close(
            gm.by,
            fd(
                |b| {
                    total_energy(
                        &Scaled {
                            inner: s.clone(),
                            by: b,
                        },
                        x,
                    )
                },
                2.0,
            ),
            1e-6,
            "d/dby",
        );
    }
}
