//! Aggregates: arrays and tuples as parameters, and tuples, arrays and `Vec`s as results
//! (pullbacks take, and differentials return, the result's tangent), with casts through
//! `f32`; tuples mixing floats with integers and `bool`s (`(f64, usize)`, whose tangent is
//! `(f64, NoTangent)`). Struct methods, slices and `Vec` parameters are in reverse_structs.rs.
mod common;

use common::{assert_close, assert_vec_close, fd, fd_grad, Rng};
use diff::prelude::*;

// ---------------------------------------------------------------------------------------
// Arrays.

#[differentiable]
fn array_owned(p: [f64; 3]) -> f64 {
    p[0] * p[1] * p[2] + p[1].cos()
}

#[differentiable]
fn array_ref_destructured(p: &[f64; 2]) -> f64 {
    let [a, b] = *p;
    a * a * b + b.exp()
}

#[differentiable]
fn array_let_pattern(p: [f64; 3]) -> f64 {
    let [a, b, c] = p;
    (a - b).powi(2) + (b - c).powi(2)
}

#[test]
fn array_parameters() {
    let x = [1.0, 2.0, 3.0];
    let g: [f64; 3] = gradient!(at: x, of: array_owned);
    assert_vec_close(&g, &[6.0, 3.0 - 2.0f64.sin(), 2.0], 1e-15, "owned");
    assert_eq!(array_owned(x), 6.0 + 2.0f64.cos());
    let g: [f64; 3] = gradient!(at: x, of: array_let_pattern);
    assert_eq!(g, [-2.0, 0.0, 2.0]);
    assert_eq!(array_let_pattern(x), 2.0);
}

#[test]
fn array_reference_with_let_array_pattern() {
    let x = [1.5, -0.5];
    let g: [f64; 2] = gradient!(at: &x, of: array_ref_destructured);
    assert_vec_close(
        &g,
        &[2.0 * 1.5 * -0.5, 2.25 + (-0.5f64).exp()],
        1e-15,
        "&[f64; 2]",
    );
    let (v, _) = value_with_gradient!(at: &x, of: array_ref_destructured);
    assert_eq!(v, array_ref_destructured(&x));
}

// ---------------------------------------------------------------------------------------
// Tuples.

#[differentiable]
fn tuple_param(p: (f64, f64)) -> f64 {
    let (a, b) = p;
    a * b.sin() + p.0
}

#[test]
fn tuple_parameter() {
    let p = (2.0, 0.5);
    let (da, db) = gradient!(at: p, of: tuple_param);
    assert_close(da, 0.5f64.sin() + 1.0, 1e-15, "da");
    assert_close(db, 2.0 * 0.5f64.cos(), 1e-15, "db");
    assert_eq!(tuple_param(p), 2.0 * 0.5f64.sin() + 2.0);
    // The tuple written in place is the one parameter, not two inputs.
    let (da2, db2) = gradient!(at: (2.0, 0.5), of: tuple_param);
    assert_eq!((da2, db2), (da, db));
    let (dc, dd) = gradient!(at: (2.0, 0.5), of: |q: (f64, f64)| q.0 * q.1);
    assert_eq!((dc, dd), (0.5, 2.0));
}

/// A tuple carried through a loop, holding an integer counter beside active values: the
/// integer literal `1` keeps the counter's type in every companion (it became `i32`).
#[differentiable]
fn tuple_state_with_a_counter(x: f64) -> f64 {
    let mut st = (x, 1.0, 0usize);
    while st.2 < 3 {
        st = (st.0 * st.1 + x, st.0, st.2 + 1);
    }
    st.0 + st.1
}

#[test]
fn tuple_with_an_integer_counter_carried_through_a_loop() {
    for x in [0.7, -1.3] {
        let (v, g) = value_with_gradient!(at: x, of: tuple_state_with_a_counter);
        assert_eq!(v, tuple_state_with_a_counter(x));
        assert_close(g, fd(tuple_state_with_a_counter, x), 1e-7, "reverse vs fd");
        let d = first_derivative!(at: x, of: tuple_state_with_a_counter);
        assert_close(d, g, 1e-12, "forward vs reverse");
        let h = second_derivative!(at: x, of: tuple_state_with_a_counter);
        let dd = fd(|t| gradient!(at: t, of: tuple_state_with_a_counter), x);
        assert_close(h, dd, 1e-6, "second vs fd of the gradient");
    }
}

#[differentiable]
fn tuple_fields(p: (f64, f64), q: (f64, f64)) -> f64 {
    p.0 * q.1 - p.1 * q.0 + (p.0 * q.0).sin()
}

#[test]
fn tuple_parameters_with_field_access() {
    let mut rng = Rng::new(5);
    for _ in 0..10 {
        let d = rng.direction(4);
        let (p, q) = ((d[0], d[1]), (d[2], d[3]));
        let (dp, dq) = gradient!(at: (p, q), of: tuple_fields);
        let g = fd_grad(|x| tuple_fields((x[0], x[1]), (x[2], x[3])), &d);
        assert_vec_close(&[dp.0, dp.1, dq.0, dq.1], &g, 1e-8, "vs fd");
        let (v, _) = value_with_gradient!(at: (p, q), of: tuple_fields);
        assert_eq!(v, tuple_fields(p, q));
    }
}

#[differentiable]
fn array_inner(p: [f64; 2]) -> f64 {
    p[0].exp() * p[1]
}

#[differentiable]
fn array_outer(p: [f64; 2], s: f64) -> f64 {
    let a = array_inner(p);
    a * s + (a * 0.5).sin()
}

// Indexing in a counted loop is the form under test.
#[allow(clippy::needless_range_loop)]
#[differentiable]
fn array_ref_indexed(p: &[f64; 3]) -> f64 {
    let mut acc = 0.0;
    for i in 0..3 {
        acc += p[i] * p[i] * (i as f64 + 1.0);
    }
    acc.sqrt()
}

#[test]
fn arrays_vs_finite_differences() {
    let mut rng = Rng::new(6);
    for _ in 0..10 {
        let d = rng.direction(3);
        let (dp, ds) = gradient!(at: ([d[0], d[1]], d[2]), of: array_outer);
        let g = fd_grad(|x| array_outer([x[0], x[1]], x[2]), &d);
        assert_vec_close(&[dp[0], dp[1], ds], &g, 1e-8, "array_outer");
        let x = [d[0], d[1], d[2]];
        let g: [f64; 3] = gradient!(at: &x, of: array_ref_indexed);
        let e = fd_grad(|p| array_ref_indexed(&[p[0], p[1], p[2]]), &d);
        assert_vec_close(&g, &e, 1e-8, "array_ref_indexed");
        assert_eq!(
            value_with_gradient!(at: &x, of: array_ref_indexed).0,
            array_ref_indexed(&x)
        );
    }
}

#[test]
fn array_pullback_seed() {
    let x = [0.5, 2.0];
    let pb = pullback!(at: x, of: array_inner);
    let g = pb(3.0);
    assert_close(g[0], 3.0 * 0.5f64.exp() * 2.0, 1e-15, "d0");
    assert_close(g[1], 3.0 * 0.5f64.exp(), 1e-15, "d1");
}

// ---------------------------------------------------------------------------------------
// Tuple, `Vec` and array results; an owned `Vec` parameter; a cast through `f32`.

#[differentiable]
fn polar(r: f64, t: f64) -> (f64, f64) {
    (r * t.cos(), r * t.sin())
}

#[differentiable]
fn owned(p: Vec<f64>) -> f64 {
    let y = p[0] * p[1];
    println!("y = {y}, p0 = {}", p[0]);
    y
}

#[differentiable]
fn lift(p: &[f64]) -> Vec<f64> {
    vec![p[0] * p[1], p[1].sin(), 2.0 * p[0]]
}

#[differentiable]
fn arr(p: [f64; 2]) -> [f64; 2] {
    [p[0] * p[1], (p[0] as f32 * 2.0f32) as f64]
}

#[test]
fn tuple_vec_and_array_results_and_casts() {
    let (v, pb) = value_with_pullback!(at: (2.0, 0.5), of: polar);
    assert_eq!(v, polar(2.0, 0.5));
    let (dr, dt) = pb((1.0, 0.0));
    assert_close(dr, 0.5f64.cos(), 1e-15, "polar dr");
    assert_close(dt, -2.0 * 0.5f64.sin(), 1e-15, "polar dt");
    assert_eq!(gradient!(at: vec![3.0, 4.0], of: owned), vec![4.0, 3.0]);
    let j = jacobian!(at: vec![0.5, 2.0], of: |p| lift(&p));
    let expect = vec![vec![2.0, 0.5], vec![0.0, 2.0f64.cos()], vec![2.0, 0.0]];
    assert_eq!(j, expect);
    let (_, pb) = value_with_pullback!(at: [1.5, 3.0], of: arr);
    assert_eq!(pb([1.0, 1.0]), [3.0 + 2.0, 1.5]);
    let (_, df) = value_with_differential!(at: [1.5, 3.0], of: arr);
    assert_eq!(df([1.0, 0.0]), [3.0, 2.0]);
}

#[derive(Differentiable, Clone, Copy, Debug)]
struct Corner {
    x: f64,
    y: f64,
}

#[derive(Differentiable, Clone, Copy, Debug)]
struct Meters(f64, f64);

#[differentiable]
fn struct_patterns(c: Corner, m: Meters) -> f64 {
    let Corner { x, y: height } = c;
    let Meters(a, b) = m;
    let Corner { x: x2, .. } = &c;
    x * height + a * b.sin() + x2 * 3.0
}

#[differentiable]
fn struct_pattern_in_a_loop(cs: &[Corner]) -> f64 {
    let mut s = 0.0;
    for &Corner { x, y } in cs {
        s += x * y;
    }
    for Corner { x, .. } in cs.iter() {
        s += x.exp();
    }
    s
}

#[test]
fn struct_and_tuple_struct_patterns() {
    let at = [0.3, 0.7, 1.1, -0.4];
    let f = |p: &[f64]| struct_patterns(Corner { x: p[0], y: p[1] }, Meters(p[2], p[3]));
    let want = fd_grad(f, &at);
    let (c, m) = gradient!(at: (Corner { x: 0.3, y: 0.7 }, Meters(1.1, -0.4)), of: struct_patterns);
    assert_vec_close(
        &[c.x, c.y, m.0, m.1],
        &want,
        1e-6,
        "struct patterns, reverse",
    );
    let (v, df) = value_with_differential!(
        at: (Corner { x: 0.3, y: 0.7 }, Meters(1.1, -0.4)),
        of: struct_patterns
    );
    let d = df((CornerTangent { x: 1.0, y: 0.0 }, MetersTangent(0.0, 1.0)));
    assert_eq!(v, f(&at));
    assert_close(d, want[0] + want[3], 1e-6, "struct patterns, forward");

    let cs = vec![Corner { x: 0.3, y: 0.7 }, Corner { x: -1.0, y: 0.5 }];
    let g = gradient!(at: &cs, of: struct_pattern_in_a_loop);
    let flat = |p: &[f64]| {
        struct_pattern_in_a_loop(&[Corner { x: p[0], y: p[1] }, Corner { x: p[2], y: p[3] }])
    };
    let want = fd_grad(flat, &[0.3, 0.7, -1.0, 0.5]);
    assert_vec_close(
        &[g[0].x, g[0].y, g[1].x, g[1].y],
        &want,
        1e-6,
        "patterns in loops",
    );
}

#[differentiable]
fn updated_through_mut_reference_loop(mut cs: Vec<Corner>, k: f64) -> f64 {
    for c in &mut cs {
        c.x *= k;
        c.y += c.x * c.x;
    }
    cs.iter().map(|c| c.x + c.y.sin()).sum()
}

#[test]
fn for_loop_over_a_mutable_borrow() {
    let cs = vec![Corner { x: 0.3, y: 0.7 }, Corner { x: -1.0, y: 0.5 }];
    let f = |p: &[f64]| {
        updated_through_mut_reference_loop(
            vec![Corner { x: p[0], y: p[1] }, Corner { x: p[2], y: p[3] }],
            p[4],
        )
    };
    let at = [0.3, 0.7, -1.0, 0.5, 1.5];
    let want = fd_grad(f, &at);
    let (v, (g, gk)) =
        value_with_gradient!(at: (cs.clone(), 1.5), of: updated_through_mut_reference_loop);
    assert_eq!(v, f(&at));
    assert_vec_close(
        &[g[0].x, g[0].y, g[1].x, g[1].y, gk],
        &want,
        1e-6,
        "for c in &mut cs",
    );
    let h = hessian!(at: at.to_vec(), of: |p: Vec<f64>| updated_through_mut_reference_loop(
        vec![Corner { x: p[0], y: p[1] }, Corner { x: p[2], y: p[3] }],
        p[4],
    ));
    let column = fd_grad(
        |q: &[f64]| {
            let (g, gk) = gradient!(at: (vec![Corner { x: q[0], y: q[1] }, Corner { x: q[2], y: q[3] }], q[4]), of: updated_through_mut_reference_loop);
            let _ = g;
            gk
        },
        &at,
    );
    assert_vec_close(&h[4], &column, 1e-5, "for c in &mut cs, second order");
}

// ---------------------------------------------------------------------------------------
// Struct update syntax.

/// A configuration with a default, and a name that carries no derivative.
#[derive(Differentiable, Clone, Debug, Default)]
struct Settings {
    gain: f64,
    bias: f64,
    scale: f64,
    #[no_derivative]
    name: String,
}

/// `..Default::default()` (whose type Rust infers from the literal) and `..other`.
#[differentiable]
fn from_defaults(a: f64) -> f64 {
    let s = Settings {
        gain: a,
        bias: 2.0 * a,
        ..Default::default()
    };
    let t = Settings {
        scale: s.gain * s.bias,
        ..s.clone()
    };
    t.gain + t.bias + t.scale + t.name.len() as f64
}

#[test]
fn struct_update_from_the_default() {
    let a = 0.7;
    let (v, g) = value_with_gradient!(at: a, of: from_defaults);
    assert_close(v, from_defaults(a), 1e-15, "value");
    assert_close(g, 3.0 + 4.0 * a, 1e-12, "d a");
    assert_close(
        first_derivative!(at: a, of: from_defaults),
        g,
        1e-12,
        "forward",
    );
}

#[differentiable]
fn weighted_count(x: (f64, i32)) -> f64 {
    x.0 * x.0 * x.1 as f64
}

#[differentiable]
fn repeated(x: (f64, usize, f64), flip: (bool, f64)) -> f64 {
    let (a, n, b) = x;
    let mut s = 0.0;
    for i in 0..n {
        s += a * b * i as f64;
    }
    if flip.0 {
        -s * flip.1
    } else {
        s + flip.1
    }
}

#[test]
fn tuples_of_floats_and_integers_are_differentiated() {
    let (v, d) = value_with_gradient!(at: (1.5, 2), of: weighted_count);
    assert_eq!(v, weighted_count((1.5, 2)));
    assert_eq!(d, (6.0, diff::NoTangent));
    for flip in [true, false] {
        let ((da, _, db), (_, dc)) = gradient!(at: ((1.5, 3, 2.0), (flip, 0.5)), of: repeated);
        let f = |a: f64, b: f64, c: f64| repeated((a, 3, b), (flip, c));
        assert_close(da, fd(|t| f(t, 2.0, 0.5), 1.5), 1e-6, "d/da");
        assert_close(db, fd(|t| f(1.5, t, 0.5), 2.0), 1e-6, "d/db");
        assert_close(dc, fd(|t| f(1.5, 2.0, t), 0.5), 1e-6, "d/dc");
        // Forward mode along a.
        let t = differential!(at: ((1.5, 3, 2.0), (flip, 0.5)), of: repeated)((
            (1.0, diff::NoTangent, 0.0),
            (diff::NoTangent, 0.0),
        ));
        assert_close(t, da, 1e-12, "forward against reverse");
        // Second order, through a closure: d²/da db = (0 + 1 + 2) · (∓0.5 or 1).
        let h = hessian!(at: (1.5, 2.0, 0.5), of: |a, b, c| repeated((a, 3, b), (flip, c)));
        let want = if flip { -1.5 } else { 3.0 };
        assert_close(h[0][1], want, 1e-12, "d2/da db");
        assert_close(h[1][0], want, 1e-12, "d2/db da");
        assert_close(h[0][0], 0.0, 1e-12, "d2/da2");
        // d2/da dc = -3 b when flipped (0 otherwise).
        assert_close(h[0][2], if flip { -6.0 } else { 0.0 }, 1e-12, "d2/da dc");
    }
}

/// A result holding indices beside a value (an LU decomposition and its permutation):
/// `(f64, Vec<usize>)` is Differentiable, the indices carrying no derivative.
#[differentiable]
fn value_and_order(x: f64) -> (f64, Vec<usize>) {
    let order = if x > 0.0 { vec![1, 0, 2] } else { vec![0, 1] };
    (x * x, order)
}

#[differentiable]
fn uses_the_order(x: f64) -> f64 {
    let (v, order) = value_and_order(x);
    v * order.len() as f64 + order[0] as f64
}

#[test]
fn a_result_holding_indices() {
    let (v, d) = value_with_gradient!(at: 1.5, of: uses_the_order);
    assert_eq!((v, d), (uses_the_order(1.5), 6.0 * 1.5));
    let (v, d) = value_with_derivative!(at: -1.5, of: uses_the_order);
    assert_eq!((v, d), (uses_the_order(-1.5), 4.0 * -1.5));
}
