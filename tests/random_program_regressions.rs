#![allow(
    clippy::assign_op_pattern,
    clippy::needless_range_loop,
    clippy::ptr_arg,
    clippy::single_match,
    clippy::useless_vec,
    unused_assignments
)]
//! Minimal reproductions of programs that random-program testing found to fail (wrong
//! values or derivatives, or generated code that did not compile), kept as regressions;
//! tests/fuzz is the tester. The written-out assignments, `Vec`s, `&Vec` parameters and
//! one-arm `match`es are what once failed. Values are checked against the original
//! function, derivatives against closed forms or central finite differences, in both
//! modes.
mod common;
use common::{assert_close, check_value_and_gradient2, check_value_and_slope};
use diff::prelude::*;

/// `rev` from `value_with_gradient!` at `at`, `fwd` from `value_with_derivative!` in `x`.
fn check(
    name: &str,
    f: impl Fn(f64, f64) -> f64,
    at: (f64, f64),
    rev: (f64, (f64, f64)),
    fwd: (f64, f64),
) {
    check_value_and_gradient2(name, &f, at, rev);
    check_value_and_slope(&format!("{name} forward"), |x| f(x, at.1), at.0, fwd);
}

/// `c` is carried by both loops but read by nothing after them: its adjoint slot starts
/// empty, and its type comes from nowhere else.
#[differentiable]
fn carried_without_adjoint_after(x: f64, y: f64) -> f64 {
    let mut u = y.sin();
    let mut c = x;
    let mut k = 0;
    loop {
        k += 1;
        if k > 3 {
            break;
        }
        for _ in 0..2 {
            c -= {
                let t = c;
                u += c.tanh();
                t * 0.5
            };
        }
    }
    u
}

/// `g` starts as a constant (no tangent) and the loop overwrites it without reading it.
#[differentiable]
fn carried_from_a_constant(x: f64, y: f64) -> f64 {
    let mut g: f64 = 0.0;
    let t = (g.cos(), y);
    for _ in 0..4 {
        g = (x * t.1).cos();
    }
    y - g + t.0
}

#[test]
fn loop_carried_slots_are_typed() {
    check(
        "carried_without_adjoint_after",
        carried_without_adjoint_after,
        (0.7, 1.3),
        value_with_gradient!(at: (0.7, 1.3), of: carried_without_adjoint_after),
        value_with_derivative!(at: 0.7, of: |x| carried_without_adjoint_after(x, 1.3)),
    );
    check(
        "carried_from_a_constant",
        carried_from_a_constant,
        (1.0, 2.0),
        value_with_gradient!(at: (1.0, 2.0), of: carried_from_a_constant),
        value_with_derivative!(at: 1.0, of: |x| carried_from_a_constant(x, 2.0)),
    );
}

/// Value, reverse gradient and forward differential of `f` at `at`, against closed forms.
macro_rules! check {
    ($f:ident, $at:tt, $value:expr, $grad:expr) => {{
        let want: (f64, f64) = $grad;
        let (v, g) = value_with_gradient!(at: $at, of: $f);
        assert_eq!(v, $value, "{} value", stringify!($f));
        assert_pair_close(g, want, concat!(stringify!($f), " reverse"));
        let (vd, df) = value_with_differential!(at: $at, of: $f);
        assert_eq!(vd, $value, "{} differential value", stringify!($f));
        let dx = df((1.0, 0.0));
        let dy = differential!(at: $at, of: $f)((0.0, 1.0));
        assert_pair_close((dx, dy), want, concat!(stringify!($f), " forward"));
    }};
}

#[derive(Differentiable, Clone, Debug)]
pub struct Pt {
    a: f64,
    b: f64,
}

impl Pt {
    #[differentiable]
    fn scale(&mut self, k: f64) {
        self.a *= k.cos();
        self.b = self.b + k * self.a;
    }

    #[differentiable]
    fn times(&mut self, k: f64) {
        self.a = self.a * k;
    }
}

#[track_caller]
fn assert_pair_close(got: (f64, f64), want: (f64, f64), what: &str) {
    assert_close(got.0, want.0, 1e-12, &format!("{what}: first"));
    assert_close(got.1, want.1, 1e-12, &format!("{what}: second"));
}

// `&mut self` methods called on a local struct used to leave the struct's tangent as it was
// before the call (gradient (1, 1) for both).

#[differentiable]
fn mut_self_times(x: f64, y: f64) -> f64 {
    let mut p = Pt { a: x, b: y };
    p.times(y);
    p.a + p.b
}

#[differentiable]
fn mut_self_scale(x: f64, y: f64) -> f64 {
    let mut p = Pt { a: x, b: y };
    p.scale(y);
    p.a + p.b
}

#[test]
fn mut_self_method_on_local() {
    let (x, y) = (0.7, 1.3);
    // x*y + y
    let (v, g) = value_with_gradient!(at: (x, y), of: mut_self_times);
    assert_eq!(v, mut_self_times(x, y));
    assert_pair_close(g, (y, x + 1.0), "times reverse");
    let (vd, _) = value_with_differential!(at: (x, y), of: mut_self_times);
    assert_eq!(vd, v);
    let dx = differential!(at: (x, y), of: mut_self_times)((1.0, 0.0));
    let dy = differential!(at: (x, y), of: mut_self_times)((0.0, 1.0));
    assert_pair_close((dx, dy), (y, x + 1.0), "times forward");

    // a = x cos y, b = y + y a: f = x cos y + y + x y cos y
    let (c, s) = (y.cos(), y.sin());
    let want = (c + y * c, -x * s + 1.0 + x * c - x * y * s);
    let (v, g) = value_with_gradient!(at: (x, y), of: mut_self_scale);
    assert_eq!(v, mut_self_scale(x, y));
    assert_pair_close(g, want, "scale reverse");
    let dx = differential!(at: (x, y), of: mut_self_scale)((1.0, 0.0));
    let dy = differential!(at: (x, y), of: mut_self_scale)((0.0, 1.0));
    assert_pair_close((dx, dy), want, "scale forward");
}

// Writes to a field of a local struct or an element of a local Vec inside an `if` or a
// loop body used to fail with E0382 (the aggregate moved into the branch).

#[differentiable]
fn field_write_in_if(x: f64, y: f64) -> f64 {
    let mut p = Pt { a: x, b: y };
    if x > 0.0 {
        p.b = x;
    }
    p.a * p.b
}

#[differentiable]
fn field_write_in_loop(x: f64, y: f64) -> f64 {
    let mut p = Pt { a: x, b: y };
    for _ in 0..2 {
        p.b += x;
    }
    p.a * p.b
}

#[differentiable]
fn vec_write_in_if(x: f64, y: f64) -> f64 {
    let mut w = vec![x, y];
    if x > 0.0 {
        w[1] += x;
    }
    w[0] * w[1]
}

#[test]
fn aggregate_writes_in_branches_and_loops() {
    let (x, y) = (2.0, 3.0);
    // x > 0: x * x
    let (v, g) = value_with_gradient!(at: (x, y), of: field_write_in_if);
    assert_eq!(v, 4.0);
    assert_pair_close(g, (2.0 * x, 0.0), "field in if");
    // x < 0: x * y
    let g = gradient!(at: (-x, y), of: field_write_in_if);
    assert_pair_close(g, (y, -x), "field in if, not taken");
    let dx = differential!(at: (x, y), of: field_write_in_if)((1.0, 0.0));
    assert_pair_close((dx, 0.0), (2.0 * x, 0.0), "field in if forward");

    // x (y + 2x)
    let (v, g) = value_with_gradient!(at: (x, y), of: field_write_in_loop);
    assert_eq!(v, x * (y + 2.0 * x));
    assert_pair_close(g, (y + 4.0 * x, x), "field in loop");
    let dy = differential!(at: (x, y), of: field_write_in_loop)((0.0, 1.0));
    assert_pair_close((dy, 0.0), (x, 0.0), "field in loop forward");

    // x (y + x)
    let (v, g) = value_with_gradient!(at: (x, y), of: vec_write_in_if);
    assert_eq!(v, x * (y + x));
    assert_pair_close(g, (y + 2.0 * x, x), "vec in if");
    let dx = differential!(at: (x, y), of: vec_write_in_if)((1.0, 0.0));
    assert_pair_close((dx, 0.0), (y + 2.0 * x, 0.0), "vec in if forward");
}

// Zip with a chained iterator: E0599 `__vjp_iter` (and, before, a doubled `::`).

#[differentiable]
fn zip_skip(p: &[f64]) -> f64 {
    p.iter()
        .zip(p.iter().skip(1))
        .map(|(a, b)| a * b)
        .sum::<f64>()
}

// clone() of an active Vec or struct: E0599 `__vjp_clone`.

#[differentiable]
fn clone_vec(p: &Vec<f64>) -> f64 {
    let q = p.clone();
    q[0] * q[1]
}

#[differentiable]
fn clone_struct(x: f64, y: f64) -> f64 {
    let p = Pt { a: x, b: y };
    let q = Pt { ..p.clone() };
    q.a * q.b
}

#[test]
fn zip_skip_and_clone() {
    let p = vec![1.0, 2.0, 3.0];
    // p0 p1 + p1 vec_write_in_if_else_with_a_binding
    let (v, g) = value_with_gradient!(at: &p, of: zip_skip);
    assert_eq!(v, 8.0);
    assert_eq!(g, vec![2.0, 4.0, 2.0]);
    let (v, g) = value_with_gradient!(at: &p, of: clone_vec);
    assert_eq!(v, 2.0);
    assert_eq!(g, vec![2.0, 1.0, 0.0]);
    check!(clone_struct, (2.0, 3.0), 6.0, (3.0, 2.0));
}

// A generic recursive function: E0310 (its boxed companion needed `T: 'static`).

#[differentiable]
fn pow_rec<T: Float>(x: T, n: usize) -> T {
    if n == 0 {
        return x;
    }
    pow_rec(x, n - 1) * x
}

#[test]
fn generic_recursion() {
    // x^(n + 1)
    let (v, g) = value_with_gradient!(at: (2.0, 3), of: pow_rec::<f64>);
    assert_eq!(v, 16.0);
    assert_eq!(g, 32.0);
    assert_eq!(first_derivative!(at: 2.0, of: |t| pow_rec(t, 3)), 32.0);
}

// A Vec or struct written after an early return, or in an `if` with an `else`: E0382.

#[differentiable]
fn vec_write_after_return(x: f64, y: f64) -> f64 {
    let mut w = vec![x, y];
    if x > 5.0 {
        return x;
    }
    w[0] += y;
    w[0] * w[1]
}

#[differentiable]
fn field_write_after_return(x: f64, y: f64) -> f64 {
    let mut p = Pt { a: x, b: y };
    if x > 5.0 {
        return x;
    }
    p.a += y;
    p.a * p.b
}

#[differentiable]
fn field_write_after_match_return(x: f64, y: f64, n: usize) -> f64 {
    let mut p = Pt { a: x, b: y };
    match n {
        0 => return x,
        _ => {}
    }
    p.a += y;
    p.a * p.b
}

#[differentiable]
fn vec_write_in_if_with_else(x: f64, y: f64) -> f64 {
    let mut w = vec![x, y];
    if x > 0.0 {
        w[1] += x;
    } else {
        w[0] = y;
    }
    w[0] * w[1]
}

#[test]
fn aggregate_writes_after_exits_and_in_if_else() {
    // (x + y) y
    check!(vec_write_after_return, (2.0, 3.0), 15.0, (3.0, 8.0));
    check!(field_write_after_return, (2.0, 3.0), 15.0, (3.0, 8.0));
    check!(
        field_write_after_match_return,
        (2.0, 3.0, 1),
        15.0,
        (3.0, 8.0)
    );
    check!(
        field_write_after_match_return,
        (2.0, 3.0, 0),
        2.0,
        (1.0, 0.0)
    );
    // x > 0: x (y + x); x < 0: y y
    check!(vec_write_in_if_with_else, (2.0, 3.0), 10.0, (7.0, 2.0));
    check!(vec_write_in_if_with_else, (-2.0, 3.0), 9.0, (0.0, 6.0));
}

// `return` in an arm of a `match` or `if` that initializes a `let`: both companions used
// the returned operand as the arm's value and went on (value x + y, gradient (1, 1)).

#[differentiable]
fn let_match_return(x: f64, y: f64, n: usize) -> f64 {
    let v = match n {
        0 => return x,
        1 => 3.0,
        _ => x * x,
    };
    v + y
}

#[differentiable]
fn let_if_return(x: f64, y: f64, n: usize) -> f64 {
    let v = if n == 0 { return x } else { x * x };
    v + y
}

#[test]
fn return_inside_let_initializer() {
    check!(let_match_return, (2.0, 3.0, 0), 2.0, (1.0, 0.0));
    check!(let_match_return, (2.0, 3.0, 1), 6.0, (0.0, 1.0));
    check!(let_match_return, (2.0, 3.0, 2), 7.0, (4.0, 1.0));
    check!(let_if_return, (2.0, 3.0, 0), 2.0, (1.0, 0.0));
    check!(let_if_return, (2.0, 3.0, 1), 7.0, (4.0, 1.0));
}

// `while let Some(w) = v.pop()` on a Vec that carries no derivative: E0596.

#[differentiable]
fn pop_constants(x: f64, _y: f64) -> f64 {
    let mut s = x;
    let mut st = vec![1.0, 2.0];
    while let Some(w) = st.pop() {
        s = s * w;
    }
    s
}

#[differentiable]
fn pop_indices(x: f64, y: f64) -> f64 {
    let mut s = x;
    let mut ks = vec![0usize, 1];
    while let Some(i) = ks.pop() {
        s = s * y + (i as f64);
    }
    s
}

#[test]
fn while_let_pop_inactive() {
    check!(pop_constants, (2.0, 3.0), 4.0, (2.0, 0.0));
    // (x y + 1) y
    check!(pop_indices, (2.0, 3.0), 21.0, (9.0, 13.0));
}

// A mutable tuple with a constant element, updated and destructured: E0282.

#[differentiable]
fn tuple_const_updated(x: f64, y: f64) -> f64 {
    let v = x * x;
    let mut t = (1.25_f64, v);
    t.1 = t.1 * y;
    let (_a, b) = t;
    b + y
}

#[test]
fn mutable_tuple_with_constant() {
    // x^2 y + y
    check!(tuple_const_updated, (2.0, 3.0), 15.0, (12.0, 5.0));
}

// A `&mut self` method whose argument is read from the receiver: E0382.

#[differentiable]
fn mut_self_arg_from_receiver(x: f64, y: f64) -> f64 {
    let mut p = Pt { a: x, b: y };
    p.scale(p.b);
    p.a + p.b
}

#[differentiable]
fn mut_self_arg_copied_from_receiver(x: f64, y: f64) -> f64 {
    let mut p = Pt { a: x, b: y };
    let k = p.b;
    p.scale(k);
    p.a + p.b
}

#[test]
fn mut_self_argument_from_receiver() {
    let (x, y) = (0.7, 1.3);
    // k = y: a = x cos y, b = y + y a
    let (c, s) = (y.cos(), y.sin());
    let want = (c + y * c, -x * s + 1.0 + x * c - x * y * s);
    let v = mut_self_scale(x, y);
    check!(mut_self_arg_from_receiver, (x, y), v, want);
    check!(mut_self_arg_copied_from_receiver, (x, y), v, want);
}

// More minimized programs, each of which once failed in one mode or both.

#[differentiable]
fn overwritten_in_loop(x: f64, y: f64, n: usize) -> f64 {
    let mut a = y;
    for _ in 0..n {
        a = x;
    }
    a
}

#[differentiable]
fn tuple_with_constant(x: f64, y: f64) -> f64 {
    let t = (2.0, x * y);
    t.0 * t.1
}

#[differentiable]
fn neighbour_products(p: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..p.len() - 1 {
        s += p[i] * p[i + 1];
    }
    s + p.iter().map(|v| v * 2.0).sum::<f64>()
}

#[test]
fn overwritten_carried_value_constant_in_a_tuple_and_neighbour_products() {
    assert_eq!(
        gradient!(at: (2.0, 3.0, 0), of: overwritten_in_loop),
        (0.0, 1.0)
    );
    assert_eq!(
        gradient!(at: (2.0, 3.0, 2), of: overwritten_in_loop),
        (1.0, 0.0)
    );
    assert_eq!(
        first_derivative!(at: 3.0, of: |y| overwritten_in_loop(2.0, y, 0)),
        1.0
    );
    assert_eq!(
        gradient!(at: (2.0, 3.0), of: tuple_with_constant),
        (6.0, 4.0)
    );
    assert_eq!(
        gradient!(at: &[1.0, 2.0, 3.0][..], of: neighbour_products),
        vec![4.0, 6.0, 4.0]
    );
}

#[differentiable]
fn sumsq(p: &[f64]) -> f64 {
    p.iter().map(|t| t * t).sum::<f64>()
}

#[derive(Differentiable, Clone, Debug)]
pub struct XY {
    x: f64,
    y: f64,
}

impl XY {
    #[differentiable]
    fn norm2(&self) -> f64 {
        self.x * self.x + self.y * self.y
    }
}

#[differentiable]
fn borrows_locals(x: f64, y: f64) -> f64 {
    let w = vec![x, y];
    let a = [x, y, 1.0];
    let p = XY { x, y: 2.0 * y };
    sumsq(&w) + a.iter().map(|t| t * t).sum::<f64>() + a.iter().fold(0.0, |s, t| s + t) + p.norm2()
}

#[test]
fn callees_borrowing_locals() {
    let (gx, gy) = gradient!(at: (1.5, -0.5), of: borrows_locals);
    assert_eq!(gx, 2.0 * 1.5 * 2.0 + 1.0 + 2.0 * 1.5);
    assert_eq!(gy, 2.0 * -0.5 * 2.0 + 1.0 + 8.0 * -0.5);
    let d = first_derivative!(at: 1.5, of: |x| borrows_locals(x, -0.5));
    assert_eq!(d, gx);
}

#[differentiable]
fn newton(a: f64) -> f64 {
    let mut x = 1.0;
    let mut k = 0;
    loop {
        x = 0.5 * (x + a / x);
        k += 1;
        if k > 20 {
            break;
        }
    }
    x
}
#[test]
fn newton_from_a_constant_start() {
    // 21 Newton steps from x = 1 converge to sqrt(a): the derivative is 1 / (2 sqrt(a)).
    let (v, g) = value_with_gradient!(at: 4.0, of: newton);
    assert_eq!(v, newton(4.0));
    assert_close(g, 0.25, 1e-9, "newton");
}

#[differentiable]
fn generic_zero<T: Float>(p: &[T]) -> T {
    let mut acc = T::zero();
    let mut prod = T::one();
    for i in 0..p.len() {
        acc = acc + p[i] * p[i];
        prod = prod * p[i];
    }
    acc + prod
}

#[differentiable]
fn sized_like(p: &[f64]) -> f64 {
    let mut w = vec![0.0; p.len()];
    for i in 0..p.len() {
        w[i] = p[i] * 2.0;
    }
    w[0] * p[1]
}

#[test]
fn generic_constants_vec_repeat_and_jacobian_by_reference() {
    let p = vec![1.0, 2.0];
    assert_eq!(
        gradient!(at: &p, of: generic_zero),
        vec![2.0 + 2.0, 4.0 + 1.0]
    );
    assert_eq!(gradient!(at: &p, of: sized_like), vec![4.0, 2.0]);
    let j = jacobian!(at: &p, of: |q: &Vec<f64>| vec![q[0] * q[1], q[1]]);
    assert_eq!(j, vec![vec![2.0, 1.0], vec![0.0, 1.0]]);
}

#[test]
fn closures_borrow_what_they_capture() {
    let c = vec![2.0, 3.0];
    let k = 1.5;
    let g = gradient!(at: 4.0, of: |x| x * c[0] * k);
    let d = first_derivative!(at: 4.0, of: |x| x * c[1]);
    assert_eq!((g, d), (3.0, 3.0));
    assert_eq!(c.len(), 2); // still usable
}

#[differentiable]
fn let_match_return_or_square(x: f64, y: f64, n: usize) -> f64 {
    let v = match n {
        0 => return x,
        _ => x * x,
    };
    v + y
}

#[differentiable]
fn let_if_and_block_return(x: f64, y: f64, n: usize) -> f64 {
    let v = if n == 0 { return x } else { x * x };
    let w = {
        let t = v * 2.0;
        if t > 100.0 {
            return t;
        }
        t + y
    };
    w + v
}

#[test]
fn early_exits_inside_let_initializers() {
    assert_eq!(
        value_with_gradient!(at: (2.0, 3.0, 0), of: let_match_return_or_square),
        (2.0, (1.0, 0.0))
    );
    assert_eq!(
        value_with_gradient!(at: (2.0, 3.0, 1), of: let_match_return_or_square),
        (7.0, (4.0, 1.0))
    );
    assert_eq!(
        value_with_gradient!(at: (2.0, 3.0, 0), of: let_if_and_block_return),
        (2.0, (1.0, 0.0))
    );
    // v = 4, w = 8 + 3, result 15; d/dx = 2x*2 + 2x = 12, d/dy = 1
    assert_eq!(
        value_with_gradient!(at: (2.0, 3.0, 1), of: let_if_and_block_return),
        (15.0, (12.0, 1.0))
    );
    // v = 64, t = 128 > 100: returns 128, d/dx = 2 * 2x = 32
    assert_eq!(
        value_with_gradient!(at: (8.0, 3.0, 1), of: let_if_and_block_return),
        (128.0, (32.0, 0.0))
    );
}

#[differentiable]
fn vec_write_in_if_else_with_a_binding(x: f64, y: f64) -> f64 {
    let mut w = vec![x, y];
    if x > 0.0 {
        w[1] += x;
    } else {
        let z = y;
        let _ = z;
    }
    w[0] * w[1]
}
#[test]
fn aggregates_written_after_an_early_exit_or_a_branch() {
    assert_eq!(
        value_with_gradient!(at: (2.0, 3.0), of: vec_write_after_return),
        (15.0, (3.0, 8.0))
    );
    assert_eq!(
        value_with_gradient!(at: (2.0, 3.0), of: vec_write_in_if_else_with_a_binding),
        (10.0, (7.0, 2.0))
    );
}

#[differentiable]
fn to_vec_then_scale(p: &[f64]) -> f64 {
    let mut q = p.to_vec();
    q[0] *= 3.0;
    q[0] * q[1]
}
#[test]
fn clones_and_to_vec_of_active_values() {
    assert_eq!(
        gradient!(at: &vec![1.0, 2.0, 3.0], of: clone_vec),
        vec![2.0, 1.0, 0.0]
    );
    assert_eq!(
        gradient!(at: &[1.0, 2.0][..], of: to_vec_then_scale),
        vec![6.0, 3.0]
    );
    assert_eq!(
        first_derivative!(at: 1.0, of: |x| clone_vec(&vec![x, 2.0])),
        2.0
    );
}

#[test]
fn generic_recursion_at_two_depths() {
    assert_eq!(gradient!(at: (2.0, 3), of: pow_rec::<f64>), 32.0);
    assert_eq!(first_derivative!(at: 2.0, of: |x| pow_rec(x, 2)), 12.0);
}

#[test]
fn zip_with_a_skipped_copy() {
    assert_eq!(
        gradient!(at: &[1.0, 2.0, 3.0][..], of: zip_skip),
        vec![2.0, 4.0, 2.0]
    );
    assert_eq!(zip_skip(&[1.0, 2.0, 3.0]), 8.0);
    let df = differential!(at: &[1.0, 2.0, 3.0][..], of: zip_skip);
    assert_eq!(df(vec![1.0, 1.0, 1.0]), 8.0);
}

#[differentiable]
fn pop_constants_with_offset(x: f64, y: f64) -> f64 {
    let mut s = x;
    let mut st = vec![1.0, 2.0];
    while let Some(w) = st.pop() {
        s = s * w + y;
    }
    s
}
#[test]
fn method_args_from_the_receiver_mutable_tuples_and_while_let_pop() {
    let (gx, gy) = gradient!(at: (0.7, 1.3), of: mut_self_arg_from_receiver);
    assert_close(gx, 0.6152473058, 1e-9, "dx");
    assert_close(gy, -0.3640794985, 1e-9, "dy");
    assert_eq!(
        value_with_gradient!(at: (2.0, 3.0), of: tuple_const_updated),
        (15.0, (12.0, 5.0))
    );
    assert_eq!(
        first_derivative!(at: 2.0, of: |x| tuple_const_updated(x, 3.0)),
        12.0
    );
    // s = (x*2 + y)*1 + y
    assert_eq!(
        gradient!(at: (2.0, 3.0), of: pop_constants_with_offset),
        (2.0, 2.0)
    );
}

#[differentiable]
fn mut_self_arg_squared_from_receiver(x: f64, y: f64) -> f64 {
    let mut p = Pt { a: x, b: y };
    p.scale(p.b * p.b);
    p.a + p.b
}
#[test]
fn places_read_before_their_owner_is_updated() {
    let got = value_with_gradient!(at: (0.7, 1.3), of: mut_self_arg_squared_from_receiver);
    check_value_and_gradient2(
        "mut_self_arg_squared_from_receiver",
        mut_self_arg_squared_from_receiver,
        (0.7, 1.3),
        got,
    );
    let d = value_with_derivative!(at: 0.7, of: |x| mut_self_arg_squared_from_receiver(x, 1.3));
    check_value_and_slope(
        "mut_self_arg_squared_from_receiver forward",
        |x| mut_self_arg_squared_from_receiver(x, 1.3),
        0.7,
        d,
    );
}

#[differentiable]
fn element_read_then_written(x: f64, y: f64) -> f64 {
    let mut w = vec![x, y];
    let b = w[1];
    if x > 0.0 {
        w[1] *= x;
    }
    b + x + w[1]
}
#[test]
fn element_bound_then_written() {
    assert_eq!(
        value_with_gradient!(at: (2.0, 3.0), of: element_read_then_written),
        (11.0, (1.0 + 3.0, 1.0 + 2.0))
    );
}

#[differentiable]
fn carried_struct(x: f64, y: f64) -> f64 {
    let mut p = Pt { a: x, b: y };
    let mut acc = 0.0;
    for _ in 0..3 {
        p.b += acc;
        acc = acc * 0.5 + p.a * p.b;
    }
    acc
}

#[test]
fn struct_carried_through_a_loop_and_dropped() {
    let got = value_with_gradient!(at: (0.7, 1.3), of: carried_struct);
    check_value_and_gradient2("carried_struct", carried_struct, (0.7, 1.3), got);
    let d = first_derivative!(at: 0.7, of: |x| carried_struct(x, 1.3));
    assert_close(d, got.1 .0, 1e-12, "carried_struct forward");
}

/// Seed 9700 (feature `select`): `let mut g: f64 = 0.0;` lost its annotation in the
/// generated code, so a method called on `g` through a closure (`a.total_cmp(b)` on
/// `&&{float}`) did not resolve.
#[differentiable]
fn typed_literal_then_min_by(x: f64) -> f64 {
    let mut g: f64 = 0.0;
    let m = *[g, g, 1.57].iter().min_by(|a, b| a.total_cmp(b)).unwrap();
    g = (1.5 * x).cos() + m;
    g * x
}

#[test]
fn a_typed_literal_keeps_its_type() {
    let (v, d) = value_with_gradient!(at: 0.4, of: typed_literal_then_min_by);
    assert_eq!(v, typed_literal_then_min_by(0.4));
    let want = (0.6f64).cos() - 1.5 * 0.4 * (0.6f64).sin();
    assert!((d - want).abs() < 1e-12, "{d} vs {want}");
}

/// Seed 10102 (feature `select`): literals inside a typed tuple or array
/// (`let t: (f64, f64) = (0.43, ..)`, `let a: [f64; 3] = [0.5; 3]`) and literals assigned
/// later to a typed variable (`a = [1.0; 3]`) lost the type in generated code, so
/// `[c, a[2], a[1]].iter().min_by(|a, b| a.total_cmp(b))` saw `&&{float}`.
#[differentiable]
fn typed_aggregates_then_min_by(x: f64, n: usize) -> f64 {
    let mut arr: [f64; 3] = [0.5; 3];
    let t: (f64, f64) = (0.43, x.sin());
    let c = t.0;
    arr = [1.0; 3];
    if n > 1 {
        return (t.0
            - *[c, arr[2], arr[1]]
                .iter()
                .min_by(|a, b| a.total_cmp(b))
                .unwrap())
            * x;
    }
    x * arr[0] + t.1
}

#[test]
fn literals_in_typed_aggregates_keep_their_type() {
    let x: f64 = 0.7;
    // n = 2 returns (0.43 - min(0.43, 1, 1)) x = 0.
    for (n, want) in [(0, 1.0 + x.cos()), (2, 0.0)] {
        let (v, d) = value_with_gradient!(at: x, of: |x| typed_aggregates_then_min_by(x, n));
        assert_eq!(v, typed_aggregates_then_min_by(x, n));
        assert!((d - want).abs() < 1e-12, "{d} vs {want}");
        let fwd = first_derivative!(at: x, of: |x| typed_aggregates_then_min_by(x, n));
        assert!((fwd - want).abs() < 1e-12, "forward {fwd} vs {want}");
    }
}

/// A loop's join yields both a `Vec` and an element of it (`break arr[2]` beside the
/// carried `arr`): the element is read before the vector moves (was E0382).
#[differentiable]
fn break_with_an_element_of_a_carried_vec(x: f64) -> f64 {
    let mut arr = vec![x, 2.0 * x, 3.0];
    let mut k = 0;
    let v = loop {
        k += 1;
        if k > 2 {
            break arr[2];
        }
        arr[2] += x.sin();
    };
    v * arr[0]
}

#[test]
fn element_of_a_carried_vec_read_before_it_moves() {
    let x = 0.7;
    let (v, d) = value_with_derivative!(at: x, of: break_with_an_element_of_a_carried_vec);
    assert_eq!(v, break_with_an_element_of_a_carried_vec(x));
    // (3 + 2 sin x) x
    let expected = 3.0 + 2.0 * x.sin() + 2.0 * x * x.cos();
    assert!((d - expected).abs() < 1e-12, "{d} vs {expected}");
    let g = gradient!(at: x, of: break_with_an_element_of_a_carried_vec);
    assert!((g - expected).abs() < 1e-12, "{g} vs {expected}");
}

/// A tuple holding an element of a `Vec` (`t = (arr[0], x)`) read after the `Vec` moved
/// through a branch: the element is copied when the tuple is built (was E0382; seed 12001,
/// program 209).
#[differentiable]
fn tuple_of_an_element_read_after_a_branch(x: f64) -> f64 {
    let mut arr = vec![x * x, x.cos()];
    let t: (f64, f64) = (arr[0], x);
    if x > 0.0 {
        arr[0] -= 2.0 * x;
    }
    arr[0] + arr[1] + t.0 * t.1
}

#[test]
fn element_in_a_tuple_copied_when_built() {
    for x in [0.4, -0.3] {
        let (v, d) = value_with_derivative!(at: x, of: tuple_of_an_element_read_after_a_branch);
        assert_eq!(v, tuple_of_an_element_read_after_a_branch(x));
        let branch = if x > 0.0 { 2.0 * x - 2.0 } else { 2.0 * x };
        let expected = branch - x.sin() + 3.0 * x * x;
        assert!((d - expected).abs() < 1e-12, "{d} vs {expected}");
        let g = gradient!(at: x, of: tuple_of_an_element_read_after_a_branch);
        assert!((g - expected).abs() < 1e-12, "{g} vs {expected}");
    }
}

/// A variable assigned an element (`y = arr[0]`) in a branch whose join also yields the
/// `Vec`: the element is copied when assigned, as `let` copies it (was E0382; seed
/// 12200, program 193).
#[differentiable]
fn variable_assigned_an_element(x: f64, y: f64, k: usize) -> f64 {
    let mut y = y;
    let mut arr = vec![y.sin(), x, x.cos()];
    if k > 1 {
        y = arr[0];
        if k > 2 {
            arr[1] += 1.0;
        }
    }
    x * y + arr[1] * arr[2]
}

#[test]
fn element_assigned_to_a_variable_copied_when_assigned() {
    let (x, y) = (0.3, 0.4);
    for k in [0, 2] {
        let (v, (gx, gy)) =
            value_with_gradient!(at: (x, y), of: |x, y| variable_assigned_an_element(x, y, k));
        assert_eq!(v, variable_assigned_an_element(x, y, k));
        let ey = if k > 1 { y.sin() } else { y };
        let dey = if k > 1 { y.cos() } else { 1.0 };
        let gx_expected = ey + x.cos() - x * x.sin();
        assert!((gx - gx_expected).abs() < 1e-12, "{gx} vs {gx_expected}");
        assert!((gy - x * dey).abs() < 1e-12, "{gy}");
    }
}
