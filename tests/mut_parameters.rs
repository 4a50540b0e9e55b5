//! `&mut T` parameters and `&mut self` methods (Swift's `inout`), called from
//! differentiable bodies: the tangent flows into and out of the mutated place, through
//! locals, struct fields and elements, by path (`Type::method(&mut x)`) and with method
//! syntax. Values against the original functions, derivatives against central finite
//! differences or closed forms, forward mode against reverse mode.
#![allow(
    clippy::assign_op_pattern,
    clippy::explicit_auto_deref,
    clippy::needless_borrow,
    clippy::neg_cmp_op_on_partial_ord
)]
mod common;
use common::{assert_close, check_value_and_gradient2, check_value_and_slope, fd};
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

#[test]
fn mutable_parameters() {
    let mut y = 1.5;
    step(&mut y, 2.0);
    assert_eq!(y, 3.0 + 2f64.sin());
    for (x, k) in [(0.3, 0.7), (1.2, -0.4)] {
        let got = value_with_gradient!(at: (x, k), of: run);
        check_value_and_gradient2("run", run, (x, k), got);
        let (gx, gk) = got.1;
        let dx = differential!(at: (x, k), of: run)((1.0, 0.0));
        let dk = differential!(at: (x, k), of: run)((0.0, 1.0));
        assert_close(dx, gx, 1e-12, "run forward dx");
        assert_close(dk, gk, 1e-12, "run forward dk");
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
    for (p, dt) in [(0.3, 0.1), (1.2, 0.05)] {
        let got = value_with_gradient!(at: (p, dt), of: simulate);
        check_value_and_gradient2("simulate", simulate, (p, dt), got);
        let d = first_derivative!(at: p, of: |p| simulate(p, dt));
        assert_close(d, got.1 .0, 1e-12, "simulate forward");
    }
    for x in [0.5, -1.5] {
        let got = value_with_gradient!(at: (x, 5), of: fill);
        check_value_and_slope("fill", |x| fill(x, 5), x, got);
        let d = first_derivative!(at: x, of: |x| fill(x, 5));
        assert_close(d, got.1, 1e-12, "fill forward");
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
    for (x0, k) in [(1.0, 1.5), (-0.3, 0.7)] {
        let got = value_with_gradient!(at: (x0, k), of: spring_energy);
        check_value_and_gradient2("spring_energy", spring_energy, (x0, k), got);
        let d = first_derivative!(at: x0, of: |x| spring_energy(x, k));
        assert_close(d, got.1 .0, 1e-12, "spring_energy forward");
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

// ---------------------------------------------------------------------------------------
// A mutating method called by path in a loop (Swift's `inout` test), and `&mut f64`
// parameters updated in place.

#[derive(Differentiable, Clone, Copy, Debug)]
struct MassSpring {
    pos: f64,
    vel: f64,
    mass: f64,
}

impl MassSpring {
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

/// Swift's inout test: a mutating method called in a loop from a differentiable body.
#[differentiable]
fn spring_energy_after(p0: f64, k: f64) -> f64 {
    let mut p = MassSpring {
        pos: p0,
        vel: 0.0,
        mass: 2.0,
    };
    for _ in 0..5 {
        // `p.step(0.1, k)` drops the mutation from the derivative, and the path form
        // needs a `Copy` struct here (bugs-ported.md, P4 and P5).
        MassSpring::step(&mut p, 0.1, k);
    }
    p.energy(k)
}

#[test]
fn mutating_method_in_a_loop() {
    for (p0, k) in [(1.0, 3.0), (-0.4, 0.5)] {
        let (v, (gp, gk)) = value_with_gradient!(at: (p0, k), of: spring_energy_after);
        assert_eq!(v, spring_energy_after(p0, k));
        assert_close(gp, fd(|x| spring_energy_after(x, k), p0), 1e-9, "d/dp0");
        assert_close(gk, fd(|x| spring_energy_after(p0, x), k), 1e-9, "d/dk");
        // Energy is quadratic in p0 for fixed k (the dynamics are linear).
        assert_close(gp, 2.0 * v / p0, 1e-12, "homogeneity");
        let d = first_derivative!(at: p0, of: |x| spring_energy_after(x, k));
        assert_close(d, gp, 1e-13, "fwd vs rev");
    }
}

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
        assert_close(g, 4.0 * x * x * x, 1e-14, "x^4 rev");
        assert_close(
            first_derivative!(at: x, of: fourth_power),
            4.0 * x * x * x,
            1e-14,
            "x^4 fwd",
        );
    }
    let (a, b) = (0.6, -1.7);
    let (ga, gb) = gradient!(at: (a, b), of: sum_of_squares_inout);
    assert_close(ga, 2.0 * a + 2.0 * a * b * b, 1e-14, "inout acc da");
    assert_close(gb, 2.0 * b + 2.0 * a * a * b, 1e-14, "inout acc db");
}

/// A helper counting its calls through `&mut usize` (an integer: no derivative), called
/// by a differentiable function whose result uses the count.
#[differentiable]
fn counted_square(x: f64, count: &mut usize) -> f64 {
    *count += 1;
    x * x
}

#[differentiable]
fn squared_twice_times_calls(x: f64) -> f64 {
    let mut n = 0;
    let a = counted_square(x, &mut n);
    let b = counted_square(a, &mut n);
    let mut k = 0u32;
    for _ in 0..3 {
        k += 1;
    }
    b * n as f64 + x * k as f64
}

#[test]
fn an_integer_updated_through_mut_by_a_callee() {
    // 2 x^4 + 3 x
    let x = 1.5;
    let (v, g) = value_with_gradient!(at: x, of: squared_twice_times_calls);
    assert_eq!(v, squared_twice_times_calls(x));
    assert_close(v, 2.0 * x.powi(4) + 3.0 * x, 1e-12, "value");
    assert_close(g, 8.0 * x.powi(3) + 3.0, 1e-12, "reverse");
    let d = first_derivative!(at: x, of: squared_twice_times_calls);
    assert_close(d, g, 1e-12, "forward");
    let h = second_derivative!(at: x, of: squared_twice_times_calls);
    assert_close(h, 24.0 * x * x, 1e-12, "second");
    let mut n = 5;
    assert_eq!(counted_square(2.0, &mut n), 4.0);
    assert_eq!(n, 6);
}

#[differentiable]
fn scale_in_place(row: &mut [f64], k: f64) -> f64 {
    for v in row.iter_mut() {
        *v *= k;
    }
    row[0]
}

/// Sub-slices lent to a function taking `&mut [f64]`: `&mut m[1..]`, `&mut m[..=1]`, and
/// the chunks of a `chunks_mut` loop given by name.
#[differentiable]
fn sub_slices_lent(x: &[f64], k: f64) -> f64 {
    let mut m = x.to_vec();
    let mut firsts = 0.0;
    for row in m.chunks_mut(2) {
        firsts += scale_in_place(row, k);
    }
    scale_in_place(&mut m[1..], 2.0);
    let r = scale_in_place(&mut m[..=1], k * k);
    m.iter().map(|v| v * v).sum::<f64>() + firsts + r
}

#[test]
fn sub_slices_lent_to_functions() {
    let x = vec![1.0, 2.0, 3.0, 4.0];
    let k = 0.5;
    let (v, (gx, gk)) = value_with_gradient!(at: (&x, k), of: sub_slices_lent);
    assert_eq!(v, sub_slices_lent(&x, k));
    let fx = common::fd_grad(|p| sub_slices_lent(p, k), &x);
    for i in 0..4 {
        assert_close(gx[i], fx[i], 1e-6, "d/dx");
    }
    let fk = fd(|k| sub_slices_lent(&x, k), k);
    assert_close(gk, fk, 1e-6, "d/dk");
    let d = first_derivative!(at: k, of: |k: f64| sub_slices_lent(&x, k));
    assert_close(d, gk, 1e-12, "forward");
    let d2 = second_derivative!(at: k, of: |k: f64| sub_slices_lent(&x, k));
    let h = 1e-4;
    let slope = |k: f64| first_derivative!(at: k, of: |k: f64| sub_slices_lent(&x, k));
    assert_close(
        d2,
        (slope(k + h) - slope(k - h)) / (2.0 * h),
        1e-6,
        "second order",
    );
}

/// A `&mut` view of a whole local given to a function or with a method called on it
/// (`y.as_mut_slice()`, `y.as_mut()`, `&mut *y`, `(&mut y[..])`): the local is updated,
/// as with `&mut y` (these computed a zero derivative, silently, in functions generic over
/// their float).
#[differentiable]
fn scale_first_two<T: Float>(y: &mut [T], x: T) {
    y[0] = y[0] * x;
    y[1] = y[1] * x;
}

#[differentiable]
fn through_views<T: Float>(x: T) -> T {
    let two = T::one() + T::one();
    let mut y = vec![T::one(), two, two + T::one()];
    scale_first_two(y.as_mut_slice(), x);
    scale_first_two(&mut *y, x);
    scale_first_two(y.as_mut(), x);
    y.as_mut_slice().reverse();
    (&mut y[..]).rotate_left(1);
    y.as_mut_slice().swap(0, 1);
    y[0] * two + y[1] * x + y[2]
}

#[differentiable]
fn through_views_f64(x: f64) -> f64 {
    let mut y = vec![1.0, 2.0, 3.0];
    scale_first_two(y.as_mut_slice(), x);
    scale_first_two(&mut *y, x);
    let a = x * y[0];
    y.as_mut_slice().fill(a);
    y[0] + y[2] * 2.0
}

#[test]
fn views_of_a_whole_local() {
    // y = [x³, 2x³, 3] → reversed [3, 2x³, x³] → rotated [2x³, x³, 3] → swapped
    // [x³, 2x³, 3]: f = 2x³ + 2x⁴ + 3.
    let f = |x: f64| through_views(x);
    let x = 1.3;
    let (v, d) = value_with_gradient!(at: x, of: through_views);
    assert_eq!(v, f(x));
    assert_close(d, 6.0 * x * x + 8.0 * x * x * x, 1e-12, "views, reverse");
    let (v, d) = value_with_derivative!(at: x, of: through_views);
    assert_eq!(v, f(x));
    assert_close(d, 6.0 * x * x + 8.0 * x * x * x, 1e-12, "views, forward");
    // y0 = x², filled with x·x² = x³: f = 3x³.
    let (v, d) = value_with_gradient!(at: x, of: through_views_f64);
    assert_eq!(v, through_views_f64(x));
    assert_close(d, 9.0 * x * x, 1e-12, "views f64, reverse");
    assert_close(
        second_derivative!(at: x, of: through_views_f64),
        18.0 * x,
        1e-12,
        "views f64, second",
    );
}

#[differentiable]
fn scale_by_both(y: &mut [f64], x: &[f64]) {
    y[0] *= x[0];
    y[1] *= x[0];
    y[0] *= x[1];
    y[1] *= x[1];
}

#[differentiable]
fn scaled_tail(x: Vec<f64>) -> Vec<f64> {
    let mut y = vec![1.0; 5];
    scale_by_both(&mut y[2..], &x);
    y
}

/// A sub-slice of a local lent to a function taking `&mut [T]`, under second order.
#[test]
fn a_sub_slice_lent_under_second_order() {
    let x = vec![1.5, 2.5];
    let j = jacobian!(at: x.clone(), of: scaled_tail);
    assert_eq!(j[2], vec![x[1], x[0]]);
    assert_eq!(j[4], vec![0.0, 0.0]);
    let h = hessian!(at: x.clone(), of: |p: Vec<f64>| scaled_tail(p)[2] + scaled_tail(vec![1.0, 1.0])[3]);
    assert_eq!(h, vec![vec![0.0, 1.0], vec![1.0, 0.0]]);
}

// ---------------------------------------------------------------------------------------
// A `&mut` parameter passed on where a shared reference is taken (`f(x)` with `x: &mut
// f64` and `f(x: &f64)`: Rust reborrows it as shared), as Enzyme's readwriteread does.

#[differentiable]
fn read_twice(x: &f64) -> f64 {
    *x * *x
}

#[differentiable]
fn kinetic(s: &Acc, k: f64) -> f64 {
    k * s.v * s.v
}

/// (`&mut *x` given for `&f64` on purpose: Rust accepts it, so must the macro.)
#[allow(clippy::unnecessary_mut_passed)]
#[differentiable]
fn read_write_read(x: &mut f64, y: f64) -> f64 {
    *x *= y;
    let r = read_twice(x) + read_twice(&mut *x);
    *x += r;
    r * y + read_twice(x)
}

impl Acc {
    #[differentiable]
    fn times(&self, other: &Acc) -> f64 {
        self.v * other.v
    }
}

#[differentiable]
fn bump_and_measure(a: &mut Acc, k: f64) -> f64 {
    let before = kinetic(a, k);
    a.bump(k);
    let unit = Acc { v: 1.0 };
    before + kinetic(a, 1.0) * unit.times(a)
}

#[allow(clippy::unnecessary_mut_passed)]
#[differentiable]
fn read_write_read_caller(x0: f64, y: f64) -> f64 {
    let mut x = x0;
    let a = read_write_read(&mut x, y);
    let mut acc = Acc { v: x0 };
    let b = bump_and_measure(&mut acc, y);
    a + x * x + read_twice(&mut x) + b + acc.v
}

fn read_write_read_plain(x0: f64, y: f64) -> f64 {
    let mut x = x0 * y;
    let r = x * x + x * x;
    x += r;
    let a = r * y + x * x;
    let v = x0 * y + 1.0;
    let b = y * x0 * x0 + 1.0 * v * v * (1.0 * v);
    a + x * x + x * x + b + v
}

#[test]
fn mut_parameters_passed_where_shared_references_are_taken() {
    let (x, y) = (1.5, 0.7);
    let got = value_with_gradient!(at: (x, y), of: read_write_read_caller);
    check_value_and_gradient2("read-write-read", read_write_read_plain, (x, y), got);
    let (v, df) = value_with_differential!(at: (x, y), of: read_write_read_caller);
    assert_eq!(v, read_write_read_plain(x, y));
    let d = df((1.0, 0.0));
    assert_close(d, got.1 .0, 1e-12, "forward against reverse");
    // Second order: the hessian against finite differences of the gradient.
    let h = hessian!(at: vec![x, y], of: |p: Vec<f64>| read_write_read_caller(p[0], p[1]));
    let grad = |p: &[f64]| {
        let g = gradient!(at: (p[0], p[1]), of: read_write_read_caller);
        [g.0, g.1]
    };
    for (i, row) in h.iter().enumerate() {
        for (j, hij) in row.iter().enumerate() {
            let fd = fd(
                |t| {
                    let mut p = vec![x, y];
                    p[j] += t;
                    grad(&p)[i]
                },
                0.0,
            );
            assert_close(
                *hij,
                fd,
                1e-7,
                "hessian against differences of the gradient",
            );
        }
    }
}

/// CppAD's `det_of_minor` keeps its row and column lists in `&mut Vec<usize>` passed down
/// its recursion: integers written through `&mut`, which carry no derivative whatever
/// the differentiated values around them.
#[differentiable]
fn picked_squares(a: &[f64], n: usize, idx: &mut Vec<usize>) -> f64 {
    if n == 0 {
        return 0.0;
    }
    let k = idx[n - 1];
    idx[n - 1] = k + 1;
    a[k] * a[k] * a[k] + picked_squares(a, n - 1, idx)
}

#[test]
fn integers_written_through_mut_down_a_recursion() {
    let a = vec![1.0, 2.0, 3.0];
    let run = |p: &[f64]| {
        let mut idx = vec![0, 1, 2];
        let v = picked_squares(p, 3, &mut idx);
        assert_eq!(idx, vec![1, 2, 3]);
        v
    };
    let (v, g) = value_with_gradient!(at: &a, of: |p: &[f64]| {
        let mut idx = vec![0, 1, 2];
        picked_squares(p, 3, &mut idx)
    });
    assert_eq!(v, run(&a));
    for i in 0..3 {
        assert_close(g[i], 3.0 * a[i] * a[i], 1e-12, "d/da");
    }
    let h = hessian!(at: a.clone(), of: |p: Vec<f64>| {
        let mut idx = vec![0, 1, 2];
        picked_squares(&p, 3, &mut idx)
    });
    for (i, row) in h.iter().enumerate() {
        for (j, hij) in row.iter().enumerate() {
            let want = if i == j { 6.0 * a[i] } else { 0.0 };
            assert_close(*hij, want, 1e-12, "d2/da2");
        }
    }
}

/// Orders two `&mut` parameters by swapping them as they are (`swap(a, b)`, not
/// `swap(&mut *a, &mut *b)`).
#[differentiable]
fn order(a: &mut f64, b: &mut f64) {
    if *a > *b {
        std::mem::swap(a, b);
    }
}

#[differentiable]
fn ordered_weighted(x: f64, y: f64) -> f64 {
    let (mut p, mut q) = (x, y);
    order(&mut p, &mut q);
    p + 10.0 * q
}

/// Halves `x` in place and returns it.
#[differentiable]
fn halve(x: &mut f64) -> f64 {
    *x *= 0.5;
    *x
}

/// Halves until at most 1, the call changing `x` in the loop's condition.
#[differentiable]
fn halve_below_one(x0: f64) -> f64 {
    let mut x = x0;
    while halve(&mut x) > 1.0 {}
    x
}

/// The same with the call on the left of `&&` and of `||`, and in an `if`.
#[differentiable]
fn halve_at_most(x0: f64, limit: usize) -> f64 {
    let mut x = x0;
    let mut k = 0;
    while halve(&mut x) > 1.0 && k < limit {
        k += 1;
    }
    if halve(&mut x) < 0.1 || x > 100.0 {
        x = 3.0 * x;
    }
    if !(halve(&mut x) >= 0.0) {
        x = 0.0;
    }
    x
}

#[test]
fn changes_in_conditions_and_swaps_of_mut_parameters() {
    // Ordered: (min, max); the gradient follows the swap.
    let ordered = |x: f64, y: f64| x.min(y) + 10.0 * x.max(y);
    for (x, y, g) in [(2.0, 1.0, (10.0, 1.0)), (1.0, 2.0, (1.0, 10.0))] {
        let (v, d) = value_with_gradient!(at: (x, y), of: ordered_weighted);
        assert_close(v, ordered(x, y), 1e-12, "ordered value");
        assert_close(d.0, g.0, 1e-12, "d/dx");
        assert_close(d.1, g.1, 1e-12, "d/dy");
    }
    // 10 halved four times is 0.625: the derivative is 1/16.
    check_value_and_slope(
        "halve_below_one",
        halve_below_one,
        10.0,
        value_with_gradient!(at: 10.0, of: halve_below_one),
    );
    assert_close(
        gradient!(at: 10.0, of: halve_below_one),
        0.0625,
        1e-12,
        "1/16",
    );
    assert_close(
        first_derivative!(at: 10.0, of: halve_below_one),
        0.0625,
        1e-12,
        "forward",
    );
    for (x0, limit) in [(10.0, 9), (10.0, 2), (0.3, 5), (1000.0, 1)] {
        let f = |x: f64| halve_at_most(x, limit);
        let (v, d) = value_with_gradient!(at: x0, of: |x: f64| halve_at_most(x, limit));
        assert_close(v, f(x0), 1e-12, "halve_at_most value");
        assert_close(d, fd(f, x0), 1e-6, "halve_at_most derivative");
    }
}

/// A change on the right of `&&`, which runs only where the left holds.
#[differentiable]
fn short_circuit(x: f64) -> f64 {
    let mut y = x;
    if x < 0.0 && {
        y *= 3.0;
        true
    } {
        y += 1.0;
    }
    y
}

#[test]
fn a_change_on_the_right_of_and_runs_where_rust_runs_it() {
    for (x, slope) in [(-2.0, 3.0), (2.0, 1.0)] {
        let (v, d) = value_with_gradient!(at: x, of: short_circuit);
        assert_eq!(v, short_circuit(x));
        assert_close(d, slope, 1e-12, "short_circuit");
        assert_close(
            first_derivative!(at: x, of: short_circuit),
            slope,
            1e-12,
            "forward",
        );
    }
}
