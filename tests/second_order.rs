//! Second order of functions written for `f64` (or `f32`) only, as a user writes them for
//! the first derivative: `hessian!`, `second_derivative!` and
//! `value_with_second_derivative!` run their gradient on dual numbers through the dual
//! companion (docs/ARCHITECTURE.md, "Second order"). Each is checked against a
//! hand-written second derivative or central differences of the gradient.
#![allow(clippy::needless_range_loop, clippy::ptr_arg)]
mod common;
use diff::prelude::*;

fn assert_close(a: f64, b: f64, tol: f64) {
    assert!(
        (a - b).abs() <= tol * (1.0 + b.abs()),
        "{a} differs from {b} (tolerance {tol})"
    );
}

fn assert_matrix(h: &[Vec<f64>], want: &[Vec<f64>], tol: f64) {
    assert_eq!(h.len(), want.len());
    for (row, wrow) in h.iter().zip(want) {
        for (a, b) in row.iter().zip(wrow) {
            assert_close(*a, *b, tol);
        }
    }
}

fn assert_symmetric(h: &[Vec<f64>]) {
    for i in 0..h.len() {
        for j in 0..h.len() {
            assert!((h[i][j] - h[j][i]).abs() <= 1e-12 * (1.0 + h[i][j].abs()));
        }
    }
}

/// Asserts that a second-order operator declines, with a message naming `function`.
fn assert_declined(run: impl FnOnce() -> f64 + std::panic::UnwindSafe, function: &str) {
    let stop = std::panic::catch_unwind(run);
    let message = stop
        .expect_err("declined")
        .downcast::<String>()
        .expect("a message");
    assert!(
        message.contains("second order") && message.contains(function),
        "{message}"
    );
}

/// Central differences of a gradient: column j is (g(x + h e_j) - g(x - h e_j)) / 2h.
fn hessian_by_differences(x: &[f64], grad: impl Fn(&[f64]) -> Vec<f64>) -> Vec<Vec<f64>> {
    let n = x.len();
    let h = 1e-6;
    let mut out = vec![vec![0.0; n]; n];
    for j in 0..n {
        let (mut up, mut down) = (x.to_vec(), x.to_vec());
        up[j] += h;
        down[j] -= h;
        let (gu, gd) = (grad(&up), grad(&down));
        for i in 0..n {
            out[i][j] = (gu[i] - gd[i]) / (2.0 * h);
        }
    }
    out
}

/// Asserts that row `i` of `h` is the central differences of `partial` (the gradient's
/// `i`-th entry as a function of the point) at `at`, and that column `i` equals it.
fn assert_row_by_differences<const N: usize>(
    h: &[Vec<f64>],
    i: usize,
    at: [f64; N],
    partial: impl Fn(&[f64]) -> f64,
) {
    for j in 0..N {
        let (mut up, mut down) = (at, at);
        up[j] += 1e-5;
        down[j] -= 1e-5;
        assert_close(h[i][j], (partial(&up) - partial(&down)) / 2e-5, 1e-6);
        assert_close(h[j][i], h[i][j], 1e-12);
    }
}

#[differentiable]
fn rosenbrock(x: &[f64]) -> f64 {
    let mut sum = 0.0;
    for i in 0..x.len() - 1 {
        let a = x[i + 1] - x[i] * x[i];
        let b = 1.0 - x[i];
        sum += 100.0 * a * a + b * b;
    }
    sum
}

fn rosenbrock_hessian(x: &[f64]) -> Vec<Vec<f64>> {
    let n = x.len();
    let mut h = vec![vec![0.0; n]; n];
    for i in 0..n - 1 {
        h[i][i] += 1200.0 * x[i] * x[i] - 400.0 * x[i + 1] + 2.0;
        h[i][i + 1] -= 400.0 * x[i];
        h[i + 1][i] -= 400.0 * x[i];
        h[i + 1][i + 1] += 200.0;
    }
    h
}

#[test]
fn hessian_of_rosenbrock_written_for_f64() {
    for x in [vec![0.5, -0.3], vec![1.2, 0.7, -0.4, 2.0], vec![-1.0; 6]] {
        let h = hessian!(at: &x, of: rosenbrock);
        assert_symmetric(&h);
        assert_matrix(&h, &rosenbrock_hessian(&x), 1e-12);
        let fd = hessian_by_differences(&x, |p| gradient!(at: p, of: rosenbrock));
        assert_matrix(&h, &fd, 1e-5);
    }
}

#[differentiable]
fn himmelblau(p: &[f64; 2]) -> f64 {
    let [x, y] = *p;
    (x * x + y - 11.0).powi(2) + (x + y * y - 7.0).powi(2)
}

#[test]
fn hessian_of_himmelblau_taking_an_array_reference() {
    let p = [1.5, -0.5];
    let h = hessian!(at: &p, of: himmelblau);
    let (x, y) = (p[0], p[1]);
    let want = vec![
        vec![12.0 * x * x + 4.0 * y - 42.0, 4.0 * (x + y)],
        vec![4.0 * (x + y), 12.0 * y * y + 4.0 * x - 26.0],
    ];
    assert_matrix(&h, &want, 1e-12);
}

/// A helper written for `f64`, called by the differentiated function: followed through
/// its own dual companion.
#[differentiable]
fn weighted(a: f64, w: f64) -> f64 {
    w * a.sin()
}

#[differentiable]
fn calls_a_helper(x: Vec<f64>) -> f64 {
    let mut total = 0.0;
    for i in 0..x.len() {
        total += weighted(x[i], 2.0) * x[(i + 1) % x.len()];
    }
    total
}

#[test]
fn hessian_follows_calls_to_other_functions() {
    let x = vec![0.3, -1.1, 0.8];
    let h = hessian!(at: x.clone(), of: calls_a_helper);
    assert_symmetric(&h);
    let fd = hessian_by_differences(&x, |p| gradient!(at: p.to_vec(), of: calls_a_helper));
    assert_matrix(&h, &fd, 1e-5);
    // By hand: f = 2 Σ sin(x_i) x_{i+1}.
    let n = x.len();
    let mut want = vec![vec![0.0; n]; n];
    for i in 0..n {
        let j = (i + 1) % n;
        want[i][i] += -2.0 * x[i].sin() * x[j];
        want[i][j] += 2.0 * x[i].cos();
        want[j][i] += 2.0 * x[i].cos();
    }
    assert_matrix(&h, &want, 1e-12);
}

/// Branches on the value, constants joined with active values, `max`, a literal on the
/// left of a comparison.
#[differentiable]
fn piecewise(x: f64) -> f64 {
    let mut y = 0.0;
    if 0.0 < x {
        y = x * x * x;
    } else {
        y += x.exp();
    }
    let floor = f64::max(y, -1.0);
    if floor.abs() < 1e-300 {
        return 0.0;
    }
    floor * 2.0
}

#[test]
fn second_derivatives_through_branches() {
    assert_close(
        second_derivative!(at: 0.7, of: piecewise),
        12.0 * 0.7,
        1e-12,
    );
    assert_close(
        second_derivative!(at: -0.4, of: piecewise),
        2.0 * (-0.4f64).exp(),
        1e-12,
    );
    let (v, d1, d2) = value_with_second_derivative!(at: 1.5, of: piecewise);
    assert_close(v, piecewise(1.5), 0.0);
    assert_close(d1, 6.0 * 2.25, 1e-12);
    assert_close(d2, 12.0 * 1.5, 1e-12);
}

/// A `match` on the value with guards, its arms binding the whole value.
#[differentiable]
fn by_cases(x: f64) -> f64 {
    let y = match x {
        v if v < 0.0 => v * v * v,
        v if v < 1.0 => v.sin(),
        _ => x.ln(),
    };
    y * 2.0
}

#[test]
fn second_derivatives_through_a_match_with_guards() {
    for (x, want) in [
        (-0.5, 2.0 * 6.0 * -0.5),
        (0.5, -2.0 * 0.5f64.sin()),
        (2.0, -2.0 / 4.0),
    ] {
        assert_close(second_derivative!(at: x, of: by_cases), want, 1e-12);
    }
}

/// Black-Scholes written for `f64`, helpers included: the gamma is the second derivative
/// in the spot.
#[differentiable]
fn norm_cdf(x: f64) -> f64 {
    // Abramowitz-Stegun 7.1.26 through erf, accurate to 1e-7.
    let z = x / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.3275911 * z.abs());
    let poly = t
        * (0.254829592
            + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
    let erf = 1.0 - poly * (-z * z).exp();
    if z >= 0.0 {
        0.5 * (1.0 + erf)
    } else {
        0.5 * (1.0 - erf)
    }
}

#[differentiable]
fn call_price(spot: f64) -> f64 {
    let (strike, rate, vol, time) = (100.0, 0.03, 0.2, 0.5);
    let d1 = ((spot / strike).ln() + (rate + 0.5 * vol * vol) * time) / (vol * time.sqrt());
    let d2 = d1 - vol * time.sqrt();
    spot * norm_cdf(d1) - strike * (-rate * time).exp() * norm_cdf(d2)
}

#[test]
fn gamma_of_a_call_written_for_f64() {
    let spot = 105.0;
    let gamma = second_derivative!(at: spot, of: call_price);
    // Central differences of the first derivative, taken in forward mode.
    let h = 1e-3;
    let d = |s: f64| first_derivative!(at: s, of: call_price);
    let fd = (d(spot + h) - d(spot - h)) / (2.0 * h);
    assert_close(gamma, fd, 1e-6);
    // The closed form, up to the approximation of the normal distribution.
    let (vol, time) = (0.2f64, 0.5f64);
    let d1 = ((spot / 100.0f64).ln() + (0.03 + 0.5 * vol * vol) * time) / (vol * time.sqrt());
    let pdf = (-0.5 * d1 * d1).exp() / (2.0 * std::f64::consts::PI).sqrt();
    assert_close(gamma, pdf / (spot * vol * time.sqrt()), 1e-5);
}

#[differentiable]
fn quartic(x: [f64; 3]) -> f64 {
    let mut acc = [0.0; 3];
    for i in 0..3 {
        acc[i] = x[i] * x[i];
    }
    acc[0] * acc[1] + acc[2] * acc[2] + x[0] * x[2]
}

#[test]
fn hessian_of_an_array_taken_by_value_with_an_array_of_constants_written_in_place() {
    let x = [0.5, -1.5, 2.0];
    let h = hessian!(at: x, of: quartic);
    let want = vec![
        vec![2.0 * x[1] * x[1], 4.0 * x[0] * x[1], 1.0],
        vec![4.0 * x[0] * x[1], 2.0 * x[0] * x[0], 0.0],
        vec![1.0, 0.0, 12.0 * x[2] * x[2]],
    ];
    assert_matrix(&h, &want, 1e-12);
}

#[differentiable]
fn cubic32(x: f32) -> f32 {
    x * x * x - 2.0 * x
}

#[test]
fn second_derivative_of_a_function_written_for_f32() {
    let d2: f32 = second_derivative!(at: 1.5f32, of: cubic32);
    assert!((d2 - 9.0).abs() < 1e-5);
}

#[differentiable]
fn dist32(p: [f32; 2]) -> f32 {
    (p[0] * p[0] + p[1] * p[1]).sqrt()
}

#[test]
fn second_order_of_closures_written_for_f32() {
    // The closure's literals are `f32` where its parameter is, not `f64`.
    let d2: f32 = second_derivative!(at: 1.0f32, of: |x: f32| x * x * x + 1.0);
    assert!((d2 - 6.0).abs() < 1e-5, "{d2}");
    let one = 1.0f32;
    let d2: f32 = second_derivative!(at: 1.0f32, of: |x: f32| dist32([x, one]));
    assert!((d2 - 0.5f32.powf(1.5)).abs() < 1e-5, "{d2}");
    let d2: f32 = second_derivative!(at: 1.0f32, of: |x: f32| dist32([x, 1.0]));
    assert!((d2 - 0.5f32.powf(1.5)).abs() < 1e-5, "{d2}");
    let h = hessian!(at: [1.0f32, 1.0], of: |p: [f32; 2]| dist32(p) * 2.0);
    // 2·(I - p̂p̂ᵀ)/|p| at (1, 1): [[1, -1], [-1, 1]] / √2.
    let r = 0.5f32.sqrt();
    for (i, row) in h.iter().enumerate() {
        for (j, v) in row.iter().enumerate() {
            let want = if i == j { r } else { -r };
            assert!((v - want).abs() < 1e-5, "{h:?}");
        }
    }
    let d2: f32 = first_derivative!(at: 1.0f32, of: |x: f32| first_derivative!(at: x, of: |y: f32| y * y * y + 1.0));
    assert!((d2 - 6.0).abs() < 1e-5, "{d2}");
}

#[differentiable]
fn scaled_square(r: f64, scale: Option<f64>) -> f64 {
    let s = scale.unwrap_or(1.0);
    r * r / s
}

#[test]
fn second_order_with_a_constant_option() {
    let s = 2.0;
    let d2 = second_derivative!(at: 0.8, of: |t: f64| scaled_square(t, Some(s)));
    assert_close(d2, 1.0, 1e-12);
    let so: Option<f64> = Some(4.0);
    let d2 = second_derivative!(at: 0.8, of: |t: f64| scaled_square(t, so));
    assert_close(d2, 0.5, 1e-12);
    let d2 = second_derivative!(at: 0.8, of: |t: f64| scaled_square(t, None));
    assert_close(d2, 2.0, 1e-12);
}

#[differentiable]
fn generic_square<T: num_traits::Float>(x: T) -> T {
    x * x
}

#[differentiable]
fn calls_a_generic_helper(x: f64) -> f64 {
    generic_square(x) * x
}

#[test]
fn a_function_written_for_f64_calling_a_generic_one() {
    assert_close(
        second_derivative!(at: 2.0, of: calls_a_generic_helper),
        12.0,
        1e-12,
    );
    // And the generic one named with its scalar.
    assert_close(
        second_derivative!(at: 2.0, of: generic_square::<f64>),
        2.0,
        0.0,
    );
}

/// A parameter that is not differentiated stays as it is.
#[differentiable(wrt = x)]
fn scaled(x: &[f64], scale: f64, n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        s += scale * x[i] * x[i] * x[i];
    }
    s
}

#[differentiable]
fn scaled_at_two(x: &[f64]) -> f64 {
    scaled(x, 2.0, x.len())
}

#[test]
fn parameters_left_out_of_the_derivative() {
    let x = vec![1.0, -2.0];
    let h = hessian!(at: &x, of: scaled_at_two);
    assert_matrix(&h, &[vec![12.0, 0.0], vec![0.0, -24.0]], 1e-12);
}

mod model {
    use diff::prelude::*;

    #[differentiable]
    pub fn loss(p: &Vec<f64>) -> f64 {
        p.iter().map(|v| v * v * v).sum::<f64>() + p[0] * p[1]
    }
}

use model::loss;

#[test]
fn hessian_of_a_function_imported_by_name() {
    let p = vec![1.0, 3.0];
    let h = hessian!(at: &p, of: loss);
    assert_matrix(&h, &[vec![6.0, 1.0], vec![1.0, 18.0]], 1e-12);
    let h = hessian!(at: &p, of: model::loss);
    assert_matrix(&h, &[vec![6.0, 1.0], vec![1.0, 18.0]], 1e-12);
}

#[test]
fn closures_calling_functions_written_for_f64() {
    let x = vec![0.7, -0.2, 1.1];
    let h = hessian!(at: x.clone(), of: |p| rosenbrock(&p) + calls_a_helper(p));
    let want_a = rosenbrock_hessian(&x);
    let want_b = hessian!(at: x.clone(), of: calls_a_helper);
    for i in 0..3 {
        for j in 0..3 {
            assert_close(h[i][j], want_a[i][j] + want_b[i][j], 1e-12);
        }
    }
    let d2 = second_derivative!(at: 0.3, of: |t| piecewise(t) * t);
    // (t^4 * 2)'' = 24 t^2 for t > 0.
    assert_close(d2, 24.0 * 0.09, 1e-12);
}

#[test]
fn closures_accumulating_from_a_float_literal() {
    let x = [0.5, 2.0, -1.0];
    let h = hessian!(at: x, of: |p| {
        let mut s = 0.0;
        for i in 0..3 {
            s += p[i] * p[i] * p[i];
        }
        s
    });
    assert_matrix(
        &h,
        &[
            vec![3.0, 0.0, 0.0],
            vec![0.0, 12.0, 0.0],
            vec![0.0, 0.0, -6.0],
        ],
        1e-12,
    );
}

/// A gradient penalty over a function written for `f64`: the gradient inside the body is
/// differentiated through the function's dual companion.
#[differentiable]
fn penalized(p: &[f64]) -> f64 {
    let g = gradient!(at: p, of: himmelblau_slice);
    himmelblau_slice(p) + 0.5 * (g[0] * g[0] + g[1] * g[1])
}

#[differentiable]
fn himmelblau_slice(p: &[f64]) -> f64 {
    (p[0] * p[0] + p[1] - 11.0).powi(2) + (p[0] + p[1] * p[1] - 7.0).powi(2)
}

#[test]
fn operators_nested_over_functions_written_for_f64() {
    let p = vec![1.2, -0.7];
    let g = gradient!(at: &p, of: penalized);
    // By hand: ∇(f + ½|∇f|²) = ∇f + H ∇f.
    let gf = gradient!(at: &p, of: himmelblau_slice);
    let h = hessian!(at: &p, of: himmelblau_slice);
    for i in 0..2 {
        let want = gf[i] + h[i][0] * gf[0] + h[i][1] * gf[1];
        assert_close(g[i], want, 1e-12);
    }
    let d2 = first_derivative!(at: 0.4, of: |t| gradient!(at: t, of: piecewise));
    assert_close(d2, 12.0 * 0.4, 1e-12);
}

mod readme {
    use diff::prelude::*;

    #[differentiable]
    fn rosenbrock(x: &[f64]) -> f64 {
        let mut sum = 0.0;
        for i in 0..x.len() - 1 {
            let (a, b) = (x[i + 1] - x[i] * x[i], 1.0 - x[i]);
            sum += 100.0 * a * a + b * b;
        }
        sum
    }

    /// The README's example of second order, as written there.
    #[test]
    fn readme_example() {
        let h = hessian!(at: &vec![1.0, 2.0], of: rosenbrock); // [[402, -400], [-400, 200]]
        assert_eq!(h, vec![vec![402.0, -400.0], vec![-400.0, 200.0]]);
        let d2 = second_derivative!(at: 0.5, of: |t| rosenbrock(&[t, 0.3])); // a closure, too
        assert!((d2 - (1200.0 * 0.25 - 400.0 * 0.3 + 2.0)).abs() < 1e-12);
    }
}

/// The README's example of second order through a struct and its method, as written
/// there.
mod readme_struct {
    use diff::prelude::*;

    #[derive(Differentiable, Clone, Copy, Debug)]
    struct Spring {
        k: f64,
        x: f64,
    }

    impl Spring {
        #[differentiable]
        fn energy(&self) -> f64 {
            0.5 * self.k * self.x * self.x
        }
    }

    #[differentiable]
    fn total(k: f64, x: f64) -> f64 {
        let s = Spring { k, x: x * 2.0 };
        s.energy() // 2 k x²
    }

    #[test]
    fn readme_example() {
        let h = hessian!(at: vec![3.0, 0.5], of: |v: Vec<f64>| total(v[0], v[1]));
        assert_eq!(h, vec![vec![0.0, 2.0], vec![2.0, 12.0]]);
    }
}

mod registered {
    use diff::prelude::*;
    use diff::InnerProduct;

    fn cube<T: Float>(x: T) -> T {
        x * x * x
    }

    /// A derivative registered generically: followed by second order.
    #[derivative(of = cube)]
    fn cube_vjp<T: Float + InnerProduct>(x: T) -> (T, impl FnOnce(T) -> T) {
        let three = T::from(3.0).unwrap();
        (cube(x), move |dy| dy * three * x * x)
    }

    fn softplus(x: f64) -> f64 {
        x.exp().ln_1p()
    }

    /// A derivative registered for `f64` only: first order only.
    #[derivative(of = softplus)]
    fn softplus_vjp(x: f64) -> (f64, impl FnOnce(f64) -> f64) {
        let s = 1.0 / (1.0 + (-x).exp());
        (softplus(x), move |dy| dy * s)
    }

    #[differentiable]
    fn uses_cube(x: f64) -> f64 {
        cube(x) * x
    }

    #[differentiable]
    fn uses_softplus(x: f64) -> f64 {
        softplus(x) * x
    }

    #[test]
    fn registered_derivatives_under_second_order() {
        // (x^4)'' = 12 x^2.
        let d2 = second_derivative!(at: 1.5, of: uses_cube);
        assert!((d2 - 27.0).abs() < 1e-12, "{d2}");
        // First order through the f64-only registration works; second order is a compile
        // error naming it (tests/ui/second_order_of_a_registered_derivative.rs).
        assert!(
            (gradient!(at: 0.5, of: uses_softplus)
                - (softplus(0.5) + 0.5 / (1.0 + (-0.5f64).exp())))
            .abs()
                < 1e-12
        );
    }
}

/// A struct of the user's joined with a function's result: the crate compiles, first
/// order works, and second order declines with the reason (a struct of `f64` fields cannot
/// hold dual numbers).
mod user_struct {
    use diff::prelude::*;

    #[derive(Differentiable, Clone, Copy, Debug)]
    pub struct P {
        pub a: f64,
        pub b: f64,
    }

    /// Fields of floats beside an integer, a `Vec`, an array and a constant.
    #[derive(Differentiable, Clone, Debug)]
    pub struct Body {
        pos: [f64; 2],
        w: Vec<f64>,
        n: usize,
        #[no_derivative]
        name: String,
    }

    /// A field of a type of the user's: no dual twin.
    #[derive(Clone, Copy, Debug)]
    pub enum Kind {
        Linear,
    }

    impl Differentiable for Kind {
        type TangentVector = ();
        fn zero_tangent(&self) {}
        fn move_by(&mut self, _: &()) {}
    }

    #[derive(Differentiable, Clone, Copy, Debug)]
    pub struct Tagged {
        x: f64,
        kind: Kind,
    }

    /// A struct with arithmetic of its own: no dual twin (a helper's result could be one).
    #[derive(Differentiable, Clone, Copy, Debug)]
    pub struct V {
        x: f64,
        y: f64,
    }

    impl std::ops::Add for V {
        type Output = V;
        fn add(self, o: V) -> V {
            V {
                x: self.x + o.x,
                y: self.y + o.y,
            }
        }
    }

    #[differentiable]
    fn with_arithmetic(a: f64) -> f64 {
        let v = V { x: a, y: a * a };
        v.x * v.y
    }

    /// `V`'s `-` with its derivatives, beside its `+` without them.
    impl std::ops::Sub for V {
        type Output = V;
        #[differentiable]
        fn sub(self, o: V) -> V {
            V {
                x: self.x - o.x,
                y: self.y - o.y,
            }
        }
    }

    #[differentiable]
    fn made(a: f64) -> V {
        V { x: a, y: 2.0 } - V { x: 1.0, y: a * a }
    }

    #[differentiable]
    #[allow(clippy::manual_swap)]
    fn exchange(a: &mut f64, b: &mut f64) {
        let t = *a;
        *a = *b;
        *b = t;
    }

    /// Values of `V` from a helper, a field of one exchanged with a float: the crate
    /// compiles, and second order declines.
    #[differentiable]
    fn held(x: f64) -> f64 {
        let mut p = made(x);
        let mut z = x * x;
        exchange(&mut p.y, &mut z);
        p.x * p.y + z + made(z).x
    }

    impl P {
        #[differentiable]
        fn new(a: f64, b: f64) -> Self {
            Self { a, b: a * b }
        }

        #[differentiable]
        fn get(&self, k: f64) -> f64 {
            self.a * k + self.b.sin()
        }

        #[differentiable]
        fn step(&mut self, k: f64) {
            self.b = self.a.tanh() * k;
            self.a *= k;
        }

        #[differentiable]
        fn norm(&self) -> f64 {
            (self.a * self.a + self.b * self.b).sqrt()
        }
    }

    /// Methods called on structs built of values that carry a derivative: by `&self`
    /// (also through the path), `&mut self`, with no other argument, and a constructor.
    #[differentiable]
    fn methods(x: f64, y: f64) -> f64 {
        let s = P::new(x, y);
        let mut t = P { a: x, b: y * y };
        t.step(x);
        P::step(&mut t, y);
        s.get(y) + t.get(x) + P::get(&t, 0.5) + t.norm()
    }

    #[test]
    fn methods_of_structs_built_in_the_body() {
        let x = vec![0.7, 1.3];
        let h = hessian!(at: x.clone(), of: |v: Vec<f64>| methods(v[0], v[1]));
        super::assert_symmetric(&h);
        let want = super::hessian_by_differences(&x, |v| {
            let (a, b) = gradient!(at: (v[0], v[1]), of: methods);
            vec![a, b]
        });
        super::assert_matrix(&h, &want, 1e-6);
        let (v, _, _) = value_with_second_derivative!(at: 0.7, of: |t| methods(t, 1.3));
        assert_eq!(v, methods(0.7, 1.3));
    }

    /// A method called by its path on a struct of constants, with arguments that carry
    /// a derivative.
    #[differentiable]
    fn on_a_constant(x: f64, y: f64) -> f64 {
        let s = P { a: 2.0, b: 0.5 };
        P::get(&s, x * y) + s.get(y)
    }

    #[test]
    fn methods_by_path_on_constants() {
        let (x, y) = (0.7, 1.3);
        let h = hessian!(at: vec![x, y], of: |v: Vec<f64>| on_a_constant(v[0], v[1]));
        // 2 x y + sin(0.5) + 2 y + sin(0.5): only the cross term.
        let want = vec![vec![0.0, 2.0], vec![2.0, 0.0]];
        super::assert_matrix(&h, &want, 1e-12);
    }

    #[differentiable]
    fn make(x: f64) -> P {
        P { a: x, b: x * x }
    }

    #[differentiable]
    fn uses(x: f64) -> f64 {
        let mut p = P { a: 1.0, b: 2.0 };
        if x > 0.0 {
            p = make(x);
        }
        p.a + p.b * x
    }

    #[differentiable]
    fn energy(p: P) -> f64 {
        p.a * p.a * p.b + p.b.sin()
    }

    #[differentiable]
    fn by_ref(p: &P, k: f64) -> f64 {
        p.a * k + p.b * p.b
    }

    #[differentiable]
    fn built(x: f64, y: f64) -> f64 {
        let p = P { a: x * y, b: x };
        let mut q = P {
            b: (p.a + 1.0).cos(),
            ..p
        };
        q.a *= y;
        let r = make(q.a);
        energy(q) + by_ref(&p, y) + r.b * r.a
    }

    #[differentiable]
    fn body(x: &[f64]) -> f64 {
        let mut b = Body {
            pos: [x[0], x[1]],
            w: vec![x[0] * x[1], 2.0],
            n: 2,
            name: "b".to_string(),
        };
        b.pos[0] *= b.pos[1];
        let mut acc = 0.0;
        for i in 0..b.n {
            acc += b.w[i] * b.pos[i];
        }
        assert_eq!(b.name, "b");
        acc * acc
    }

    #[differentiable]
    fn tagged(x: f64) -> f64 {
        let t = Tagged {
            x: x * x,
            kind: Kind::Linear,
        };
        match t.kind {
            Kind::Linear => t.x * x,
        }
    }

    fn gradient_of_built(v: &[f64]) -> Vec<f64> {
        let (a, b) = gradient!(at: (v[0], v[1]), of: built);
        vec![a, b]
    }

    #[test]
    fn structs_built_in_the_body() {
        // x + x^3 for x > 0, 1 + 2x otherwise.
        assert_eq!(
            value_with_second_derivative!(at: 0.5, of: uses),
            (0.625, 1.75, 3.0)
        );
        assert_eq!(second_derivative!(at: -0.5, of: uses), 0.0);
        let x = vec![0.7, 1.3];
        let h = hessian!(at: x.clone(), of: |v: Vec<f64>| built(v[0], v[1]));
        super::assert_symmetric(&h);
        let want = super::hessian_by_differences(&x, gradient_of_built);
        super::assert_matrix(&h, &want, 1e-6);
    }

    #[test]
    fn structs_of_vectors_arrays_and_constants() {
        let x = vec![0.7, 1.3];
        let h = hessian!(at: &x, of: body);
        // (x0 x1)^2 (x0 + x1)^2... written out: acc = x0 x1 * x0 x1 + 2 x1 = x0² x1² + 2 x1.
        let (a, b) = (x[0], x[1]);
        let acc = a * a * b * b + 2.0 * b;
        let (da, db) = (2.0 * a * b * b, 2.0 * a * a * b + 2.0);
        let (daa, dab, dbb) = (2.0 * b * b, 4.0 * a * b, 2.0 * a * a);
        let want = vec![
            vec![2.0 * (da * da + acc * daa), 2.0 * (da * db + acc * dab)],
            vec![2.0 * (db * da + acc * dab), 2.0 * (db * db + acc * dbb)],
        ];
        super::assert_matrix(&h, &want, 1e-12);
    }

    #[derive(Differentiable, Clone, Debug)]
    pub struct Params {
        scale: f64,
        offsets: Vec<f64>,
        n: usize,
    }

    /// Not Differentiable: left out, its float fields constants.
    pub struct Config {
        weight: f64,
    }

    #[differentiable]
    fn loss(x: &[f64], p: &Params, c: &Config) -> f64 {
        let mut s = 0.0;
        for i in 0..p.n {
            let d = x[i] - p.offsets[i];
            s += p.scale * d * d * d + c.weight * x[i];
        }
        s
    }

    #[test]
    fn struct_parameters_by_reference() {
        let p = Params {
            scale: 2.0,
            offsets: vec![0.5, 0.25],
            n: 2,
        };
        let c = Config { weight: 3.0 };
        let x = [1.0, 2.0];
        let h = hessian!(at: &x, of: |x: &[f64]| loss(x, &p, &c));
        // d²/dx_i² = 6 scale (x_i - offset_i).
        let want = vec![vec![6.0, 0.0], vec![0.0, 21.0]];
        super::assert_matrix(&h, &want, 1e-12);
    }

    #[derive(Differentiable, Clone, Copy, Debug)]
    pub struct Vec2 {
        x: f64,
        y: f64,
    }

    /// Structs nested in a struct: the twin holds their twins.
    #[derive(Differentiable, Clone, Debug)]
    pub struct Particle {
        pos: Vec2,
        vel: Vec2,
        mass: f64,
    }

    impl Vec2 {
        #[differentiable]
        fn norm2(&self) -> f64 {
            self.x * self.x + self.y * self.y
        }
    }

    impl Particle {
        #[differentiable]
        fn step(&mut self, dt: f64) {
            self.pos.x += self.vel.x * dt;
            self.pos.y += self.vel.y * dt;
            self.vel.y -= 9.8 * dt / self.mass;
        }

        #[differentiable]
        fn energy(&self) -> f64 {
            0.5 * self.mass * self.vel.norm2() + 9.8 * self.mass * self.pos.y
        }
    }

    #[differentiable]
    fn flight(vx: f64, vy: f64) -> f64 {
        let mut p = Particle {
            pos: Vec2 { x: 0.0, y: 1.0 },
            vel: Vec2 { x: vx, y: vy },
            mass: 2.0,
        };
        for _ in 0..3 {
            p.step(0.1);
        }
        p.pos.x * p.pos.y + p.energy() * vx
    }

    #[test]
    fn nested_structs() {
        let x = vec![0.7, 1.3];
        let h = hessian!(at: x.clone(), of: |v: Vec<f64>| flight(v[0], v[1]));
        super::assert_symmetric(&h);
        let want = super::hessian_by_differences(&x, |v| {
            let (a, b) = gradient!(at: (v[0], v[1]), of: flight);
            vec![a, b]
        });
        super::assert_matrix(&h, &want, 1e-6);
    }

    /// A tuple struct: its constructor builds the twin.
    #[derive(Differentiable, Clone, Copy, Debug)]
    pub struct Pair(f64, f64);

    impl Pair {
        #[differentiable]
        fn area(&self) -> f64 {
            self.0 * self.1
        }
    }

    #[differentiable]
    fn pairs(x: f64, y: f64) -> f64 {
        let p = Pair(x * y, y);
        let q = Pair(1.0, x);
        p.area() * p.0 + q.1 * q.1 * y
    }

    #[test]
    fn tuple_structs() {
        // x² y³ + x² y.
        let (x, y) = (0.7, 1.3);
        let h = hessian!(at: vec![x, y], of: |v: Vec<f64>| pairs(v[0], v[1]));
        let want = vec![
            vec![2.0 * y.powi(3) + 2.0 * y, 6.0 * x * y * y + 2.0 * x],
            vec![6.0 * x * y * y + 2.0 * x, 6.0 * x * x * y],
        ];
        super::assert_matrix(&h, &want, 1e-12);
    }

    #[test]
    fn a_struct_without_a_twin_declines() {
        assert!((gradient!(at: 0.5, of: tagged) - 0.75).abs() < 1e-12);
        super::assert_declined(|| second_derivative!(at: 0.5, of: tagged), "tagged");
        let _ = V { x: 1.0, y: 1.0 } + V { x: 1.0, y: 1.0 };
        assert!((gradient!(at: 0.5, of: with_arithmetic) - 0.75).abs() < 1e-12);
        super::assert_declined(
            || second_derivative!(at: 0.5, of: with_arithmetic),
            "with_arithmetic",
        );
        let x = 0.7;
        let (v, g) = value_with_gradient!(at: x, of: held);
        assert_eq!(v, held(x));
        let h = 1e-6;
        assert!((g - (held(x + h) - held(x - h)) / (2.0 * h)).abs() < 1e-6);
        super::assert_declined(|| second_derivative!(at: x, of: held), "held");
    }
}

/// An associated function of a type, named by its path.
mod associated {
    use diff::prelude::*;

    pub struct Model;

    #[differentiable]
    impl Model {
        #[differentiable]
        pub fn energy(x: &[f64]) -> f64 {
            x[0] * x[0] * x[1] + (x[1] * 2.0).sin()
        }
    }

    #[test]
    fn hessian_of_an_associated_function() {
        let x = vec![0.5, 0.25];
        let h = hessian!(at: &x, of: Model::energy);
        let s = (2.0 * x[1]).sin();
        let want = [[2.0 * x[1], 2.0 * x[0]], [2.0 * x[0], -4.0 * s]];
        for i in 0..2 {
            for j in 0..2 {
                assert!((h[i][j] - want[i][j]).abs() < 1e-12, "{h:?}");
            }
        }
    }
}

#[differentiable]
fn smaller_squared(a: f64, b: f64) -> f64 {
    let m = match if a < b { Some(a) } else { None } {
        Some(w) => w * w * w,
        None => b * b,
    };
    m * a
}

#[differentiable]
fn smaller_squared_at(p: [f64; 2]) -> f64 {
    smaller_squared(p[0], p[1])
}

#[test]
fn match_on_an_option_of_a_value_with_a_derivative() {
    // a < b: a^4, Hessian [[12 a^2, 0], [0, 0]]; else b^2 a: [[0, 2b], [2b, 2a]].
    let h = hessian!(at: [0.5, 2.0], of: smaller_squared_at);
    assert_matrix(&h, &[vec![3.0, 0.0], vec![0.0, 0.0]], 1e-12);
    let h = hessian!(at: [1.5, 0.5], of: smaller_squared_at);
    assert_matrix(&h, &[vec![0.0, 1.0], vec![1.0, 3.0]], 1e-12);
}

#[differentiable]
fn swapping(x: &[f64]) -> f64 {
    let (mut a, mut b) = (x[0], x[1] * 2.0);
    std::mem::swap(&mut a, &mut b);
    let mut w = x.to_vec();
    w.swap(1, 2);
    std::mem::swap(&mut w[0], &mut a);
    let old = std::mem::replace(&mut w[2], b * b);
    a * 3.0 + b + w[0] * old + w[2] * w[1]
}

#[test]
fn hessian_through_swaps() {
    // After the swaps a = x0, b = x0, w = [2 x1, x2, x0^2], old = x1:
    // f = 4 x0 + 2 x1^2 + x0^2 x2
    let x = vec![0.3, -1.2, 0.7];
    let h = hessian!(at: &x, of: swapping);
    let expected = [
        [2.0 * x[2], 0.0, 2.0 * x[0]],
        [0.0, 4.0, 0.0],
        [2.0 * x[0], 0.0, 0.0],
    ];
    for i in 0..3 {
        for j in 0..3 {
            assert!((h[i][j] - expected[i][j]).abs() < 1e-12, "{h:?}");
        }
    }
}

/// Two loops returning from the function: the returned value's placeholder is one
/// variable, dual in the first loop and plain in the second, so dual in both (was a type
/// mismatch in the dual companion; random tester, seed 12101).
#[differentiable]
fn returns_from_two_loops(x: f64, n: usize) -> f64 {
    if n == 0 {
        let mut k = 0;
        loop {
            k += 1;
            if k > 2 {
                return x * x * x;
            }
        }
    }
    let mut k = 0;
    loop {
        k += 1;
        if k % 3 == 0 {
            return (k as f64).cos();
        }
    }
}

#[test]
fn placeholder_of_a_return_shared_by_two_loops() {
    let x = 0.7;
    let d2 = second_derivative!(at: x, of: |x| returns_from_two_loops(x, 0));
    assert!((d2 - 6.0 * x).abs() < 1e-12, "{d2}");
    let d2 = second_derivative!(at: x, of: |x| returns_from_two_loops(x, 1));
    assert_eq!(d2, 0.0);
}

/// Methods of a struct of `f64` fields under second order, the model a constant: the
/// method's dual companion reads the receiver's float fields (its definition is in this
/// file) as constants, and the receiver's own slot is zero.
mod methods_of_a_model {
    use diff::prelude::*;

    #[derive(Differentiable, Clone, Debug)]
    pub struct Model {
        pub w: f64,
        pub b: f64,
        pub coefficients: Vec<f64>,
    }

    impl Model {
        #[differentiable]
        pub fn loss(&self, x: f64) -> f64 {
            (self.w * x + self.b).tanh().powi(2)
        }

        #[differentiable]
        pub fn poly(&self, x: &[f64]) -> f64 {
            let mut s = 0.0;
            for i in 0..x.len() {
                s += self.coefficients[i] * x[i].powi(i as i32 + 2);
            }
            s + self.loss(x[0])
        }
    }

    /// A function taking the model, differentiated with respect to `x` only.
    #[differentiable(wrt = (x))]
    fn fit(m: &Model, x: &[f64]) -> f64 {
        m.poly(x) * x[1]
    }

    fn model() -> Model {
        Model {
            w: 0.3,
            b: 0.1,
            coefficients: vec![1.5, -0.5, 2.0],
        }
    }

    #[test]
    fn second_derivatives_of_methods() {
        let m = model();
        let x = 0.7;
        // loss = tanh(u)^2, u = w x + b: loss'' = w^2 (2 sech^4 u - 4 tanh^2 u sech^2 u).
        let (t, w) = ((m.w * x + m.b).tanh(), m.w);
        let sech2 = 1.0 - t * t;
        let want = w * w * (2.0 * sech2 * sech2 - 4.0 * t * t * sech2);
        let d2 = second_derivative!(at: x, of: |x| m.loss(x));
        assert!((d2 - want).abs() < 1e-12, "{d2} vs {want}");
        let (v, d1, d2) = value_with_second_derivative!(at: x, of: |x| m.loss(x));
        assert_eq!(v, m.loss(x));
        assert!((d1 - 2.0 * t * sech2 * w).abs() < 1e-12);
        assert!((d2 - want).abs() < 1e-12);
    }

    #[test]
    fn hessians_through_methods_and_a_function_taking_the_model() {
        let m = model();
        let x = vec![0.7, -0.4, 1.1];
        let h = hessian!(at: &x, of: |p: &[f64]| m.poly(p));
        super::assert_symmetric(&h);
        let want =
            super::hessian_by_differences(&x, |p| gradient!(at: p, of: |q: &[f64]| m.poly(q)));
        super::assert_matrix(&h, &want, 1e-6);
        let h = hessian!(at: &x, of: |p: &[f64]| fit(&m, p));
        super::assert_symmetric(&h);
        let want =
            super::hessian_by_differences(&x, |p| gradient!(at: p, of: |q: &[f64]| fit(&m, q)));
        super::assert_matrix(&h, &want, 1e-6);
    }
}

/// `for (k, a) in p.iter().enumerate()`: the item's index (of a type the macro cannot
/// tell from the item alone) beside a value that carries a derivative, and constants of
/// the standard library (`PI`, `f64::EPSILON`).
#[differentiable]
fn enumerated_wave(p: &[f64]) -> f64 {
    let mut acc = 0.0;
    for (k, a) in p.iter().enumerate() {
        let phase = 2.0 * std::f64::consts::PI * (k as f64) / (p.len() as f64);
        acc += a * a * phase.cos() + a.abs().max(f64::EPSILON).ln();
    }
    acc
}

#[test]
fn hessian_over_an_enumerated_slice() {
    let p = vec![0.5, -1.2, 2.0, 0.7];
    let h = hessian!(at: &p, of: enumerated_wave);
    let n = p.len() as f64;
    for i in 0..p.len() {
        for j in 0..p.len() {
            let phase = 2.0 * std::f64::consts::PI * i as f64 / n;
            let want = if i == j {
                2.0 * phase.cos() - 1.0 / (p[i] * p[i])
            } else {
                0.0
            };
            assert_close(h[i][j], want, 1e-12);
        }
    }
}

/// `std::mem::swap` and `replace` through fields and elements, some of whose values carry
/// no derivative: generic, they run on dual numbers as they are.
#[differentiable]
fn swapped_places(a: f64, b: f64) -> f64 {
    let mut t = (a * 2.0, 1.5);
    let mut arr = [b, 3.0, a];
    std::mem::swap(&mut t.0, &mut t.1);
    std::mem::swap(&mut arr[0], &mut t.0);
    let k = std::mem::replace(&mut arr[2], 0.5);
    // A swap whose values the result does not read.
    let mut unused = (a * b, 0.0);
    std::mem::swap(&mut unused.0, &mut unused.1);
    t.0 * b + arr[0].sin() + t.1 * k + arr[2]
}

#[test]
fn hessian_through_swaps_of_places() {
    // b^2 + sin 1.5 + 2 a^2 + 0.5
    let h = hessian!(at: [0.3, 2.5], of: |p: [f64; 2]| swapped_places(p[0], p[1]));
    assert_matrix(&h, &[vec![4.0, 0.0], vec![0.0, 2.0]], 1e-12);
}

/// Functions updating `&mut` floats, one call of which carries no derivative (its
/// result is never read): second order goes through their dual companions.
#[differentiable]
#[allow(clippy::manual_swap)]
fn swap_floats(a: &mut f64, b: &mut f64) {
    let t = *a;
    *a = *b;
    *b = t;
}

#[differentiable]
fn bump(a: &mut f64, k: f64) {
    *a += k * k;
}

#[differentiable]
fn through_mut_calls(x: f64, y: f64) -> f64 {
    let mut u = x * 2.0;
    let mut v = y;
    swap_floats(&mut u, &mut v);
    let mut dead = x * y;
    let mut other = 1.0;
    swap_floats(&mut dead, &mut other);
    bump(&mut dead, x);
    u * u * v + other
}

#[test]
fn hessian_through_calls_updating_mut_floats() {
    // 2 x y^2 + x y
    let (x, y) = (0.3, 2.5);
    let h = hessian!(at: [x, y], of: |p: [f64; 2]| through_mut_calls(p[0], p[1]));
    assert_matrix(
        &h,
        &[vec![0.0, 4.0 * y + 1.0], vec![4.0 * y + 1.0, 4.0 * x]],
        1e-12,
    );
}

/// An `Option` of constants (`Some(3.0)` or `None`) matched beside values that carry a
/// derivative: `None` takes the dual `Option` type it meets.
#[differentiable]
fn optional_factor(x: f64, k: f64) -> f64 {
    let a: f64 = match if 3.0 < k { Some(3.0) } else { None } {
        Some(w) => w * x,
        None => k * x,
    };
    let b: f64 = match if k < 1.0 { None } else { Some(k) } {
        Some(w) => w * x,
        None => x,
    };
    a * x + b
}

#[test]
fn hessian_through_options_of_constants() {
    let h = |x: f64, k: f64| hessian!(at: [x, k], of: |p: [f64; 2]| optional_factor(p[0], p[1]));
    // 3 x^2 + k x
    assert_matrix(&h(0.3, 4.5), &[vec![6.0, 1.0], vec![1.0, 0.0]], 1e-12);
    // k x^2 + k x
    assert_matrix(&h(0.7, 2.0), &[vec![4.0, 2.4], vec![2.4, 0.0]], 1e-12);
    // k x^2 + x
    assert_matrix(&h(0.2, 0.5), &[vec![1.0, 0.4], vec![0.4, 0.0]], 1e-12);
}

/// Mean squared error of a linear model over the rows of a data matrix (`&[Vec<f64>]`).
#[differentiable]
fn mean_squared_error(w: &[f64], xs: &[Vec<f64>], ys: &[f64]) -> f64 {
    let mut loss = 0.0;
    for (x, y) in xs.iter().zip(ys) {
        let pred: f64 = w.iter().zip(x).map(|(a, b)| a * b).sum();
        loss += (pred - y).powi(2);
    }
    loss / ys.len() as f64
}

/// `v^T M v` with `M` given as rows.
#[differentiable]
fn quadratic_form(m: &Vec<Vec<f64>>, v: &[f64]) -> f64 {
    let mut total = 0.0;
    for (i, row) in m.iter().enumerate() {
        let mut acc = 0.0;
        for (j, a) in row.iter().enumerate() {
            acc += a * v[j] * v[j];
        }
        total += v[i] * acc;
    }
    total
}

/// The sum of squares of a 2x2 matrix of arrays, taken by value.
#[differentiable]
fn frobenius_squared(m: [[f64; 2]; 2]) -> f64 {
    m[0][0] * m[0][0] * m[1][1] + m[0][1] * m[1][0]
}

#[test]
fn hessians_of_functions_taking_the_rows_of_a_matrix() {
    let xs = vec![vec![1.0, 2.0], vec![3.0, 1.0], vec![-1.0, 0.5]];
    let ys = vec![1.0, 2.0, 0.0];
    let w = vec![0.5, -0.5];
    let h = hessian!(at: w.clone(), of: |w| mean_squared_error(&w, &xs, &ys));
    // (2 / n) sum x x^T
    let mut want = vec![vec![0.0; 2]; 2];
    for x in &xs {
        for i in 0..2 {
            for j in 0..2 {
                want[i][j] += 2.0 * x[i] * x[j] / 3.0;
            }
        }
    }
    assert_matrix(&h, &want, 1e-12);

    let m = vec![vec![1.0, 2.0], vec![3.0, 4.0]];
    let v = vec![0.7, -1.3];
    let h = hessian!(at: v.clone(), of: |v| quadratic_form(&m, &v));
    let g = |x: &[f64]| gradient!(at: x.to_vec(), of: |v| quadratic_form(&m, &v));
    assert_matrix(&h, &hessian_by_differences(&v, g), 1e-6);
    assert_symmetric(&h);

    // The matrix as the point: d2/dm00 dm11 = 2 m00, d2/dm01 dm10 = 1.
    let (a, b, c, d) = (1.5, 0.5, -2.0, 3.0);
    let h = hessian!(
        at: vec![a, b, c, d],
        of: |p: Vec<f64>| frobenius_squared([[p[0], p[1]], [p[2], p[3]]])
    );
    let want = vec![
        vec![2.0 * d, 0.0, 0.0, 2.0 * a],
        vec![0.0, 0.0, 1.0, 0.0],
        vec![0.0, 1.0, 0.0, 0.0],
        vec![2.0 * a, 0.0, 0.0, 0.0],
    ];
    assert_matrix(&h, &want, 1e-12);
}

#[differentiable]
fn cubes_reported(x: &[f64]) -> f64 {
    let s: f64 = x.iter().map(|v| v * v * v).sum();
    let label = format!("sum of cubes {s:.3}");
    debug_assert!(s.is_finite(), "{label}: {s}");
    s
}

#[test]
fn formatting_a_value_by_name_keeps_second_order() {
    // A format string naming a local (`{s}`) reads it; the second sweep prints the value.
    let x = vec![0.5, -2.0, 1.5];
    let h = hessian!(at: &x, of: cubes_reported);
    let want: Vec<Vec<f64>> = (0..3)
        .map(|i| {
            (0..3)
                .map(|j| if i == j { 6.0 * x[i] } else { 0.0 })
                .collect()
        })
        .collect();
    assert_matrix(&h, &want, 1e-12);
}

#[differentiable]
fn horner(coef: &[f64], x: f64) -> f64 {
    if coef.is_empty() {
        0.0
    } else {
        coef[0] + x * horner(&coef[1..], x)
    }
}

#[test]
fn second_order_of_a_recursive_function() {
    // The recursive call's pullback is boxed in the second sweep as in the first.
    let c = vec![1.0, -2.0, 0.5, 3.0];
    let d2 = second_derivative!(at: 0.7, of: |x| horner(&c, x));
    assert_close(d2, 2.0 * 0.5 + 6.0 * 3.0 * 0.7, 1e-12);
    // With respect to the coefficients and x: ∂²/∂c_k∂x = k x^(k-1), ∂²/∂x² as above.
    let h = hessian!(at: vec![1.0, -2.0, 0.5, 3.0, 0.7], of: |v: Vec<f64>| horner(&v[..4], v[4]));
    let x = 0.7f64;
    let mut want = vec![vec![0.0; 5]; 5];
    for k in 1..4 {
        want[k][4] = k as f64 * x.powi(k as i32 - 1);
        want[4][k] = want[k][4];
    }
    want[4][4] = d2;
    assert_matrix(&h, &want, 1e-12);
}

// Mutual recursion, in a generic pair and in an f64 pair: each boxes the linear maps it
// returns, in the second sweep as in the first.
#[differentiable]
fn ping<T: Float>(x: T, n: usize) -> T {
    if n == 0 {
        x.sin()
    } else {
        pong(x, n - 1) * x
    }
}

#[differentiable]
fn pong<T: Float>(x: T, n: usize) -> T {
    if n == 0 {
        x * x
    } else {
        ping(x, n - 1) + x
    }
}

#[differentiable]
fn ping64(x: f64, n: usize) -> f64 {
    if n == 0 {
        x.sin()
    } else {
        pong64(x, n - 1) * x
    }
}

#[differentiable]
fn pong64(x: f64, n: usize) -> f64 {
    if n == 0 {
        x * x
    } else {
        ping64(x, n - 1) + x
    }
}

#[test]
fn second_order_of_mutually_recursive_functions() {
    // ping(x, 4) = ((sin x + x) x + x) x = x^2 sin x + x^3 + x^2.
    let x = 0.7f64;
    let want = 2.0 * x.sin() + 4.0 * x * x.cos() - x * x * x.sin() + 6.0 * x + 2.0;
    assert_close(second_derivative!(at: x, of: |x| ping(x, 4)), want, 1e-12);
    assert_close(second_derivative!(at: x, of: |x| ping64(x, 4)), want, 1e-12);
    let h = hessian!(at: vec![x], of: |v: Vec<f64>| ping64(v[0], 4));
    assert_matrix(&h, &[vec![want]], 1e-12);
}

#[derive(Differentiable, Clone, Copy, Debug)]
struct Bond {
    k: f64,
    x: f64,
}

impl Bond {
    #[differentiable]
    fn energy(&self) -> f64 {
        0.5 * self.k * self.x * self.x
    }
}

#[test]
fn hessian_of_a_closure_building_a_struct() {
    // The closure's struct is built as its dual twin, as in a function's body.
    let h = hessian!(at: vec![3.0, 0.5], of: |v: Vec<f64>| Bond { k: v[0], x: v[1] }.energy());
    assert_matrix(&h, &[vec![0.0, 0.5], vec![0.5, 3.0]], 1e-12);
}

/// A struct generic over its floats, with a method written for any `T: Float`.
#[derive(Clone, Copy, Debug)]
struct Quad<T> {
    a: T,
    b: T,
}

impl<T: num_traits::Float> Quad<T> {
    #[differentiable]
    fn eval(&self, x: T) -> T {
        self.a * x * x + self.b * x.sin()
    }
}

/// Builds one of `f64` as a constant and calls its method on `x`.
#[differentiable]
fn through_a_generic_struct(x: f64) -> f64 {
    let q = Quad { a: 2.0, b: 0.5 };
    q.eval(x) * 3.0
}

#[test]
fn a_method_of_a_generic_struct_held_constant() {
    // First order as ever; second order declines (its companion would take the
    // struct's `f64`s, not dual numbers) instead of failing to compile.
    let x = 0.7;
    let d = gradient!(at: x, of: through_a_generic_struct);
    assert_close(d, 3.0 * (4.0 * x + 0.5 * x.cos()), 1e-12);
    assert_declined(
        || second_derivative!(at: x, of: through_a_generic_struct),
        "through_a_generic_struct",
    );
}

#[differentiable]
fn cubed<T: num_traits::Float>(x: T) -> T {
    x * x * x
}

/// A function for `f64` calling a generic one with its type given (`cubed::<f64>`).
#[differentiable]
fn calls_with_a_turbofish(x: f64) -> f64 {
    cubed::<f64>(x) + 2.0 * x * x
}

#[test]
fn second_order_through_a_generic_callee_given_its_float_type() {
    let x = 1.5;
    assert_close(
        gradient!(at: x, of: calls_with_a_turbofish),
        3.0 * x * x + 4.0 * x,
        1e-12,
    );
    let d2 = second_derivative!(at: x, of: calls_with_a_turbofish);
    assert_close(d2, 6.0 * x + 4.0, 1e-12);
}

/// Slices of a struct with a twin as parameters: built of dual numbers by the closure
/// (`&[Obs { .. }]` of the point's coordinates), or plain data the hessian's point does
/// not reach (`&observations`, lifted as constants).
mod slices_of_structs {
    use super::{assert_close, assert_row_by_differences};
    use diff::prelude::*;

    #[derive(Differentiable, Clone, Copy, Debug)]
    pub struct Obs {
        x: f64,
        y: f64,
    }

    impl Obs {
        #[differentiable]
        fn norm(&self) -> f64 {
            (self.x * self.x + self.y * self.y).sqrt()
        }
    }

    #[differentiable]
    fn spread(ps: &[Obs]) -> f64 {
        ps.iter().map(|p| p.x * p.y).sum::<f64>()
            + ps.iter().map(Obs::norm).sum::<f64>()
            + ps[0].x.powi(3)
    }

    #[differentiable]
    fn fit(w: &[f64], obs: &[Obs]) -> f64 {
        let mut l = 0.0;
        for o in obs {
            let e = w[0] * o.x + w[1] * o.x * o.x - o.y;
            l += e * e;
        }
        l
    }

    #[differentiable]
    fn fit_of_a_vec(w: &[f64], obs: &Vec<Obs>) -> f64 {
        fit(w, obs) * 2.0
    }

    #[test]
    fn hessians_through_slices_of_structs() {
        let at = [0.3, 0.4, 1.0, -0.5];
        let h = hessian!(at: at.to_vec(), of: |v: Vec<f64>| spread(&[Obs { x: v[0], y: v[1] }, Obs { x: v[2], y: v[3] }]));
        let first = |v: &[f64]| {
            gradient!(at: vec![Obs { x: v[0], y: v[1] }, Obs { x: v[2], y: v[3] }], of: |ps: Vec<Obs>| spread(&ps))[0].x
        };
        assert_row_by_differences(&h, 0, at, first);

        let obs = vec![
            Obs { x: 1.0, y: 2.0 },
            Obs { x: 2.0, y: 3.5 },
            Obs { x: 3.0, y: 6.1 },
        ];
        // 2 Σ [x², x³; x³, x⁴]
        let want = [[28.0, 72.0], [72.0, 196.0]];
        let h = hessian!(at: vec![0.5, 0.1], of: |w: Vec<f64>| fit(&w, &obs));
        let h2 = hessian!(at: vec![0.5, 0.1], of: |w: Vec<f64>| fit_of_a_vec(&w, &obs));
        for i in 0..2 {
            for j in 0..2 {
                assert_close(h[i][j], want[i][j], 1e-12);
                assert_close(h2[i][j], 2.0 * want[i][j], 1e-12);
            }
        }
    }
}

/// A struct holding a `Vec` of another (a network of layers): its twin holds the layers'
/// twins, so a hessian runs through `for layer in &self.layers { layer.forward(..) }`.
mod vec_of_structs {
    use super::{assert_close, assert_row_by_differences};
    use diff::prelude::*;

    #[derive(Differentiable, Clone, Debug)]
    pub struct Layer {
        w: Vec<Vec<f64>>,
        b: Vec<f64>,
    }

    impl Layer {
        #[differentiable]
        fn forward(&self, x: &[f64]) -> Vec<f64> {
            self.w
                .iter()
                .zip(&self.b)
                .map(|(row, b)| {
                    let s: f64 = row.iter().zip(x).map(|(w, x)| w * x).sum();
                    (s + b).tanh()
                })
                .collect()
        }
    }

    #[derive(Differentiable, Clone, Debug)]
    pub struct Mlp {
        layers: Vec<Layer>,
    }

    impl Mlp {
        #[differentiable]
        fn forward(&self, x: &[f64]) -> f64 {
            let mut h = x.to_vec();
            for layer in &self.layers {
                h = layer.forward(&h);
            }
            h[0]
        }
    }

    #[differentiable]
    fn mse(m: &Mlp, xs: &[f64], ys: &[f64]) -> f64 {
        let mut l = 0.0;
        for i in 0..xs.len() {
            let e = m.forward(&[xs[i]]) - ys[i];
            l += e * e;
        }
        l / xs.len() as f64
    }

    fn network(v: &[f64]) -> Mlp {
        Mlp {
            layers: vec![
                Layer {
                    w: vec![vec![v[0]], vec![v[1]]],
                    b: vec![v[2], v[3]],
                },
                Layer {
                    w: vec![vec![v[4], v[5]]],
                    b: vec![v[6]],
                },
            ],
        }
    }

    #[test]
    fn hessian_of_a_network_of_layers() {
        let (xs, ys) = (vec![0.1, 0.5, 0.9], vec![0.2, 0.4, 0.1]);
        let at = [0.5, -0.3, 0.1, 0.2, 1.0, -1.0, 0.0];
        let h = hessian!(at: at.to_vec(), of: |v: Vec<f64>| mse(&Mlp {
            layers: vec![
                Layer { w: vec![vec![v[0]], vec![v[1]]], b: vec![v[2], v[3]] },
                Layer { w: vec![vec![v[4], v[5]]], b: vec![v[6]] },
            ],
        }, &xs, &ys));
        let last_bias = |v: &[f64]| {
            let (g, _, _) = gradient!(at: (&network(v), &xs, &ys), of: mse);
            g.layers[1].b[0]
        };
        assert_row_by_differences(&h, 6, at, last_bias);
        // With respect to the input, the network held constant.
        let m = network(&at);
        let d2 = second_derivative!(at: 0.3, of: |x: f64| m.forward(&[x]));
        let d1 = |x: f64| first_derivative!(at: x, of: |t: f64| m.forward(&[t]));
        assert_close(d2, (d1(0.3 + 1e-5) - d1(0.3 - 1e-5)) / 2e-5, 1e-6);
    }
}

/// Observations as pairs of floats, passed to a function (`&[(f64, f64)]`, `&Vec<..>`,
/// a `Vec` by value) or iterated by the closure itself (captured data whose type the
/// macro cannot see).
mod pairs_of_floats {
    use super::assert_close;
    use diff::prelude::*;

    #[differentiable]
    fn fit(w: &[f64], data: &[(f64, f64)]) -> f64 {
        let mut l = 0.0;
        for &(x, y) in data {
            let e = w[0] * x + w[1] * x * x - y;
            l += e * e;
        }
        l
    }

    #[differentiable]
    fn fit_of_a_vec(w: &[f64], data: &Vec<(f64, f64)>) -> f64 {
        fit(w, data)
    }

    #[differentiable]
    fn fit_owned(w: &[f64], data: Vec<(f64, f64)>) -> f64 {
        fit(w, &data) + data[0].1 * w[0] * w[0]
    }

    #[test]
    fn hessians_over_pairs() {
        let data = vec![(1.0, 2.0), (2.0, 3.5), (3.0, 6.1)];
        // 2 Σ [x², x³; x³, x⁴]
        let want = [[28.0, 72.0], [72.0, 196.0]];
        let hs = [
            hessian!(at: vec![0.5, 0.1], of: |w: Vec<f64>| fit(&w, &data)),
            hessian!(at: vec![0.5, 0.1], of: |w: Vec<f64>| fit_of_a_vec(&w, &data)),
            hessian!(at: vec![0.5, 0.1], of: |w: Vec<f64>| {
                let mut l = 0.0;
                for &(x, y) in &data {
                    let e = w[0] * x + w[1] * x * x - y;
                    l += e * e;
                }
                l
            }),
        ];
        for h in &hs {
            for i in 0..2 {
                for j in 0..2 {
                    assert_close(h[i][j], want[i][j], 1e-12);
                }
            }
        }
        let h = hessian!(at: vec![0.5, 0.1], of: |w: Vec<f64>| fit_owned(&w, data.clone()));
        assert_close(h[0][0], want[0][0] + 2.0 * 2.0, 1e-12);
        assert_close(h[1][1], want[1][1], 1e-12);
    }
}

/// A struct generic over its floats, used at `f64` by functions written for `f64`: their
/// dual companions take it at dual numbers (`Model<Dual<f64>>`), and its generic
/// methods run on that as they are. One without `Clone` still has its first derivative.
mod generic_struct_at_f64 {
    use super::{assert_close, assert_row_by_differences};
    use diff::prelude::*;
    use num_traits::Float;

    #[derive(Differentiable, Clone, Debug)]
    pub struct Affine<T> {
        w: T,
        b: T,
        extra: Vec<T>,
    }

    impl<T: Float + Differentiable> Affine<T> {
        #[differentiable]
        fn predict(&self, x: T) -> T {
            (self.w * x + self.b).tanh() + self.extra[0] * x
        }
    }

    #[differentiable]
    fn loss(m: &Affine<f64>, data: &[(f64, f64)]) -> f64 {
        data.iter()
            .map(|&(x, y)| (m.predict(x) - y).powi(2))
            .sum::<f64>()
            / data.len() as f64
            + m.w * m.b
    }

    #[differentiable]
    fn doubled(m: &Affine<f64>, data: &[(f64, f64)]) -> f64 {
        2.0 * loss(m, data)
    }

    #[derive(Differentiable, Debug)]
    pub struct Unclonable<T> {
        a: T,
    }

    #[differentiable]
    fn unclonable(u: &Unclonable<f64>, x: f64) -> f64 {
        u.a * x * x
    }

    #[test]
    fn hessians_through_a_generic_struct_at_f64() {
        let data = vec![(0.1, 0.2), (0.5, 0.4), (-0.3, -0.1)];
        let at = [0.5, -0.1];
        let model = |v: &[f64]| Affine {
            w: v[0],
            b: v[1],
            extra: vec![0.3],
        };
        let h = hessian!(at: at.to_vec(), of: |v: Vec<f64>| loss(&Affine { w: v[0], b: v[1], extra: vec![0.3] }, &data));
        let h2 = hessian!(at: at.to_vec(), of: |v: Vec<f64>| doubled(&Affine { w: v[0], b: v[1], extra: vec![0.3] }, &data));
        let dw = |v: &[f64]| {
            let (g, _) = gradient!(at: (&model(v), &data), of: loss);
            g.w
        };
        assert_row_by_differences(&h, 0, at, dw);
        for j in 0..2 {
            assert_close(h2[0][j], 2.0 * h[0][j], 1e-12);
        }
        // The model held constant, the data differentiated.
        let m = model(&at);
        let hx = hessian!(at: vec![0.1, 0.2], of: |v: Vec<f64>| loss(&m, &[(v[0], v[1])]));
        assert_close(hx[1][1], 2.0, 1e-12);

        let (gu, gx) = gradient!(at: (&Unclonable { a: 3.0 }, 2.0), of: unclonable);
        assert_eq!((gu.a, gx), (4.0, 12.0));
    }

    /// A closure capturing such a struct, or building one of constants, and calling its
    /// method: the struct is taken at dual numbers (`LiftGeneric`, which the derive gives).
    #[test]
    fn second_order_of_a_method_of_a_captured_generic_struct() {
        let m = Affine {
            w: 0.8,
            b: -0.2,
            extra: vec![0.3],
        };
        let x = 0.6;
        let t = (0.8f64 * x - 0.2).tanh();
        // f = tanh(w x + b) + 0.3 x: f' = w (1 - t^2) + 0.3, f'' = -2 w^2 t (1 - t^2).
        let d = first_derivative!(at: x, of: |x| m.predict(x));
        assert_close(d, 0.8 * (1.0 - t * t) + 0.3, 1e-14);
        let d2 = second_derivative!(at: x, of: |x| m.predict(x));
        assert_close(d2, -2.0 * 0.64 * t * (1.0 - t * t), 1e-13);
        let h = hessian!(at: vec![x, 2.0], of: |v: Vec<f64>| m.predict(v[0]) * v[1]);
        assert_close(h[0][0], 2.0 * d2, 1e-13);
        assert_close(h[0][1], d, 1e-13);
        assert_close(h[1][0], d, 1e-13);
        assert_close(h[1][1], 0.0, 1e-15);
        let built = hessian!(at: vec![x], of: |v: Vec<f64>| Affine { w: 0.8, b: -0.2, extra: vec![0.3] }.predict(v[0]));
        assert_close(built[0][0], d2, 1e-13);
    }
}

#[differentiable]
fn mixed_terms(x: f64, y: f64) -> f64 {
    x * x * y + y.sin() * x
}

#[differentiable]
fn scaled_product(v: &[f64], s: f64) -> f64 {
    v[0] * v[1] * s + s * s
}

#[test]
fn hessian_of_several_inputs_in_order() {
    let (x, y) = (0.7, 1.3);
    let want = vec![
        vec![2.0 * y, 2.0 * x + y.cos()],
        vec![2.0 * x + y.cos(), -y.sin() * x],
    ];
    let h = hessian!(at: (x, y), of: mixed_terms);
    assert_matrix(&h, &want, 1e-12);
    assert_symmetric(&h);
    let h = hessian!(at: (x, y), of: |a: f64, b: f64| mixed_terms(a, b) * 2.0);
    let twice: Vec<Vec<f64>> = want
        .iter()
        .map(|r| r.iter().map(|v| 2.0 * v).collect())
        .collect();
    assert_matrix(&h, &twice, 1e-12);
    // A slice and a scalar: the slice's coordinates first, then the scalar.
    let v = vec![2.0, 3.0];
    let s = 1.5;
    let h = hessian!(at: (&v, s), of: scaled_product);
    let by_differences = hessian_by_differences(&[v[0], v[1], s], |p| {
        let (gv, gs) = gradient!(at: (&p[..2], p[2]), of: scaled_product);
        vec![gv[0], gv[1], gs]
    });
    assert_matrix(&h, &by_differences, 1e-6);
}

/// A struct built by its constructor, cloned and combined by associated functions: the
/// constructor's result is known to be the struct, and its `clone` stays a clone.
mod constructed {
    use diff::prelude::*;

    #[derive(Differentiable, Clone, Debug)]
    pub struct P {
        pub a: f64,
        pub b: f64,
    }

    impl P {
        #[differentiable]
        pub fn new(a: f64, b: f64) -> Self {
            P { a, b }
        }
        #[differentiable]
        pub fn combine(p: P, q: P) -> P {
            P {
                a: p.a * q.a,
                b: p.b + q.b,
            }
        }
        #[differentiable]
        pub fn size(&self) -> f64 {
            (self.a * self.a + self.b * self.b).sqrt()
        }
    }

    #[differentiable]
    pub fn uses(x: f64) -> f64 {
        let p = P::new(x, 2.0 * x);
        let q = P::combine(p.clone(), P::new(1.5, x));
        q.size() * p.a
    }
}

#[test]
fn second_derivative_through_a_constructor_and_a_clone() {
    let x = 0.7;
    let d1 = |x: f64| gradient!(at: x, of: constructed::uses);
    let d2 = second_derivative!(at: x, of: constructed::uses);
    let h = 1e-5;
    assert_close(d2, (d1(x + h) - d1(x - h)) / (2.0 * h), 1e-6);
}

/// An RK4 step written with a closure bound in the body, which reads a differentiated
/// parameter (`damping`): the closure's calls are inlined, and its definition reads the
/// plain values in the dual companion.
#[differentiable]
fn pendulum(theta0: f64, damping: f64) -> f64 {
    let dt = 0.01;
    let f = |th: f64, om: f64| (om, -9.81 * th.sin() - damping * om);
    let (mut th, mut om) = (theta0, 0.0);
    for _ in 0..50 {
        let (k1a, k1b) = f(th, om);
        let (k2a, k2b) = f(th + 0.5 * dt * k1a, om + 0.5 * dt * k1b);
        let (k3a, k3b) = f(th + 0.5 * dt * k2a, om + 0.5 * dt * k2b);
        let (k4a, k4b) = f(th + dt * k3a, om + dt * k3b);
        th += dt / 6.0 * (k1a + 2.0 * k2a + 2.0 * k3a + k4a);
        om += dt / 6.0 * (k1b + 2.0 * k2b + 2.0 * k3b + k4b);
    }
    th
}

#[test]
fn hessian_through_a_closure_reading_a_parameter() {
    let (a, c) = (0.5, 0.2);
    let h = hessian!(at: (a, c), of: pendulum);
    let e = 1e-5;
    let (ga1, gc1) = gradient!(at: (a, c + e), of: pendulum);
    let (ga0, gc0) = gradient!(at: (a, c - e), of: pendulum);
    let (gb1, _) = gradient!(at: (a + e, c), of: pendulum);
    let (gb0, _) = gradient!(at: (a - e, c), of: pendulum);
    assert_close(h[0][1], (ga1 - ga0) / (2.0 * e), 1e-6);
    assert_close(h[1][1], (gc1 - gc0) / (2.0 * e), 1e-6);
    assert_close(h[0][0], (gb1 - gb0) / (2.0 * e), 1e-6);
    assert!((h[0][1] - h[1][0]).abs() < 1e-10);
}

/// A Gaussian negative log-likelihood generic over its float, reading a slice of data.
#[differentiable]
fn gaussian_nll<T: num_traits::Float>(mu: T, log_sigma: T, data: &[T]) -> T {
    let half = T::from(0.5).unwrap();
    let sigma = log_sigma.exp();
    let mut total = T::zero();
    for &x in data {
        let z = (x - mu) / sigma;
        total = total + half * z * z + log_sigma;
    }
    total
}

#[differentiable]
fn nll_at_f64(mu: f64, log_sigma: f64, data: &[f64]) -> f64 {
    gaussian_nll(mu, log_sigma, data)
}

/// The hessian in (mu, log_sigma) by hand: with z = (x - mu) / sigma,
/// d2/dmu2 = n / sigma^2, d2/dmu dls = 2 sum z / sigma, d2/dls2 = 2 sum z^2.
fn nll_hessian(mu: f64, log_sigma: f64, data: &[f64]) -> Vec<Vec<f64>> {
    let sigma = log_sigma.exp();
    let z: Vec<f64> = data.iter().map(|x| (x - mu) / sigma).collect();
    let n = data.len() as f64;
    let cross = 2.0 * z.iter().sum::<f64>() / sigma;
    vec![
        vec![n / (sigma * sigma), cross],
        vec![cross, 2.0 * z.iter().map(|z| z * z).sum::<f64>()],
    ]
}

#[test]
fn hessian_of_a_generic_function_given_plain_data_it_borrows() {
    let data = [1.0, 2.0, 1.5, 0.7];
    let want = nll_hessian(1.2, 0.1, &data);
    // Captured by a closure: the data stays `f64` while the point is dual.
    let h = hessian!(at: (1.2, 0.1), of: |m: f64, s: f64| gaussian_nll(m, s, &data));
    assert_matrix(&h, &want, 1e-12);
    // Called from a function written for `f64`, with the data a parameter.
    let h = hessian!(at: (1.2, 0.1), of: |m: f64, s: f64| nll_at_f64(m, s, &data));
    assert_matrix(&h, &want, 1e-12);
    // The data differentiated too: a 6x6 hessian, whose top-left block is the same.
    let point = vec![1.2, 0.1, 1.0, 2.0, 1.5, 0.7];
    let all = hessian!(at: point, of: |p: Vec<f64>| gaussian_nll(p[0], p[1], &p[2..]));
    assert_matrix(&[all[0][..2].to_vec(), all[1][..2].to_vec()], &want, 1e-12);
}

mod built_by_a_free_function {
    use diff::prelude::*;

    #[derive(Differentiable, Clone, Debug)]
    pub struct Spring {
        pub rest: Vec<f64>,
        pub k: f64,
    }

    impl Spring {
        #[differentiable]
        pub fn energy(&self) -> f64 {
            self.rest[0] + self.rest[1] * self.k
        }
    }

    /// Returns the struct: the body calling it names no type.
    #[differentiable]
    pub fn spring_at(x: f64) -> Spring {
        Spring {
            rest: vec![3.0 * x, 6.0 * x],
            k: 9.0 * x * x,
        }
    }

    #[differentiable]
    pub fn uses(x: f64) -> f64 {
        let s = spring_at(x);
        s.k + s.energy()
    }
}

#[test]
fn second_order_through_a_struct_a_free_function_returns() {
    // 9x² + 3x + 54x³
    let x = 0.7;
    let (v, d, d2) = value_with_second_derivative!(at: x, of: built_by_a_free_function::uses);
    assert_close(v, built_by_a_free_function::uses(x), 1e-15);
    assert_close(d, 18.0 * x + 3.0 + 162.0 * x * x, 1e-12);
    assert_close(d2, 18.0 + 324.0 * x, 1e-12);
}

/// A generic function converting an active value to a plain float (`T::from(x)` with `x`
/// carrying a derivative, `x.to_f64()`): at second order the conversion would lose the
/// inner derivative (`Dual`'s `NumCast` makes a constant), so it stops with the reason
/// instead of returning a wrong hessian; first order is exact.
#[differentiable]
fn squared_through_a_conversion<T: Float>(x: T) -> T {
    let y: T = T::from(x).unwrap();
    y * y
}

#[test]
fn first_order_through_a_conversion_of_an_active_value() {
    assert_eq!(
        gradient!(at: 1.5, of: squared_through_a_conversion::<f64>),
        3.0
    );
}

#[test]
#[should_panic(expected = "converts a value carrying a derivative to a plain float")]
fn second_order_through_a_conversion_of_an_active_value_stops() {
    let _ = second_derivative!(at: 1.5, of: squared_through_a_conversion::<f64>);
}

#[differentiable]
fn with_tuple_coefficients(x: f64, t: (f64, f64), u: (f64, f64, f64)) -> f64 {
    x * x * t.0 + t.1 * x + u.0 * u.1 * u.2 * x.powi(3)
}

#[test]
fn tuples_of_constants_given_to_tuple_parameters() {
    // f'' = 2 t.0 + 6 u.0 u.1 u.2 x.
    let d2 = second_derivative!(at: 1.5, of: |x| with_tuple_coefficients(x, (0.5, 0.25), (1.0, 2.0, 0.5)));
    assert!((d2 - (1.0 + 6.0 * 1.5)).abs() < 1e-12, "{d2}");
}

pub trait ForceLaw {
    #[differentiable]
    fn force(x: f64) -> f64;
}

pub struct Cubic;

#[differentiable]
impl ForceLaw for Cubic {
    #[differentiable]
    fn force(x: f64) -> f64 {
        x * x * x
    }
}

pub struct Polynomials;

impl Polynomials {
    #[differentiable]
    pub fn square(x: f64) -> f64 {
        x * x
    }

    #[differentiable]
    pub fn fourth(x: f64) -> f64 {
        Self::square(x) * Self::square(x)
    }

    pub fn exp(x: f64) -> f64 {
        x.exp()
    }
}

#[derivative(of = Polynomials::exp)]
fn polynomials_exp(x: f64) -> (f64, impl FnOnce(f64) -> f64) {
    let e = x.exp();
    (e, move |s| s * e)
}

mod shapes {
    use diff::prelude::*;

    pub struct Disc;

    impl Disc {
        #[differentiable]
        pub fn area(r: f64) -> f64 {
            3.0 * r * r
        }
    }
}

/// Associated functions without a receiver, by `Type::f`, `Self::f` (inside), a module
/// path and a trait's.
#[differentiable]
fn through_associated_functions(x: f64) -> f64 {
    Cubic::force(x) + Polynomials::fourth(x) + shapes::Disc::area(x) * x
}

#[differentiable]
fn through_a_registered_associated_function(x: f64) -> f64 {
    Polynomials::exp(x) * x
}

#[test]
fn associated_functions_at_second_order() {
    for x in [0.5, -1.25] {
        let (v, d, d2) = value_with_second_derivative!(at: x, of: through_associated_functions);
        assert_eq!(v, through_associated_functions(x));
        // x^3 + x^4 + 3 x^3
        assert_close(d, 12.0 * x * x + 4.0 * x * x * x, 1e-12);
        assert_close(d2, 24.0 * x + 12.0 * x * x, 1e-12);
    }
    // The first order of a caller of a registered associated function, and its second
    // order declined with the reason (a registration is first order only).
    let d = gradient!(at: 0.5, of: through_a_registered_associated_function);
    assert_close(d, 0.5f64.exp() * 1.5, 1e-12);
    assert_declined(
        || second_derivative!(at: 0.5, of: through_a_registered_associated_function),
        "through_a_registered_associated_function",
    );
}

/// The index of an `enumerate` item kept with its value (found, collected, folded),
/// cast to a float: the cast reads the integer.
#[differentiable]
fn indices_kept_with_values(xs: &[f64]) -> f64 {
    let found = match xs.iter().enumerate().find(|(_, v)| **v > 1.0) {
        Some((k, v)) => v * v * k as f64,
        None => 0.0,
    };
    let pairs: Vec<(usize, f64)> = xs.iter().copied().enumerate().collect();
    let mut weighted = 0.0;
    for (i, v) in pairs {
        weighted += v * v * v * i as f64;
    }
    let (k, m) =
        xs.iter().copied().enumerate().fold(
            (0, f64::MIN),
            |(bk, bm), (i, v)| {
                if v > bm {
                    (i, v)
                } else {
                    (bk, bm)
                }
            },
        );
    found + weighted + m * m * (k as f64 + 1.0)
}

#[test]
fn hessian_through_indices_cast_to_floats() {
    // At x = (0.5, 1.5, 2.0): found = 1·x1², weighted = x1³ + 2 x2³, the largest is x2
    // (k = 2): 3 x2².
    let x = vec![0.5, 1.5, 2.0];
    let h = hessian!(at: &x, of: indices_kept_with_values);
    let want = vec![
        vec![0.0, 0.0, 0.0],
        vec![0.0, 2.0 + 6.0 * x[1], 0.0],
        vec![0.0, 0.0, 12.0 * x[2] + 6.0],
    ];
    assert_matrix(&h, &want, 1e-12);
    let by_differences =
        hessian_by_differences(&x, |p| gradient!(at: p, of: indices_kept_with_values));
    assert_matrix(&h, &by_differences, 1e-5);
}

#[differentiable]
fn det2(m: [[f64; 2]; 2]) -> f64 {
    m[0][0] * m[1][1] - m[0][1] * m[1][0]
}

#[differentiable]
fn frobenius_cubed(m: &Vec<Vec<f64>>) -> f64 {
    let mut s = 0.0;
    for row in m {
        for v in row {
            s += v * v * v;
        }
    }
    s
}

#[test]
fn hessians_of_nested_arrays_and_vecs() {
    // The coordinates in row order: m00, m01, m10, m11.
    let m = [[1.0, 2.0], [3.0, 4.0]];
    let h = hessian!(at: m, of: det2);
    let want = vec![
        vec![0.0, 0.0, 0.0, 1.0],
        vec![0.0, 0.0, -1.0, 0.0],
        vec![0.0, -1.0, 0.0, 0.0],
        vec![1.0, 0.0, 0.0, 0.0],
    ];
    assert_matrix(&h, &want, 1e-12);
    let v = vec![vec![1.0, -2.0], vec![0.5, 3.0, 1.5]];
    let h = hessian!(at: &v, of: frobenius_cubed);
    let flat = [1.0, -2.0, 0.5, 3.0, 1.5];
    for i in 0..5 {
        for j in 0..5 {
            let want = if i == j { 6.0 * flat[i] } else { 0.0 };
            assert_close(h[i][j], want, 1e-12);
        }
    }
}

#[derive(Differentiable, Clone, Copy, Debug)]
struct Bead {
    x: f64,
    v: f64,
}

impl Bead {
    #[differentiable]
    fn kick(&mut self, k: f64) {
        self.v += k * self.x;
        self.x *= k;
    }

    #[differentiable]
    fn energy(&self) -> f64 {
        0.5 * self.v * self.v + self.x * self.x
    }
}

/// `&mut self` and `&self` methods on elements of collections of structs built in the
/// body (`vec![..]`, `vec![b; n]`, an array; the `Vec`s are what is tested).
#[allow(clippy::useless_vec)]
#[differentiable]
fn beads_kicked(k: f64) -> f64 {
    let mut beads = vec![Bead { x: 1.0, v: 0.0 }, Bead { x: k, v: 1.0 }];
    beads[0].kick(k);
    beads[1].kick(2.0);
    let mut copies = vec![Bead { x: k, v: 0.5 }; 2];
    copies[1].kick(k);
    let mut pair = [Bead { x: 0.5, v: k }, Bead { x: 1.0, v: 1.0 }];
    pair[0].kick(k);
    beads[0].x * k + beads[1].energy() + copies[1].v + pair[0].energy()
}

#[test]
fn second_order_through_methods_on_elements() {
    for k in [0.7, 1.3] {
        let (v, d, d2) = value_with_second_derivative!(at: k, of: beads_kicked);
        assert_eq!(v, beads_kicked(k));
        let d1 = gradient!(at: k, of: beads_kicked);
        assert_close(d, d1, 1e-12);
        let h = 1e-4;
        let by_differences = (gradient!(at: k + h, of: beads_kicked)
            - gradient!(at: k - h, of: beads_kicked))
            / (2.0 * h);
        assert_close(d2, by_differences, 1e-6);
    }
}

/// Generic over its scalar, computing in `f64` through `Into<f64>` (as argmin's
/// `cross_in_tray` is written): first order follows the conversions; second order
/// declines with the reason, as dual numbers would lose their derivative in the `f64`.
#[differentiable]
fn through_f64<T: Float + Into<f64> + FromPrimitive>(x: T) -> T {
    let y: f64 = x.into();
    T::from_f64(y * y.sin()).unwrap()
}

#[test]
fn a_generic_function_computing_in_f64_has_first_order() {
    let (v, g) = value_with_gradient!(at: 1.3, of: through_f64::<f64>);
    assert_close(v, 1.3 * 1.3f64.sin(), 1e-12);
    assert_close(g, 1.3f64.sin() + 1.3 * 1.3f64.cos(), 1e-12);
}

#[test]
#[should_panic(expected = "converts its scalar type to a float (`Into<f64>`)")]
fn a_generic_function_computing_in_f64_declines_second_order() {
    let _ = second_derivative!(at: 1.3, of: through_f64::<f64>);
}

/// A branch that panics joined with values that carry a derivative (a `let`-`else`, a
/// `match` arm): first and second order, the panicking branch never taken.
#[differentiable]
fn let_else_panics(x: &[f64]) -> f64 {
    let [a, b, ..] = *x else {
        panic!("short input")
    };
    a * b.sin()
}

#[differentiable]
fn match_arm_panics(x: &[f64]) -> f64 {
    match x {
        [a, b, ..] => a * b.sin(),
        _ => unreachable!("short input"),
    }
}

#[test]
fn branches_that_panic_beside_active_values() {
    let x = vec![1.5, 2.0];
    let (a, b) = (x[0], x[1]);
    let want_h = [[0.0, b.cos()], [b.cos(), -a * b.sin()]];
    for f in [let_else_panics, match_arm_panics] {
        assert_eq!(f(&x), a * b.sin());
    }
    let (v, g) = value_with_gradient!(at: &x, of: let_else_panics);
    assert_eq!((v, g), (a * b.sin(), vec![b.sin(), a * b.cos()]));
    let (v, g) = value_with_gradient!(at: &x, of: match_arm_panics);
    assert_eq!((v, g), (a * b.sin(), vec![b.sin(), a * b.cos()]));
    let h1 = hessian!(at: &x, of: let_else_panics);
    let h2 = hessian!(at: &x, of: match_arm_panics);
    for i in 0..2 {
        for j in 0..2 {
            assert!((h1[i][j] - want_h[i][j]).abs() < 1e-12, "{h1:?}");
            assert!((h2[i][j] - want_h[i][j]).abs() < 1e-12, "{h2:?}");
        }
    }
}

// ---------------------------------------------------------------------------------------
// Constants converted by `T::from(c)` in a generic function (num-dual's `polevl(x,
// &COEFFS)`): at second order the adjoint of the plain constant is a dual number, whose
// value the constant gets.

#[differentiable]
fn polynomial<T: Float>(x: T, coef: &[f64]) -> T {
    coef.iter()
        .fold(T::zero(), |acc, &c| acc * x + T::from(c).unwrap())
}

#[differentiable]
fn converted_square<T: Float>(x: T, k: f64) -> T {
    x * x * T::from(k).unwrap()
}

#[test]
fn constants_converted_into_a_generic_float() {
    const C: [f64; 3] = [3.0, -6.0, 1.0];
    let x = 2.0;
    assert_eq!(gradient!(at: x, of: |t: f64| polynomial(t, &C)), 6.0);
    let (v, d1, d2) = value_with_second_derivative!(at: x, of: |t: f64| polynomial(t, &C));
    assert_eq!((v, d1, d2), (polynomial(x, &C), 6.0, 6.0));
    let h = hessian!(at: vec![x], of: |p: Vec<f64>| converted_square(p[0], 3.0));
    assert_eq!(h, vec![vec![6.0]]);
}

// ---------------------------------------------------------------------------------------
// Methods at second order: one returning another struct whose operators are followed
// (an RK4 step written with an operator-overloaded state), and a `&self` method of plain
// settings updating a `&mut` argument.

#[derive(Differentiable, Clone, Copy, Debug)]
struct Stage {
    a: f64,
}

impl std::ops::Mul<f64> for Stage {
    type Output = Stage;
    #[differentiable]
    fn mul(self, k: f64) -> Stage {
        Stage { a: self.a * k }
    }
}

#[derive(Differentiable, Clone, Debug)]
struct Rate {
    k: f64,
}

impl Rate {
    #[differentiable]
    fn rhs(&self, s: Stage) -> Stage {
        Stage { a: s.a * self.k }
    }

    #[differentiable]
    fn half_step(&self, s: Stage) -> Stage {
        let k1 = self.rhs(s);
        k1 * 0.5
    }
}

#[differentiable]
fn staged(x: f64) -> f64 {
    let r = Rate { k: x };
    r.half_step(Stage { a: x }).a
}

pub struct Growth {
    pub r: f64,
}

impl Growth {
    #[differentiable]
    pub fn step(&self, u: &mut Vec<f64>) {
        u[0] *= 1.0 + self.r;
    }

    #[differentiable]
    pub fn run(&self, u0: &[f64]) -> f64 {
        let mut u = u0.to_vec();
        self.step(&mut u);
        self.step(&mut u);
        u[0] * u[0]
    }
}

#[test]
fn methods_returning_other_structs_and_updating_arguments() {
    // 0.5 x²: second derivative 1.
    let (v, d) = value_with_derivative!(at: 2.0, of: staged);
    assert_eq!((v, d), (2.0, 2.0));
    assert_eq!(second_derivative!(at: 2.0, of: staged), 1.0);
    // (u (1 + r)²)²: hessian 2 (1 + r)⁴.
    let g = Growth { r: 0.5 };
    let grad = gradient!(at: &vec![1.0], of: |u: &[f64]| g.run(u));
    assert_eq!(grad, vec![2.0 * 1.5f64.powi(4)]);
    let h = hessian!(at: &vec![1.0], of: |u: &[f64]| g.run(u));
    assert_eq!(h, vec![vec![2.0 * 1.5f64.powi(4)]]);
}

// ---------------------------------------------------------------------------------------
// An unmarked method returning an index, called with a value that carries a derivative
// (a spline's interval lookup): primal code, at first and second order.

pub struct Knots {
    pub xs: Vec<f64>,
}

impl Knots {
    fn interval(&self, t: f64) -> usize {
        self.xs
            .windows(2)
            .position(|w| t <= w[1])
            .unwrap_or(self.xs.len() - 2)
    }

    #[differentiable]
    pub fn eval(&self, t: f64) -> f64 {
        let k = self.interval(t);
        (k as f64 + 1.0) * t * t * t + self.xs[k] * t
    }
}

#[test]
fn methods_returning_an_index() {
    let g = Knots {
        xs: vec![0.0, 1.0, 2.0, 3.0],
    };
    // In [1, 2]: k = 1, f = 2 t³ + t.
    let t = 1.5;
    let (v, d) = value_with_derivative!(at: t, of: |t: f64| g.eval(t));
    assert_eq!((v, d), (g.eval(t), 6.0 * t * t + 1.0));
    assert_eq!(gradient!(at: t, of: |t: f64| g.eval(t)), 6.0 * t * t + 1.0);
    assert_eq!(second_derivative!(at: t, of: |t: f64| g.eval(t)), 12.0 * t);
}

// ---------------------------------------------------------------------------------------
// A macro giving a `bool` that an `if` tests (statrs' `prec::ulps_eq!(x, 0.0)`) reads
// the plain values at second order, as a comparison does.

macro_rules! is_zero {
    ($a:expr) => {
        $a == 0.0
    };
}

#[differentiable]
fn cube_unless_zero(x: f64) -> f64 {
    if is_zero!(x) {
        return 0.0;
    }
    let c = no_derivative(x);
    if is_zero!(c - 1.0) && x > 0.0 {
        return 1.0;
    }
    x * x * x
}

#[test]
fn macros_tested_by_an_if() {
    let x = 0.5;
    assert_eq!(gradient!(at: x, of: cube_unless_zero), 3.0 * x * x);
    let (v, d1, d2) = value_with_second_derivative!(at: x, of: cube_unless_zero);
    assert_eq!((v, d1, d2), (x * x * x, 3.0 * x * x, 6.0 * x));
    assert_eq!(second_derivative!(at: 0.0, of: cube_unless_zero), 0.0);
    assert_eq!(
        hessian!(at: vec![1.0], of: |p: Vec<f64>| cube_unless_zero(p[0])),
        vec![vec![0.0]]
    );
}

/// Second order on what first order accepts: a `match` on an enum a plain function
/// computes from an active value, a callee returning a float with an integer, closures
/// bound in the body calling each other.
mod bodies_first_order_accepts {
    use crate::common::{assert_close, fd};
    use diff::prelude::*;

    #[derive(Clone, Copy, PartialEq, Debug)]
    enum Kind {
        Big,
        Small,
    }

    fn classify(x: f64) -> Kind {
        if x > 1.0 {
            Kind::Big
        } else {
            Kind::Small
        }
    }

    #[differentiable]
    fn by_kind(x: f64) -> f64 {
        match classify(x) {
            Kind::Big => x * x * x,
            Kind::Small => x.sin(),
        }
    }

    #[differentiable]
    fn cost(x: f64) -> (f64, usize) {
        (x * x * x, 3)
    }

    #[differentiable]
    fn through_cost(x: f64) -> f64 {
        let (c, n) = cost(x);
        c * n as f64
    }

    /// The integer is typed by the result (`usize`), not fixed by the second sweep.
    #[differentiable]
    fn counted(x: f64) -> (f64, usize) {
        let mut n = 0;
        let mut s = x;
        for _ in 0..3 {
            s *= x;
            n += 1;
        }
        (s, n)
    }

    #[differentiable]
    fn through_counted(x: f64) -> f64 {
        let (s, n) = counted(x);
        s / n as f64
    }

    #[differentiable]
    fn nested_closures(x: f64) -> f64 {
        let g = |y: f64| y * x;
        let f = |z: f64| g(z + 1.0) * z;
        f(x)
    }

    /// `(f'(x), f''(x))`, checked against the value and finite differences of the
    /// gradient.
    macro_rules! second {
        ($f:ident, $x:expr) => {{
            let x: f64 = $x;
            let (v, d1, d2) = value_with_second_derivative!(at: x, of: $f);
            assert_close(v, $f(x), 1e-15, "value");
            let fd1 = fd(|t| gradient!(at: t, of: $f), x);
            assert_close(d2, fd1, 1e-6, "second derivative against fd of the gradient");
            (d1, d2)
        }};
    }

    #[test]
    fn second_derivatives() {
        assert_close(second!(by_kind, 2.0).1, 12.0, 1e-12, "6 x");
        assert_close(second!(by_kind, 0.5).1, -(0.5f64.sin()), 1e-12, "-sin x");
        assert_close(second!(through_cost, 2.0).1, 36.0, 1e-12, "18 x");
        // x^4 / 3: 4 x^2
        assert_close(second!(through_counted, 1.5).1, 9.0, 1e-12, "4 x^2");
        // (x + 1) x^2: 3x^2 + 2x, 6x + 2
        let (d1, h) = second!(nested_closures, 0.7);
        assert_close(d1, 3.0 * 0.49 + 1.4, 1e-12, "first");
        assert_close(h, 6.2, 1e-12, "second");
        let h = hessian!(at: vec![0.7], of: |v: Vec<f64>| nested_closures(v[0]));
        assert_close(h[0][0], 6.2, 1e-12, "hessian");
    }
}

/// Second order through a method a trait marks, called on a struct built of the point
/// (statrs' `d.pdf(x)` with `d` made of the parameters): the implementation for a
/// struct with a dual twin defines the companion taking the twin, which the trait
/// declares; a type without a twin implements the trait as before.
mod trait_methods_on_structs_of_the_point {
    use crate::common::assert_close;
    use diff::prelude::*;

    pub trait Density {
        #[differentiable]
        fn pdf(&self, x: f64) -> f64;

        #[differentiable]
        fn log_pdf(&self, x: f64) -> f64 {
            self.pdf(x).ln()
        }
    }

    #[derive(Differentiable, Clone, Copy, Debug)]
    pub struct Exp {
        rate: f64,
    }

    impl Density for Exp {
        #[differentiable]
        fn pdf(&self, x: f64) -> f64 {
            self.rate * (-self.rate * x).exp()
        }
    }

    /// No twin (not Differentiable): first order through a constant receiver.
    pub struct Fixed;

    impl Density for Fixed {
        #[differentiable]
        fn pdf(&self, x: f64) -> f64 {
            x * x
        }
    }

    #[differentiable]
    fn via_fn(d: &Exp, x: f64) -> f64 {
        d.pdf(x)
    }

    #[test]
    fn hessians_against_the_closed_form() {
        let (x, r) = (0.5_f64, 2.0_f64);
        let e = (-r * x).exp();
        let want = [
            [r * r * r * e, (r * r * x - 2.0 * r) * e],
            [(r * r * x - 2.0 * r) * e, (r * x * x - 2.0 * x) * e],
        ];
        let h = hessian!(at: vec![x, r], of: |v: Vec<f64>| {
            let d = Exp { rate: v[1] };
            d.pdf(v[0])
        });
        let h2 = hessian!(at: vec![x, r], of: |v: Vec<f64>| via_fn(&Exp { rate: v[1] }, v[0]));
        for i in 0..2 {
            for j in 0..2 {
                assert_close(h[i][j], want[i][j], 1e-12, "through the method");
                assert_close(h2[i][j], want[i][j], 1e-12, "through a function");
            }
        }
        // The provided method, at first order on the struct of the point: ln r - r x.
        let gl = gradient!(at: vec![x, r], of: |v: Vec<f64>| Exp { rate: v[1] }.log_pdf(v[0]));
        assert_close(gl[0], -r, 1e-12, "d/dx");
        assert_close(gl[1], 1.0 / r - x, 1e-12, "d/dr");
        let g = gradient!(at: 3.0, of: |x: f64| Fixed.pdf(x));
        assert_close(g, 6.0, 1e-12, "a type without a twin");
    }
}

/// Functions named in capitals, as puruspe names its Bessel functions (`Jn`, `Yn`): calls
/// of functions, not tuple structs' constructors, also under second order.
mod functions_named_in_capitals {
    use super::*;

    pub mod bessel {
        use diff::prelude::*;

        #[allow(non_snake_case)]
        #[differentiable]
        pub fn Jn(n: u32, x: f64) -> f64 {
            x.powi(n as i32 + 1) * x.sin()
        }
    }

    #[differentiable]
    fn through(x: f64) -> f64 {
        bessel::Jn(1, x) + 1.0
    }

    #[test]
    fn in_closures_and_in_functions() {
        use bessel::Jn;
        let x = 0.8;
        // Jn(1, x) = x^2 sin x.
        let d2 = 2.0 * x.sin() + 4.0 * x * x.cos() - x * x * x.sin();
        assert_close(second_derivative!(at: x, of: |t: f64| Jn(1, t)), d2, 1e-12);
        let (v, d, dd) = value_with_second_derivative!(at: x, of: through);
        assert_eq!(v, through(x));
        assert_close(d, 2.0 * x * x.sin() + x * x * x.cos(), 1e-12);
        assert_close(dd, d2, 1e-12);
        let h = hessian!(at: vec![x], of: |v: Vec<f64>| bessel::Jn(1, v[0]));
        assert_close(h[0][0], d2, 1e-12);
        assert_close(
            gradient!(at: x, of: |t: f64| Jn(1, t)),
            common::fd(|t| Jn(1, t), x),
            1e-7,
        );
    }
}

/// A collection of structs left out with `wrt`, cloned and stepped in place through
/// `&mut` (an n-body state): converted to dual numbers for the step, under second
/// order as under first; and a plain struct holding a struct with operators of its own,
/// read only.
mod plain_collections_and_structs_given_on {
    use super::*;
    use std::ops::Sub;

    #[derive(Differentiable, Clone, Debug)]
    pub struct Body {
        pub pos: [f64; 2],
        pub vel: [f64; 2],
    }

    #[differentiable]
    pub fn step(bodies: &mut Vec<Body>, dt: f64) {
        for i in 0..bodies.len() {
            for c in 0..2 {
                bodies[i].pos[c] += dt * bodies[i].vel[c];
            }
        }
    }

    #[differentiable(wrt = (dt))]
    pub fn twice(dt: f64, init: &Vec<Body>) -> f64 {
        let mut bodies = init.clone();
        step(&mut bodies, dt);
        step(&mut bodies, dt);
        bodies[0].pos[0] * bodies[0].pos[0]
    }

    #[derive(Differentiable, Clone, Copy, Debug)]
    pub struct V2 {
        pub x: f64,
        pub y: f64,
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

    #[differentiable]
    fn through_vector(c: f64, o: &V2) -> f64 {
        let d = o.x - c;
        d * d * d
    }

    /// Not Differentiable: a constant holding a struct with operators of its own.
    pub struct RayOfV2 {
        pub origin: V2,
    }

    #[differentiable]
    fn through_ray(c: f64, ray: &RayOfV2) -> f64 {
        let d = ray.origin.x - c;
        d * d * d
    }

    #[test]
    fn second_derivatives() {
        let init = vec![Body {
            pos: [1.0, 0.0],
            vel: [2.0, 0.0],
        }];
        // (1 + 4 dt)^2: first 8 (1 + 4 dt), second 32.
        let (v, d1, d2) = value_with_second_derivative!(at: 0.1, of: |t: f64| twice(t, &init));
        assert_eq!(v, twice(0.1, &init));
        assert_close(d1, 8.0 * 1.4, 1e-12);
        assert_close(d2, 32.0, 1e-12);
        let o = V2 { x: 1.0, y: 0.0 };
        assert_close(
            second_derivative!(at: 0.5, of: |c: f64| through_vector(c, &o)),
            3.0,
            1e-12,
        );
        let ray = RayOfV2 { origin: o };
        let (v, d1, d2) = value_with_second_derivative!(at: 0.5, of: |c: f64| through_ray(c, &ray));
        assert_eq!(v, through_ray(0.5, &ray));
        assert_close(d1, -0.75, 1e-12);
        assert_close(d2, 3.0, 1e-12);
    }
}

/// A trait's provided method called on a struct of the point (a model built from the
/// hessian's input): declined when it runs, naming what to write, rather than a build
/// that fails; defined in the implementation, it is followed.
mod provided_trait_methods_on_structs_of_the_point {
    use super::*;

    pub trait ProvidedKernel {
        #[differentiable]
        fn k(&self, a: f64, b: f64) -> f64;

        #[differentiable]
        fn diag(&self, a: f64) -> f64 {
            self.k(a, a)
        }
    }

    #[derive(Differentiable, Clone, Debug)]
    pub struct ProvidedLin {
        pub v: f64,
    }

    impl ProvidedKernel for ProvidedLin {
        #[differentiable]
        fn k(&self, a: f64, b: f64) -> f64 {
            self.v * self.v * a * b
        }
    }

    #[derive(Differentiable, Clone, Debug)]
    pub struct OverriddenQuad {
        pub v: f64,
    }

    impl ProvidedKernel for OverriddenQuad {
        #[differentiable]
        fn k(&self, a: f64, b: f64) -> f64 {
            self.v * self.v * a * b
        }

        #[differentiable]
        fn diag(&self, a: f64) -> f64 {
            self.k(a, a)
        }
    }

    #[test]
    fn declined_then_followed() {
        // v^2 x^2 at x = 1: second derivative in v is 2.
        assert_declined(
            || {
                let h =
                    hessian!(at: vec![3.0], of: |c: Vec<f64>| ProvidedLin { v: c[0] }.diag(1.0));
                h[0][0]
            },
            "diag",
        );
        let h = hessian!(at: vec![3.0], of: |c: Vec<f64>| OverriddenQuad { v: c[0] }.diag(1.0));
        assert_close(h[0][0], 2.0, 1e-12);
        let g = gradient!(at: vec![3.0], of: |c: Vec<f64>| ProvidedLin { v: c[0] }.diag(2.0));
        assert_close(g[0], 2.0 * 3.0 * 4.0, 1e-12);
    }
}

// ---------------------------------------------------------------------------------------
// Integers found through iterators (an index from `enumerate().max_by`, `position`, the
// items of a loop over `enumerate`) stay integers at second order, as at first.

#[differentiable]
fn weighted_largest(x: &[f64]) -> f64 {
    let (i, v) = x
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.partial_cmp(b.1).unwrap())
        .unwrap();
    v * v * (i as f64 + 1.0)
}

#[differentiable]
fn square_of_first_above(x: &[f64]) -> f64 {
    match x.iter().position(|&v| v > 1.0) {
        Some(k) => x[k] * x[k] * (k as f64 + 1.0),
        None => 0.0,
    }
}

#[differentiable]
fn indexed_cubes(x: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut last = 0;
    for (i, v) in x.iter().enumerate() {
        s += v * v * v * (i as f64);
        last = i;
    }
    s * (last as f64)
}

#[test]
fn integers_through_iterators() {
    let x = vec![1.0, 3.0, 2.0];
    // The largest is x[1]: f = 2 x1².
    assert_eq!(weighted_largest(&x), 18.0);
    let (v, g) = value_with_gradient!(at: x.clone(), of: |x| weighted_largest(&x));
    assert_eq!((v, g), (18.0, vec![0.0, 12.0, 0.0]));
    let h = hessian!(at: x.clone(), of: |x| weighted_largest(&x));
    assert_matrix(
        &h,
        &[vec![0.0; 3], vec![0.0, 4.0, 0.0], vec![0.0; 3]],
        1e-12,
    );

    // The first above 1 is x[1]: f = 2 x1².
    let x = vec![0.5, 2.0, 3.0];
    assert_eq!(square_of_first_above(&x), 8.0);
    let h = hessian!(at: x.clone(), of: |x| square_of_first_above(&x));
    assert_matrix(
        &h,
        &[vec![0.0; 3], vec![0.0, 4.0, 0.0], vec![0.0; 3]],
        1e-12,
    );

    // f = 2 (x1³ + 2 x2³): H = diag(0, 12 x1, 24 x2).
    let (v, g) = value_with_gradient!(at: x.clone(), of: |x| indexed_cubes(&x));
    assert_eq!(v, indexed_cubes(&x));
    assert_matrix(&[g], &[vec![0.0, 6.0 * 4.0, 12.0 * 9.0]], 1e-12);
    let h = hessian!(at: x.clone(), of: |x| indexed_cubes(&x));
    assert_matrix(
        &h,
        &[vec![0.0; 3], vec![0.0, 24.0, 0.0], vec![0.0, 0.0, 72.0]],
        1e-12,
    );
}

#[differentiable]
fn power_of_both(y: f64, z: f64) -> f64 {
    y.powf(z)
}

/// `y^z` at `z == 0`: the partial in `y` is zero there, but its derivative in `z` is
/// `1 / y` (cratesport: libm's tgamma at 0.5 lost it).
#[test]
fn powf_mixed_partial_at_a_zero_exponent() {
    let (y, z) = (2.5f64, 0.0f64);
    let h = hessian!(at: (y, z), of: power_of_both);
    let want = [[0.0, 1.0 / y], [1.0 / y, y.ln() * y.ln()]];
    for i in 0..2 {
        for j in 0..2 {
            assert!((h[i][j] - want[i][j]).abs() < 1e-12, "{h:?}");
        }
    }
    // g(x) = (2 + x)^(x - 0.5) at x = 0.5, where the exponent is zero: against the
    // formula g'' = g ((ln b + e / b)^2 + 2 / b - e / b^2), b = 2 + x, e = x - 0.5.
    let x = 0.5f64;
    let (b, e) = (2.0 + x, x - 0.5);
    let g = b.powf(e);
    let want = g * ((b.ln() + e / b).powi(2) + 2.0 / b - e / (b * b));
    let (v, d1, d2) = value_with_second_derivative!(at: x, of: |x: f64| (2.0 + x).powf(x - 0.5));
    assert_eq!(v, g);
    assert!((d1 - g * (b.ln() + e / b)).abs() < 1e-12, "{d1}");
    assert!((d2 - want).abs() < 1e-12, "{d2} {want}");
}

/// A closure calling a float method of two arguments with a captured `f64` (newuser9):
/// the capture is converted to a dual number like a literal would be.
#[test]
fn float_methods_of_a_captured_value_in_a_closure() {
    let (b, t) = (2.3f64, 1.4f64);
    let d2 = second_derivative!(at: t, of: |s| s.powf(b));
    assert!((d2 - b * (b - 1.0) * t.powf(b - 2.0)).abs() < 1e-12, "{d2}");
    // b^s: ln(b)^2 b^s.
    let d2 = second_derivative!(at: t, of: |s| b.powf(s));
    assert!((d2 - b.ln().powi(2) * b.powf(t)).abs() < 1e-12, "{d2}");
    // atan2(s, b): d/ds = b / (s^2 + b^2), d2 = -2 s b / (s^2 + b^2)^2.
    let q = t * t + b * b;
    let d2 = second_derivative!(at: t, of: |s| s.atan2(b));
    assert!((d2 + 2.0 * t * b / (q * q)).abs() < 1e-12, "{d2}");
    // hypot(s, b): d2 = b^2 / (s^2 + b^2)^(3/2).
    let d2 = second_derivative!(at: t, of: |s| s.hypot(b));
    assert!((d2 - b * b / q.powf(1.5)).abs() < 1e-12, "{d2}");
    // max(s, b) * s with s < b: b s, second derivative 0; with s > b: s^2, 2.
    let d2 = second_derivative!(at: t, of: |s| s.max(b) * s);
    assert_eq!(d2, 0.0);
    let d2 = second_derivative!(at: 3.0, of: |s| s.max(b) * s);
    assert_eq!(d2, 2.0);
    // An integer exponent stays one.
    let n = 3;
    let d2 = second_derivative!(at: t, of: |s: f64| s.powi(n) * b);
    assert!((d2 - 6.0 * t * b).abs() < 1e-12, "{d2}");
}

/// libm's table macro: `i!(TABLE, i)` is `*TABLE.get(i).unwrap()`.
macro_rules! table_entry {
    ($array:expr, $index:expr) => {
        *$array.get($index).unwrap()
    };
}

const POLY: [f64; 3] = [1.0, 0.0, 1.0];

#[differentiable]
fn horner_through_a_macro(x: f64) -> f64 {
    let mut num: f64 = 0.0;
    for i in (0..3).rev() {
        num = num * x + table_entry!(POLY, i);
    }
    num
}

/// In a crate with arithmetic of its own (`impl Add for ..`), a macro's value of unknown
/// type in arithmetic with a dual number is declined, and the reason names the macro
/// (it named the variable the statement assigns).
#[test]
#[should_panic(expected = "one whose type is not known to be a float (`table_entry!(..)`)")]
fn a_macro_value_in_arithmetic_is_named_when_declined() {
    assert_eq!(first_derivative!(at: 0.5, of: horner_through_a_macro), 1.0);
    let _ = second_derivative!(at: 0.5, of: horner_through_a_macro);
}
