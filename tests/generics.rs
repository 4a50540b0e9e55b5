//! Functions generic over `T: Float`, instantiated with `f64` and `f32` (by turbofish or
//! inferred), calling each other, and a method of a generic `impl<T: Float>`: derivatives
//! against closed forms or finite differences, `f32` against the `f64` instantiation.
#![allow(clippy::assign_op_pattern, clippy::needless_range_loop)]

mod common;
use common::{assert_close, assert_close32, fd};
use diff::prelude::*;

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
    // The prelude makes nothing of ordinary numeric code ambiguous: `T::zero()` is
    // num-traits'.
    let mut s = T::zero();
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
        assert_close(g, 3.0 * x * x - 2.0, 1e-14, "poly f64");
        let d = first_derivative!(at: x, of: generic_poly);
        assert_close(d, 3.0 * x * x - 2.0, 1e-14, "poly f64 fwd");

        let eps = 0.1;
        let (gx, ge) = gradient!(at: (x, eps), of: generic_smooth_abs::<f64>);
        let r = (x * x + eps * eps).sqrt();
        assert_close(gx, x / r, 1e-14, "smooth abs dx");
        assert_close(ge, eps / r, 1e-14, "smooth abs deps");

        let g = gradient!(at: x, of: generic_caller::<f64>);
        assert_close(g, fd(generic_caller, x), 1e-9, "generic caller");
    }
    let xs = vec![1.0, -2.0, 3.5];
    assert_eq!(gradient!(at: &xs, of: generic_sum_sq::<f64>), xs);
}

#[test]
fn generics_instantiated_with_f32() {
    for x in [-1.2f32, 0.5, 2.0] {
        let (v, g) = value_with_gradient!(at: x, of: generic_poly::<f32>);
        assert_eq!(v, generic_poly(x));
        assert_close32(g, 3.0 * x * x - 2.0, 1e-6, "poly f32");
        let d: f32 = first_derivative!(at: x, of: generic_poly);
        assert_close32(d, 3.0 * x * x - 2.0, 1e-6, "poly f32 fwd");

        let (gx, ge) = gradient!(at: (x, 0.1f32), of: generic_smooth_abs::<f32>);
        let r = (x * x + 0.01f32).sqrt();
        assert_close32(gx, x / r, 1e-6, "smooth abs f32 dx");
        assert_close32(ge, 0.1 / r, 1e-6, "smooth abs f32 deps");

        // f32 against the f64 instantiation, at f32 tolerance.
        let g32 = gradient!(at: x, of: generic_caller::<f32>);
        let g64 = gradient!(at: x as f64, of: generic_caller::<f64>);
        assert_close(g32 as f64, g64, 1e-5, "generic caller f32 vs f64");
    }
    let xs = vec![1.0f32, -2.0, 3.5];
    assert_eq!(gradient!(at: &xs, of: generic_sum_sq::<f32>), xs);
}

#[derive(Differentiable, Clone, Debug)]
pub struct GenP<T> {
    x: T,
    y: T,
}
impl<T: Float> GenP<T> {
    #[differentiable]
    fn norm2(&self) -> T {
        self.x * self.x + self.y * self.y
    }
}
/// A method of a generic `impl<T: Float>`: the impl's `T` is a scalar.
#[test]
fn generic_impl_method() {
    let p = GenP { x: 3.0, y: 4.0 };
    let g = gradient!(at: &p, of: GenP::norm2);
    assert_eq!((g.x, g.y), (6.0, 8.0));
}

mod prelude_ambiguity {
    //! `use num_traits::{One, Zero}` beside the prelude: `f64::zero()`, `T::zero()` with a
    //! `Real` bound and `ModelTangent::zero()` all resolve.
    use diff::prelude::*;
    use num_traits::{One, Zero};

    #[derive(Clone, Debug, Differentiable)]
    struct Model {
        w: f64,
    }

    #[differentiable]
    fn shifted<T: Real>(x: T) -> T {
        x * x + T::zero() + T::one()
    }

    #[test]
    fn zero_resolves_beside_the_prelude() {
        assert_eq!(f64::zero(), 0.0);
        assert_eq!(f32::one(), 1.0);
        assert_eq!(ModelTangent::zero().w, 0.0);
        let (v, d) = value_with_gradient!(at: 3.0, of: shifted::<f64>);
        assert_eq!(v, 10.0);
        assert_eq!(d, 6.0);
        let _ = Model { w: 1.0 }.w;
    }
}

mod arrays_built_generically {
    //! `p.map(|x| ..)` and `std::array::from_fn(|i| ..)` in a body generic over
    //! `T: Float`, which has no `Default` (argmin's `picheny` maps its point so).
    use super::assert_close;
    use diff::prelude::*;
    use num_traits::{Float, FromPrimitive};

    #[differentiable]
    fn mapped<T: Float + FromPrimitive>(p: &[T; 2]) -> T {
        let (two, four) = (T::from_f64(2.0).unwrap(), T::from_f64(4.0).unwrap());
        let [a, b] = p.map(|x| four * x - two);
        a * b + a.powi(2)
    }

    #[differentiable]
    fn from_index<T: Float>(p: &[T; 3]) -> T {
        let w: [T; 3] = std::array::from_fn(|i| p[i] * p[(i + 1) % 3]);
        w[0] + w[1] * w[2]
    }

    #[test]
    fn gradient_and_hessian() {
        let p = [0.3, 0.8];
        let (a, b) = (4.0 * p[0] - 2.0, 4.0 * p[1] - 2.0);
        let (v, g) = value_with_gradient!(at: &p, of: mapped::<f64>);
        assert_eq!(v, mapped(&p));
        assert_close(g[0], 4.0 * (b + 2.0 * a), 1e-12, "g[0]");
        assert_close(g[1], 4.0 * a, 1e-12, "g[1]");
        let h = hessian!(at: &p, of: mapped::<f64>);
        assert_close(h[0][0], 32.0, 1e-12, "h[0][0]");
        assert_close(h[0][1], 16.0, 1e-12, "h[0][1]");
        assert_close(h[1][1], 0.0, 1e-12, "h[1][1]");
        // w = (x0 x1, x1 x2, x2 x0): f = x0 x1 + x1 x2^2 x0.
        let x = [0.5, -1.5, 2.0];
        let g = gradient!(at: &x, of: from_index::<f64>);
        assert_close(g[0], x[1] + x[1] * x[2] * x[2], 1e-12, "g[0]");
        assert_close(g[1], x[0] + x[2] * x[2] * x[0], 1e-12, "g[1]");
        assert_close(g[2], 2.0 * x[1] * x[2] * x[0], 1e-12, "g[2]");
        let h = hessian!(at: &x, of: from_index::<f64>);
        assert_close(h[0][2], 2.0 * x[1] * x[2], 1e-12, "h[0][2]");
        assert_close(h[2][2], 2.0 * x[1] * x[0], 1e-12, "h[2][2]");
    }
}

/// A struct generic over its float, built from the differentiated value in a function
/// written for `f64`, and its generic methods: second order too (the struct at dual
/// numbers, `Pt<Dual<f64>>`).
#[derive(Clone, Copy, Debug, Differentiable)]
struct Pt<T> {
    x: T,
    y: T,
}

#[differentiable]
impl<T: num_traits::Float> Pt<T> {
    fn norm2(&self) -> T {
        self.x * self.x + self.y * self.y
    }

    fn scale(self, k: T) -> Pt<T> {
        Pt {
            x: self.x * k,
            y: self.y * k,
        }
    }
}

#[differentiable]
fn scaled_energy(k: f64) -> f64 {
    let p = Pt { x: k, y: 2.0 * k };
    p.scale(k).norm2()
}

#[test]
fn a_generic_struct_built_in_a_function_for_f64() {
    // |(k^2, 2k^2)|^2 = 5 k^4
    let k = 1.5;
    let (v, g) = value_with_gradient!(at: k, of: scaled_energy);
    assert_close(v, 5.0 * k.powi(4), 1e-12, "value");
    assert_close(g, 20.0 * k.powi(3), 1e-12, "first");
    assert_close(
        first_derivative!(at: k, of: scaled_energy),
        g,
        1e-12,
        "forward",
    );
    assert_close(
        second_derivative!(at: k, of: scaled_energy),
        60.0 * k * k,
        1e-12,
        "second",
    );
}

/// A function written for `f64` taking and returning the generic struct by value
/// (`Pt<f64>`): its dual companion takes and returns `Pt<Dual<f64>>`.
#[differentiable]
fn turned(p: Pt<f64>, a: f64) -> Pt<f64> {
    Pt {
        x: p.x * a.cos() - p.y * a.sin(),
        y: p.x * a.sin() + p.y * a.cos(),
    }
}

#[differentiable]
fn turned_energy(p: Pt<f64>) -> f64 {
    let q = turned(p, 0.3);
    q.x * q.x * q.y
}

#[test]
fn a_generic_struct_taken_and_returned_by_value_at_second_order() {
    let v = vec![0.7, -1.1];
    let (c, s) = (0.3f64.cos(), 0.3f64.sin());
    // q = R p; e = qx^2 qy; H = R^T [[2 qy, 2 qx], [2 qx, 0]] R.
    let (qx, qy) = (v[0] * c - v[1] * s, v[0] * s + v[1] * c);
    let r = [[c, -s], [s, c]];
    let inner = [[2.0 * qy, 2.0 * qx], [2.0 * qx, 0.0]];
    let mut expected = vec![vec![0.0; 2]; 2];
    for i in 0..2 {
        for j in 0..2 {
            for a in 0..2 {
                for b in 0..2 {
                    expected[i][j] += r[a][i] * inner[a][b] * r[b][j];
                }
            }
        }
    }
    let h = hessian!(at: v.clone(), of: |v: Vec<f64>| turned_energy(Pt { x: v[0], y: v[1] }));
    for i in 0..2 {
        for j in 0..2 {
            assert_close(h[i][j], expected[i][j], 1e-12, "hessian");
        }
    }
    let (value, g) = value_with_gradient!(at: Pt { x: v[0], y: v[1] }, of: turned_energy);
    assert_close(value, qx * qx * qy, 1e-15, "value");
    assert_close(g.x, 2.0 * qx * qy * c + qx * qx * s, 1e-12, "d/dx");
    assert_close(g.y, -2.0 * qx * qy * s + qx * qx * c, 1e-12, "d/dy");
}

/// Generic over a Differentiable type, not a float (Swift's `func f<T: Differentiable>`).
#[differentiable]
fn pick<T: Differentiable + Clone>(a: T, b: T, first: bool) -> T {
    if first {
        a
    } else {
        b
    }
}

#[differentiable]
fn picks_of_floats(a: f64, b: f64) -> f64 {
    pick(a, b, true) * pick(a, b, false) * a + pick(a, 2.0, false) * b
}

#[derive(Differentiable, Clone, Copy, Debug)]
struct Planar {
    x: f64,
    y: f64,
}

#[differentiable]
fn planar_norm(p: Planar) -> f64 {
    p.x * p.x + p.y * p.y
}

#[differentiable]
fn picks_of_structs(a: Planar, b: Planar) -> f64 {
    planar_norm(pick(a, b, true)) + 2.0 * planar_norm(pick(a, b, false))
}

#[test]
fn functions_generic_over_a_differentiable_type() {
    // a^2 b + 2 b
    let (v, (da, db)) = value_with_gradient!(at: (1.5, 2.5), of: picks_of_floats);
    assert_eq!(v, picks_of_floats(1.5, 2.5));
    assert_close(da, 2.0 * 1.5 * 2.5, 1e-12, "d/da");
    assert_close(db, 1.5 * 1.5 + 2.0, 1e-12, "d/db");
    let h = hessian!(at: vec![1.5, 2.5], of: |v| picks_of_floats(v[0], v[1]));
    let want = [[2.0 * 2.5, 2.0 * 1.5], [2.0 * 1.5, 0.0]];
    for (row, w) in h.iter().zip(&want) {
        for (a, b) in row.iter().zip(w) {
            assert_close(*a, *b, 1e-12, "hessian");
        }
    }
    let d = gradient!(at: (1.0, 2.0), of: |a, b| pick::<f64>(a, b, false));
    assert_eq!(d, (0.0, 1.0));
    let (a, b) = (Planar { x: 1.0, y: 2.0 }, Planar { x: 3.0, y: -4.0 });
    let (ga, gb) = gradient!(at: (a, b), of: picks_of_structs);
    let got = [ga.x, ga.y, gb.x, gb.y];
    for (g, w) in got.iter().zip([2.0, 4.0, 12.0, -16.0]) {
        assert_close(*g, w, 1e-12, "structs");
    }
    let d2 = second_derivative!(at: 0.5, of: |t| picks_of_structs(Planar { x: t, y: 1.0 }, Planar { x: 2.0 * t, y: t }));
    // t^2 + 1 + 2 (4 t^2 + t^2)
    assert_close(d2, 2.0 + 2.0 * 10.0, 1e-12, "second derivative");
}

/// A generic struct's constructor whose type arguments rustc infers from the arguments
/// (Swift's `cond_nestedstruct_var`), in every mode and under second order.
#[derive(Differentiable, Clone, Copy, Debug)]
pub struct Pair<T: Differentiable, U: Differentiable> {
    first: T,
    second: U,
}

impl<T: Differentiable, U: Differentiable> Pair<T, U> {
    #[differentiable]
    pub fn new(first: T, second: U) -> Self {
        Pair { first, second }
    }
}

#[differentiable]
fn product_of_a_pair(x: f64) -> f64 {
    let z = Pair::new(x, 2.0 * x);
    z.first * z.second
}

#[test]
fn a_generic_constructor_with_inferred_type_arguments() {
    // 2x²: 4x, 4.
    let x = 3.0;
    let (v, d) = value_with_gradient!(at: x, of: product_of_a_pair);
    assert_eq!((v, d), (product_of_a_pair(x), 4.0 * x));
    let (v, d) = value_with_derivative!(at: x, of: product_of_a_pair);
    assert_eq!((v, d), (product_of_a_pair(x), 4.0 * x));
    assert_eq!(second_derivative!(at: x, of: product_of_a_pair), 4.0);
}

/// A function written for `f64` calling a generic one by its name alone and calling a
/// method on the result (`square(x).sin()`): its second-order companion names the
/// scalar the callee runs at, which rustc could not infer there.
mod generic_callee_then_a_method {
    use super::common::{assert_close, fd};
    use diff::prelude::*;

    #[differentiable]
    fn square<T: Float>(x: T) -> T {
        x * x
    }

    #[differentiable]
    fn sin_of_square(x: f64) -> f64 {
        square(x).sin()
    }

    #[differentiable]
    fn through_a_sum(x: f64) -> f64 {
        let s = square(x.sin()) + 1.0;
        s.ln() * self::square(x).exp()
    }

    #[test]
    fn first_and_second_order() {
        let x = 0.3;
        let (v, g) = value_with_gradient!(at: x, of: sin_of_square);
        assert_close(v, (x * x).sin(), 1e-15, "value");
        assert_close(g, (x * x).cos() * 2.0 * x, 1e-12, "gradient");
        let h = second_derivative!(at: x, of: sin_of_square);
        let want = -(x * x).sin() * 4.0 * x * x + (x * x).cos() * 2.0;
        assert_close(h, want, 1e-12, "second derivative");
        let plain = |x: f64| ((x.sin() * x.sin()) + 1.0).ln() * (x * x).exp();
        let (v, g) = value_with_gradient!(at: x, of: through_a_sum);
        assert_close(v, plain(x), 1e-15, "value");
        assert_close(g, fd(plain, x), 1e-6, "gradient");
        let d = first_derivative!(at: x, of: through_a_sum);
        let h = second_derivative!(at: x, of: through_a_sum);
        assert_close(
            h,
            fd(|x| first_derivative!(at: x, of: through_a_sum), x),
            1e-6,
            "fd of d",
        );
        assert_close(d, g, 1e-12, "forward");
    }
}

/// A parameter of a generic type iterated as it is (puruspe's `polynomial` taking
/// `coefficients: I` with `I: IntoIterator<Item = f64>`): folded by a loop over its
/// items, never indexed, and given to the dual companion as it is.
mod iterated_generic_parameter {
    use diff::prelude::*;

    #[differentiable]
    fn polynomial<I>(x: f64, coefficients: I) -> f64
    where
        I: IntoIterator<Item = f64>,
    {
        coefficients
            .into_iter()
            .fold(0.0, |acc, coeff| acc * x + coeff)
    }

    #[differentiable]
    fn quadratic(x: f64) -> f64 {
        polynomial(x, [1.0, 2.0, 3.0])
    }

    #[differentiable]
    fn cubic(x: f64) -> f64 {
        polynomial(x, vec![2.0, 0.0, -1.0, 4.0]) * x.sin()
    }

    #[differentiable]
    fn horner<I: IntoIterator<Item = f64>>(x: f64, coefficients: I) -> f64 {
        let mut acc = 0.0;
        for c in coefficients {
            acc = acc * x + c;
        }
        acc
    }

    #[differentiable]
    fn weighted(x: f64, ws: impl IntoIterator<Item = f64>) -> f64 {
        ws.into_iter().fold(0.0, |s, w| s + w * x.sin())
    }

    #[differentiable]
    fn mapped_sum<I: IntoIterator<Item = f64>>(x: f64, ws: I) -> f64 {
        ws.into_iter().map(|w| w * x * x).sum::<f64>()
    }

    #[differentiable]
    fn both(x: f64) -> f64 {
        horner(x, [1.0, 2.0, 3.0]) + weighted(x, vec![1.0, 2.0]) + mapped_sum(x, [0.5, 1.5])
    }

    #[test]
    fn looped_over_and_impl_trait() {
        let x = 2.0f64;
        let (v, d) = value_with_gradient!(at: x, of: both);
        assert_eq!(v, both(x));
        assert!((d - (2.0 * x + 2.0 + 3.0 * x.cos() + 4.0 * x)).abs() < 1e-12);
        let dd = second_derivative!(at: x, of: both);
        assert!((dd - (2.0 - 3.0 * x.sin() + 4.0)).abs() < 1e-12);
        let (v, d) = value_with_derivative!(at: x, of: both);
        assert_eq!(v, both(x));
        assert!((d - (2.0 * x + 2.0 + 3.0 * x.cos() + 4.0 * x)).abs() < 1e-12);
    }

    #[test]
    fn both_modes_and_second_order() {
        let x = 1.7;
        let (v, d) = value_with_gradient!(at: x, of: quadratic);
        assert_eq!(v, quadratic(x));
        assert!((d - (2.0 * x + 2.0)).abs() < 1e-12);
        let (v, d) = value_with_derivative!(at: x, of: quadratic);
        assert_eq!(v, quadratic(x));
        assert!((d - (2.0 * x + 2.0)).abs() < 1e-12);
        assert!((second_derivative!(at: x, of: quadratic) - 2.0).abs() < 1e-12);
        let p = 2.0 * x.powi(3) - x + 4.0;
        let dp = 6.0 * x * x - 1.0;
        let want = dp * x.sin() + p * x.cos();
        assert!((gradient!(at: x, of: cubic) - want).abs() < 1e-12);
        let want2 = 12.0 * x * x.sin() + 2.0 * dp * x.cos() - p * x.sin();
        assert!((second_derivative!(at: x, of: cubic) - want2).abs() < 1e-10);
    }
}
