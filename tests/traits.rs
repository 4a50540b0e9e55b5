//! Differentiable trait methods: declared in a trait (with or without a provided body),
//! implemented in `impl Trait for T`, and called on a concrete type or through a generic
//! `T: Trait`. The trait marks its differentiable methods, and each implementation marks
//! its own; `#[differentiable]` on the trait or an impl block says what the macro also
//! reads from the source (both ways are tested).
mod common;
use common::{assert_close, assert_vec_close, fd};
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
    // Second order builds (the method called by the trait's path goes to the struct's
    // dual twin) and declines where it runs into the provided method, naming it.
    let declined = std::panic::catch_unwind(|| second_derivative!(at: x, of: |x| fit(a, x)));
    let message = declined
        .expect_err("declined")
        .downcast::<String>()
        .unwrap();
    assert!(
        message.contains("`doubled` is provided by its trait"),
        "{message}"
    );
}

/// A value built in the body and passed to a function generic over the trait: the
/// first derivative compiles and is exact; second order declines at run time (the
/// struct's dual twin does not implement the user's trait), never at compile time.
#[differentiable]
fn fit_through_generic(a: f64, x: f64) -> f64 {
    let q = Quadratic { a };
    evaluate_model(&q, x) + x
}

#[test]
fn a_local_value_through_a_generic_function() {
    let (a, x) = (0.8, 1.9);
    let (v, (da, dx)) = value_with_gradient!(at: (a, x), of: fit_through_generic);
    assert_eq!(v, fit_through_generic(a, x));
    // (2 a x^2 + x) x + x
    assert_close(da, 2.0 * x * x * x, 1e-12, "d/da");
    assert_close(dx, 6.0 * a * x * x + 2.0 * x + 1.0, 1e-12, "d/dx");
    let declined = std::panic::catch_unwind(|| hessian!(at: (a, x), of: fit_through_generic));
    let message = declined
        .expect_err("declined")
        .downcast::<String>()
        .expect("a message");
    assert!(message.contains("second order"), "{message}");
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

// Implementations of a type that is not Differentiable (an objective holding its data):
// the receiver is left out of the derivative, as any parameter of such a type is, and
// the trait's methods are called through `T: Cost` with no `Differentiable` bound.

trait Cost {
    #[differentiable]
    fn cost(&self, x: &[f64]) -> f64;

    /// Provided, calling the declared method.
    #[differentiable]
    fn penalized(&self, x: &[f64]) -> f64 {
        self.cost(x) + 0.5 * x.iter().map(|v| v * v).sum::<f64>()
    }
}

/// Holds data, and is not Differentiable.
struct LeastSquares {
    targets: Vec<f64>,
}

impl Cost for LeastSquares {
    #[differentiable]
    fn cost(&self, x: &[f64]) -> f64 {
        x.iter()
            .zip(&self.targets)
            .map(|(a, t)| (a - t) * (a - t))
            .sum()
    }
}

/// A unit struct, not Differentiable either.
struct Rosenbrock;

impl Cost for Rosenbrock {
    #[differentiable]
    fn cost(&self, x: &[f64]) -> f64 {
        (1.0 - x[0]).powi(2) + 100.0 * (x[1] - x[0] * x[0]).powi(2)
    }
}

/// A Differentiable implementation of the same trait: differentiable with respect to
/// itself where a caller asks.
#[derive(Differentiable, Clone, Debug)]
struct Weighted {
    w: f64,
}

impl Cost for Weighted {
    #[differentiable]
    fn cost(&self, x: &[f64]) -> f64 {
        self.w * x[0] * x[1]
    }
}

/// Gradient descent on any `T: Cost`, as a user writes it: no `Differentiable` bound.
fn descend<T: Cost>(c: &T, mut x: Vec<f64>, steps: usize, rate: f64) -> Vec<f64> {
    for _ in 0..steps {
        let g = gradient!(at: &x, of: |p: &[f64]| c.penalized(p));
        for (xi, gi) in x.iter_mut().zip(&g) {
            *xi -= rate * gi;
        }
    }
    x
}

/// A differentiable function generic over `T: Cost` only.
#[differentiable]
fn scaled_cost<T: Cost>(c: &T, x: &[f64], k: f64) -> f64 {
    k * c.cost(x)
}

#[test]
fn implementations_of_a_type_that_is_not_differentiable() {
    let ls = LeastSquares {
        targets: vec![1.0, -2.0],
    };
    let x = vec![0.5, 0.5];
    let (v, g) = value_with_gradient!(at: &x, of: |p: &[f64]| ls.cost(p));
    assert_eq!(v, ls.cost(&x));
    assert_eq!(g, vec![2.0 * (0.5 - 1.0), 2.0 * (0.5 + 2.0)]);
    // Through the provided method, and through a generic function with no bound.
    let g = gradient!(at: &x, of: |p: &[f64]| ls.penalized(p));
    assert_eq!(g, vec![2.0 * (0.5 - 1.0) + 0.5, 2.0 * (0.5 + 2.0) + 0.5]);
    let (gx, gk) = gradient!(at: (&x, 3.0), of: |p: &[f64], k: f64| scaled_cost(&ls, p, k));
    assert_eq!(gk, ls.cost(&x));
    assert_vec_close(&gx, &[-3.0, 15.0], 1e-12, "scaled");
    // One step of descent with each: the penalized gradient is (2 (x - t) + x).
    let after = descend(&ls, x.clone(), 1, 0.1);
    assert_vec_close(
        &after,
        &[0.5 - 0.1 * -0.5, 0.5 - 0.1 * 5.5],
        1e-12,
        "descent",
    );
    let r = descend(&Rosenbrock, vec![-1.0, 1.0], 1, 0.001);
    // ∇ = (-2 (1 - x) - 400 x (y - x²) + x, 200 (y - x²) + y) at (-1, 1) = (-5, 1).
    assert_vec_close(&r, &[-1.0 + 0.005, 1.0 - 0.001], 1e-12, "rosenbrock");
    // Forward mode and second order on a constant receiver.
    let d = first_derivative!(at: 0.5, of: |t| Rosenbrock.cost(&[t, 0.5]));
    assert_close(d, fd(|t| Rosenbrock.cost(&[t, 0.5]), 0.5), 1e-6, "forward");
    let h = hessian!(at: &vec![-1.0, 1.0], of: |p: &[f64]| Rosenbrock.cost(p));
    assert_eq!(h, vec![vec![802.0, 400.0], vec![400.0, 200.0]]);
}

#[test]
fn a_differentiable_implementation_of_the_same_trait() {
    let m = Weighted { w: 2.0 };
    let x = vec![3.0, -1.0];
    // With respect to the model, and to the input with the model held constant.
    let (v, gm) = value_with_gradient!(at: m.clone(), of: |m: Weighted| m.cost(&x));
    assert_eq!((v, gm.w), (m.cost(&x), -3.0));
    let gx = gradient!(at: &x, of: |p: &[f64]| m.penalized(p));
    // w x1 + x0, w x0 + x1
    assert_eq!(gx, vec![-2.0 + 3.0, 6.0 - 1.0]);
    assert_eq!(descend(&m, x.clone(), 1, 0.5), vec![3.0 - 0.5, -1.0 - 2.5]);
}

/// A trait of the crate declaring, unmarked, a method named like a float method the
/// library differentiates (`abs`, `tanh`): a call of the float method is the float's,
/// not refused as the trait's.
pub trait Magnitude {
    fn abs(&self) -> f64;
    fn tanh(&self) -> f64;
}

pub struct Pair(f64, f64);

impl Magnitude for Pair {
    fn abs(&self) -> f64 {
        self.0.hypot(self.1)
    }
    fn tanh(&self) -> f64 {
        self.abs().tanh()
    }
}

#[differentiable]
fn float_methods_named_like_a_traits(x: f64) -> f64 {
    x.abs() * x.tanh()
}

#[test]
fn float_methods_beside_a_trait_declaring_their_names() {
    let x = -0.7f64;
    let g = gradient!(at: x, of: float_methods_named_like_a_traits);
    assert_close(g, fd(|t: f64| t.abs() * t.tanh(), x), 1e-6, "abs tanh");
    assert_eq!(Pair(3.0, 4.0).abs(), 5.0);
    assert_close(Pair(3.0, 4.0).tanh(), 5f64.tanh(), 1e-15, "pair");
}

// A trait whose attribute marks none of its methods differentiates each returning a
// float (declared or provided), not one returning a `String`; so do `impl` blocks marked
// as a whole.
#[differentiable]
trait Model {
    fn predict(&self, x: f64) -> f64;
    fn loss(&self, data: &[(f64, f64)]) -> f64 {
        let mut s = 0.0;
        for &(x, y) in data {
            let r = self.predict(x) - y;
            s += r * r;
        }
        s / data.len() as f64
    }
    fn label(&self) -> String;
}

#[derive(Differentiable, Clone, Debug)]
struct Line {
    a: f64,
    b: f64,
}

#[differentiable]
impl Model for Line {
    fn predict(&self, x: f64) -> f64 {
        self.a * x + self.b
    }
    fn label(&self) -> String {
        format!("{} x + {}", self.a, self.b)
    }
}

#[derive(Differentiable, Clone, Debug)]
struct Parabola {
    c: [f64; 3],
}

#[differentiable]
impl Model for Parabola {
    fn predict(&self, x: f64) -> f64 {
        self.c[0] + self.c[1] * x + self.c[2] * x * x
    }
    fn label(&self) -> String {
        "parabola".to_string()
    }
}

#[differentiable]
fn model_loss<M: Model + Differentiable>(m: &M, data: &[(f64, f64)]) -> f64 {
    m.loss(data)
}

#[test]
fn a_trait_marking_none_of_its_methods() {
    let data: Vec<(f64, f64)> = (0..8)
        .map(|i| (i as f64 * 0.25, 1.0 + 2.0 * i as f64 * 0.25))
        .collect();
    // d loss / d(a, b) = mean 2 r (x, 1) with r = a x + b - y.
    let line = Line { a: 0.5, b: -0.25 };
    let r: Vec<f64> = data.iter().map(|&(x, y)| line.a * x + line.b - y).collect();
    let n = data.len() as f64;
    let da: f64 = data
        .iter()
        .zip(&r)
        .map(|(&(x, _), r)| 2.0 * r * x)
        .sum::<f64>()
        / n;
    let db: f64 = r.iter().map(|r| 2.0 * r).sum::<f64>() / n;
    let (v, g) = value_with_gradient!(at: &line, of: |m: &Line| m.loss(&data));
    assert_close(v, r.iter().map(|r| r * r).sum::<f64>() / n, 1e-12, "loss");
    assert_close(g.a, da, 1e-12, "d/da");
    assert_close(g.b, db, 1e-12, "d/db");
    let g = gradient!(at: &line, of: |m: &Line| model_loss(m, &data));
    assert_close(g.a, da, 1e-12, "d/da through a generic function");
    assert_eq!(line.label(), "0.5 x + -0.25");
    // The parabola, against finite differences in each coefficient.
    let p = Parabola {
        c: [0.5, -1.0, 0.25],
    };
    let g = gradient!(at: &p, of: |m: &Parabola| model_loss(m, &data));
    for k in 0..3 {
        let at = |t: f64| {
            let mut q = p.clone();
            q.c[k] = t;
            q.loss(&data)
        };
        assert_close(g.c[k], fd(at, p.c[k]), 1e-6, "d/dc");
    }
    let d = first_derivative!(at: 0.75, of: |x| p.predict(x));
    assert_close(
        d,
        -1.0 + 2.0 * 0.25 * 0.75,
        1e-12,
        "forward through the method",
    );
    assert_eq!(p.label(), "parabola");
}

/// A trait extending `f64` (`x.act()`), its method marked in the trait.
trait Activation {
    #[differentiable]
    fn act(self) -> Self;
}

#[differentiable]
impl Activation for f64 {
    fn act(self) -> f64 {
        self.tanh() * 2.5
    }
}

#[differentiable]
fn activated(x: f64) -> f64 {
    x.act() + 0.25 * x
}

#[test]
fn a_trait_implemented_for_f64() {
    let x = 0.4;
    let (v, g) = value_with_gradient!(at: x, of: activated);
    assert_eq!(v, activated(x));
    let exact = 2.5 * (1.0 - x.tanh().powi(2)) + 0.25;
    assert_close(g, exact, 1e-12, "reverse");
    assert_close(
        first_derivative!(at: x, of: activated),
        exact,
        1e-12,
        "forward",
    );
}

// ---------------------------------------------------------------------------------------
// A trait implemented for f64 whose method calls itself on another float (`special`'s
// digamma recursion, `(x + 1.0).digamma()`).

pub trait Digamma: Sized {
    #[differentiable]
    fn digamma_approx(self) -> Self;
}

impl Digamma for f64 {
    #[differentiable]
    fn digamma_approx(self) -> Self {
        let p = self;
        if p <= 8.0 {
            return (p + 1.0).digamma_approx() - p.recip();
        }
        p.ln() - 0.5 / p
    }
}

#[test]
fn a_float_method_calling_itself_on_another_float() {
    let x = 3.5f64;
    let (v, d) = value_with_derivative!(at: x, of: |t: f64| t.digamma_approx());
    assert_eq!(v, x.digamma_approx());
    let h = 1e-6;
    let fd = ((x + h).digamma_approx() - (x - h).digamma_approx()) / (2.0 * h);
    assert!((d - fd).abs() < 1e-7, "{d} vs {fd}");
    let g = gradient!(at: x, of: |t: f64| t.digamma_approx());
    assert!((g - d).abs() < 1e-14, "{g} vs {d}");
}

/// A right-hand side, as ode_solvers writes one: the derivative written into `dy`.
#[allow(clippy::ptr_arg)]
pub trait SystemV {
    #[differentiable]
    fn system(&self, x: f64, y: &Vec<f64>, dy: &mut Vec<f64>);
}

/// A damped spring.
#[derive(Differentiable, Clone, Debug)]
pub struct Damped {
    k: f64,
    c: f64,
}

#[allow(clippy::ptr_arg)]
impl SystemV for Damped {
    #[differentiable]
    fn system(&self, _x: f64, y: &Vec<f64>, dy: &mut Vec<f64>) {
        dy[0] = y[1];
        dy[1] = -self.k * y[0] - self.c * y[1];
    }
}

/// An Euler stepper generic over its system, which is not a float.
#[derive(Differentiable, Clone)]
pub struct Euler<S: SystemV> {
    f: S,
    y: Vec<f64>,
    h: f64,
}

impl<S: SystemV + Differentiable + Clone> Euler<S> {
    /// One step, calling the system on the stepper's field.
    #[differentiable]
    fn step(&self) -> Vec<f64> {
        let mut k = vec![0.0; 2];
        self.f.system(0.0, &self.y, &mut k);
        vec![self.y[0] + self.h * k[0], self.y[1] + self.h * k[1]]
    }
}

#[differentiable]
fn euler_loss(k: f64, c: f64) -> f64 {
    let e = Euler {
        f: Damped { k, c },
        y: vec![1.0, 0.5],
        h: 0.1,
    };
    let y = e.step();
    y[1] * y[1]
}

#[test]
fn a_method_of_a_field_of_a_generic_struct_with_a_mut_output() {
    // y1 = 0.5 + 0.1 (-k - 0.5 c): d/dk = -0.2 y1, d/dc = -0.1 y1.
    let (k, c) = (4.0, 0.3);
    let y1 = 0.5 + 0.1 * (-k - 0.5 * c);
    let (v, (dk, dc)) = value_with_gradient!(at: (k, c), of: euler_loss);
    assert_eq!(v, euler_loss(k, c));
    assert!(
        (dk + 0.2 * y1).abs() < 1e-12 && (dc + 0.1 * y1).abs() < 1e-12,
        "{dk} {dc}"
    );
}

#[test]
#[should_panic(
    expected = "second order (hessian!, second_derivative!) of `euler_loss` is not available"
)]
fn second_order_of_a_struct_generic_over_a_system_declines() {
    // (`Euler<S>` is generic over a type of the user's, not over floats.)
    let _ = second_derivative!(at: 4.0, of: |k: f64| euler_loss(k, 0.3));
}
