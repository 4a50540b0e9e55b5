//! Regressions found by the second round of random-program testing: minimized programs
//! that once failed (wrong values or derivatives, or did not compile), checked against
//! closed-form values and gradients in both modes.
// The written-out assignments, Vecs, `&Vec` parameter and one-arm `match` are what once failed.
#![allow(
    clippy::assign_op_pattern,
    clippy::useless_vec,
    clippy::ptr_arg,
    clippy::single_match
)]

use diff::prelude::*;

/// Value, reverse gradient and forward differential of `f` at `at`, against closed forms.
macro_rules! check {
    ($f:ident, $at:tt, $value:expr, $grad:expr) => {{
        let want: (f64, f64) = $grad;
        let (v, g) = value_with_gradient!(at: $at, of: $f);
        assert_eq!(v, $value, "{} value", stringify!($f));
        assert_close(g, want, concat!(stringify!($f), " reverse"));
        let (vd, df) = value_with_differential!(at: $at, of: $f);
        assert_eq!(vd, $value, "{} differential value", stringify!($f));
        let dx = df((1.0, 0.0));
        let dy = differential!(at: $at, of: $f)((0.0, 1.0));
        assert_close((dx, dy), want, concat!(stringify!($f), " forward"));
    }};
}

#[derive(Differentiable, Clone, Debug)]
struct Pt {
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

fn assert_close(got: (f64, f64), want: (f64, f64), what: &str) {
    let ok = |g: f64, w: f64| (g - w).abs() <= 1e-12 * (1.0 + w.abs());
    assert!(
        ok(got.0, want.0) && ok(got.1, want.1),
        "{what}: got {got:?}, want {want:?}"
    );
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
    assert_close(g, (y, x + 1.0), "times reverse");
    let (vd, _) = value_with_differential!(at: (x, y), of: mut_self_times);
    assert_eq!(vd, v);
    let dx = differential!(at: (x, y), of: mut_self_times)((1.0, 0.0));
    let dy = differential!(at: (x, y), of: mut_self_times)((0.0, 1.0));
    assert_close((dx, dy), (y, x + 1.0), "times forward");

    // a = x cos y, b = y + y a: f = x cos y + y + x y cos y
    let (c, s) = (y.cos(), y.sin());
    let want = (c + y * c, -x * s + 1.0 + x * c - x * y * s);
    let (v, g) = value_with_gradient!(at: (x, y), of: mut_self_scale);
    assert_eq!(v, mut_self_scale(x, y));
    assert_close(g, want, "scale reverse");
    let dx = differential!(at: (x, y), of: mut_self_scale)((1.0, 0.0));
    let dy = differential!(at: (x, y), of: mut_self_scale)((0.0, 1.0));
    assert_close((dx, dy), want, "scale forward");
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
    assert_close(g, (2.0 * x, 0.0), "field in if");
    // x < 0: x * y
    let g = gradient!(at: (-x, y), of: field_write_in_if);
    assert_close(g, (y, -x), "field in if, not taken");
    let dx = differential!(at: (x, y), of: field_write_in_if)((1.0, 0.0));
    assert_close((dx, 0.0), (2.0 * x, 0.0), "field in if forward");

    // x (y + 2x)
    let (v, g) = value_with_gradient!(at: (x, y), of: field_write_in_loop);
    assert_eq!(v, x * (y + 2.0 * x));
    assert_close(g, (y + 4.0 * x, x), "field in loop");
    let dy = differential!(at: (x, y), of: field_write_in_loop)((0.0, 1.0));
    assert_close((dy, 0.0), (x, 0.0), "field in loop forward");

    // x (y + x)
    let (v, g) = value_with_gradient!(at: (x, y), of: vec_write_in_if);
    assert_eq!(v, x * (y + x));
    assert_close(g, (y + 2.0 * x, x), "vec in if");
    let dx = differential!(at: (x, y), of: vec_write_in_if)((1.0, 0.0));
    assert_close((dx, 0.0), (y + 2.0 * x, 0.0), "vec in if forward");
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
    // p0 p1 + p1 p2
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
