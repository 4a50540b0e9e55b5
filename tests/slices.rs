//! Parts of slices: sub-slices `&v[a..b]`, `&v[a..]`, `&v[..b]` (also passed on, and as a
//! chain's collection `v[1..].iter()`), `split_at`, `.windows(k)` and `.chunks(k)`. Both
//! modes, against finite differences. Slice patterns (`[a, b]`, `[first, .., last]`,
//! `[head, rest @ ..]`, `&[a, b, ..]`, `let [a, .., z] = array`) in `match`, `if let` and `let`.
mod common;
use common::{assert_close, assert_vec_close, fd, fd_grad};
use diff::prelude::*;

#[differentiable]
fn smoothness(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for w in x.windows(2) {
        s += (w[1] - w[0]).powi(2);
    }
    s
}

#[differentiable]
fn curvature(x: &[f64]) -> f64 {
    x.windows(3).map(|w| w[0] * w[2] - w[1]).sum()
}

#[differentiable]
fn pairs(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for c in x.chunks(2) {
        s += c[0] * c[c.len() - 1];
    }
    s
}

#[differentiable]
fn parts(x: &[f64]) -> f64 {
    let a = &x[1..3];
    let b = &x[2..];
    let c = &x[..=1];
    a[0] * b[0] + a[1] * c[0]
}

#[differentiable]
fn tail_squares(x: &[f64]) -> f64 {
    x[1..].iter().map(|v| v * v).sum()
}

#[differentiable]
fn ends(p: &[f64]) -> f64 {
    p[0] * p[p.len() - 1]
}

#[differentiable]
fn parts_passed_on(x: &[f64]) -> f64 {
    ends(&x[..2]) + ends(&x[1..])
}

#[differentiable]
fn halves(x: &[f64]) -> f64 {
    let (head, tail) = x.split_at(2);
    head[0] * tail[0] + head[1] * tail[tail.len() - 1]
}

#[differentiable]
fn owned_part(x: Vec<f64>) -> f64 {
    let a = &x[1..];
    a[0] * a[1]
}

macro_rules! check {
    ($f:ident) => {{
        let x = vec![0.3, -1.2, 0.7, 2.0, 1.1];
        let (v, g) = value_with_gradient!(at: &x, of: $f);
        assert_eq!(v, $f(&x), stringify!($f));
        assert_vec_close(&g, &fd_grad($f, &x), 1e-6, stringify!($f));
        let line = |t: f64| vec![t, t * t, 1.0, -t, 0.5 * t];
        let t = 0.45;
        let (v, d) = value_with_derivative!(at: t, of: |t| $f(&vec![t, t * t, 1.0, -t, 0.5 * t]));
        assert_eq!(v, $f(&line(t)), stringify!($f));
        assert_close(d, fd(|t| $f(&line(t)), t), 1e-6, stringify!($f));
    }};
}

#[test]
fn windows_and_chunks() {
    check!(smoothness);
    check!(curvature);
    check!(pairs);
}

#[test]
fn sub_slices_and_split_at() {
    check!(parts);
    check!(tail_squares);
    check!(parts_passed_on);
    check!(halves);
    let x = vec![0.3, -1.2, 0.7];
    let g = gradient!(at: x.clone(), of: owned_part);
    assert_vec_close(&g, &[0.0, 0.7, -1.2], 1e-12, "a part of an owned Vec");
}

#[differentiable]
fn from_an_array(x: [f64; 3]) -> f64 {
    ends(&x) * 2.0
}

/// (A `&Vec` parameter, as the point is the `&Vec`.)
#[allow(clippy::ptr_arg)]
#[differentiable]
fn from_a_vec_by_reference(x: &Vec<f64>) -> f64 {
    ends(x) + ends(&x[..])
}

#[differentiable]
fn from_a_local_array(a: f64, b: f64) -> f64 {
    let arr = [a, b, a * b];
    ends(&arr)
}

#[test]
fn arrays_and_vecs_given_for_slices() {
    let g = gradient!(at: [1.0, 2.0, 3.0], of: from_an_array);
    assert_eq!(g, [6.0, 0.0, 2.0]);
    let g = gradient!(at: &vec![1.0, 2.0, 3.0], of: from_a_vec_by_reference);
    assert_vec_close(&g, &[6.0, 0.0, 2.0], 1e-12, "&Vec for &[T]");
    let (v, (da, db)) = value_with_gradient!(at: (2.0, 3.0), of: from_a_local_array);
    assert_eq!(v, from_a_local_array(2.0, 3.0));
    // a^2 b
    assert_close(da, 12.0, 1e-12, "d/da");
    assert_close(db, 4.0, 1e-12, "d/db");
    let d = first_derivative!(at: 2.0, of: |a| from_a_local_array(a, 3.0));
    assert_close(d, 12.0, 1e-12, "forward d/da");
    let d = first_derivative!(at: 2.0, of: |t| from_an_array([t, 1.0, t * t]));
    assert_close(d, 2.0 * 3.0 * 4.0, 1e-12, "forward through an array");
}

/// `.windows`, `.chunks` and sub-slices of an array taken by reference (rustc's
/// `std::autodiff` test `window.rs`): `&x` is a `&&[f64; N]`.
#[differentiable]
fn windows_of_an_array_reference(x: &[f64; 4]) -> f64 {
    let w: f64 = x.windows(2).map(|w| w[0] * w[1]).sum();
    let c: f64 = x.chunks(2).map(|c| c[0] - c[1] * c[1]).sum();
    w + c + x[1..].iter().sum::<f64>() * x[..2].iter().product::<f64>()
}

fn windows_of_an_array_plain(x: &[f64]) -> f64 {
    let w = x[0] * x[1] + x[1] * x[2] + x[2] * x[3];
    let c = (x[0] - x[1] * x[1]) + (x[2] - x[3] * x[3]);
    w + c + (x[1] + x[2] + x[3]) * (x[0] * x[1])
}

#[test]
fn windows_and_sub_slices_of_an_array_reference() {
    let x = [1.5, -0.5, 2.0, 0.25];
    let (v, g) = value_with_gradient!(at: &x, of: windows_of_an_array_reference);
    assert_close(v, windows_of_an_array_plain(&x), 1e-12, "value");
    let expected = fd_grad(windows_of_an_array_plain, &x);
    assert_vec_close(&g, &expected, 1e-8, "reverse against differences");
    for k in 0..4 {
        let (v, df) = value_with_differential!(at: &x, of: windows_of_an_array_reference);
        assert_close(v, windows_of_an_array_plain(&x), 1e-12, "forward value");
        let mut e = [0.0; 4];
        e[k] = 1.0;
        assert_close(df(e), g[k], 1e-12, "forward against reverse");
    }
    let h = hessian!(at: &x, of: windows_of_an_array_reference);
    for (i, row) in h.iter().enumerate() {
        for (j, hij) in row.iter().enumerate() {
            let dg = fd(
                |t| {
                    let mut p = x;
                    p[j] += t;
                    gradient!(at: &p, of: windows_of_an_array_reference)[i]
                },
                0.0,
            );
            assert_close(
                *hij,
                dg,
                1e-8,
                "hessian against differences of the gradient",
            );
        }
    }
}

/// Writes elements through a `&mut [f64]` parameter.
#[differentiable]
fn write_through(y: &mut [f64], x: f64) {
    y[0] = x * 2.0;
    y[1] += x * y[0];
}

#[differentiable]
fn writes_into_a_vec(x: f64) -> f64 {
    let mut v = vec![1.0, 2.0, 3.0];
    write_through(&mut v, x);
    v[0] * v[1] + v[2]
}

#[test]
fn element_writes_through_a_mut_slice() {
    let x = 1.5;
    let (v, g) = value_with_gradient!(at: x, of: writes_into_a_vec);
    assert_eq!(v, writes_into_a_vec(x));
    // 2x (2 + 2x^2) + 3
    assert_close(g, fd(writes_into_a_vec, x), 1e-6, "reverse");
    let d = first_derivative!(at: x, of: writes_into_a_vec);
    assert_close(d, g, 1e-12, "forward against reverse");
}

// ---------------------------------------------------------------------------------------
// A local array updated through a `&mut [T]` parameter.

#[differentiable]
fn scale_into(out: &mut [f64], x: f64) {
    out[0] = x * 2.0;
    out[1] += x * out[0];
}

#[differentiable]
fn through_mut_array(x: f64, y: f64) -> f64 {
    let mut a = [1.0, y];
    scale_into(&mut a, x);
    a[0] * a[1]
}

#[test]
fn array_updated_through_a_mut_slice_parameter() {
    // a = [2x, y + 2x^2]: f = 2xy + 4x^3.
    let (v, (dx, dy)) = value_with_gradient!(at: (1.5, -0.5), of: through_mut_array);
    assert_eq!(v, through_mut_array(1.5, -0.5));
    assert_close(dx, 2.0 * -0.5 + 12.0 * 2.25, 1e-12, "d/dx");
    assert_close(dy, 3.0, 1e-12, "d/dy");
    let fwd = first_derivative!(at: 1.5, of: |x| through_mut_array(x, -0.5));
    assert_close(fwd, dx, 1e-12, "forward d/dx");
}

// Locals holding references iterate by reference, as in Rust: an item of `chunks`, a
// borrowed row, a sub-slice, a borrowed Vec (`for &v in row`).
#[differentiable]
fn rows_by_reference(xs: &[f64]) -> f64 {
    let mut total = 0.0;
    for row in xs.chunks(2) {
        for &v in row {
            total += v.exp();
        }
    }
    total
}

#[differentiable]
#[allow(clippy::ptr_arg, clippy::needless_range_loop)] // written as users write it
fn borrowed_rows(m: &Vec<Vec<f64>>) -> f64 {
    let mut total = 0.0;
    for i in 0..m.len() {
        let row = &m[i];
        for &v in row {
            total += v * v;
        }
        for (j, v) in row.iter().enumerate() {
            total += (j as f64) * v;
        }
    }
    total
}

#[differentiable]
fn borrowed_locals(xs: Vec<f64>) -> f64 {
    let tail = &xs[1..];
    let w = &xs;
    let mut s = 0.0;
    for &v in tail {
        s += v.sin();
    }
    for x in w {
        s += x * 2.0;
    }
    for pair in xs.chunks(2) {
        for (k, &p) in pair.iter().enumerate() {
            s += p * (k as f64 + 1.0);
        }
    }
    s
}

#[test]
fn locals_holding_references_iterate_by_reference() {
    let x = vec![0.1, 0.5, -0.3, 0.2, 0.7];
    let (v, g) = value_with_gradient!(at: x.clone(), of: |v: Vec<f64>| rows_by_reference(&v));
    assert_eq!(v, rows_by_reference(&x));
    let want: Vec<f64> = x.iter().map(|v| v.exp()).collect();
    assert_vec_close(&g, &want, 1e-12, "chunks");
    let m = vec![vec![1.0, 2.0, 0.5], vec![3.0, 4.0, -1.0]];
    let g = gradient!(at: &m, of: borrowed_rows);
    let want: Vec<Vec<f64>> = m
        .iter()
        .map(|r| {
            r.iter()
                .enumerate()
                .map(|(j, v)| 2.0 * v + j as f64)
                .collect()
        })
        .collect();
    assert_eq!(g, want);
    let (v, g) = value_with_gradient!(at: x.clone(), of: borrowed_locals);
    assert_eq!(v, borrowed_locals(x.clone()));
    assert_vec_close(
        &g,
        &fd_grad(|v| borrowed_locals(v.to_vec()), &x),
        1e-8,
        "locals",
    );
    let d = jacobian!(at: x.clone(), of: |v: Vec<f64>| vec![borrowed_locals(v)]);
    assert_vec_close(&d[0], &g, 1e-12, "forward");
}

#[differentiable]
fn by_length(x: &[f64]) -> f64 {
    match x {
        [] => 0.0,
        [a] => a * a,
        [a, b] => a * b,
        [first, middle @ .., last] if middle.len() > 1 => {
            first * last + middle.iter().map(|v| v.sin()).sum::<f64>()
        }
        [first, rest @ ..] => first.exp() * rest[0],
    }
}

#[differentiable]
fn leading_pair(x: Vec<f64>) -> f64 {
    match x.as_slice() {
        &[a, b, ..] => a * b * b,
        [a] => *a,
        _ => 0.0,
    }
}

#[differentiable]
fn leading_pair_copied(x: &[f64]) -> f64 {
    match *x {
        [a, b, ..] => a * b * b,
        [a] => a,
        _ => 0.0,
    }
}

#[differentiable]
fn first_times_last(x: Vec<f64>) -> f64 {
    if let [first, .., last] = x.as_slice() {
        first * last
    } else {
        0.0
    }
}

#[differentiable]
fn steps_of_windows(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for w in x.windows(2) {
        if let [a, b] = w {
            s += (b - a) * (b - a);
        }
    }
    s
}

#[differentiable]
fn outer_elements(x: [f64; 5]) -> f64 {
    let [a, .., y, z] = x;
    a * y - z.cos()
}

#[test]
fn slice_patterns_bind_parts_by_index() {
    for n in 0..6 {
        let x: Vec<f64> = (0..n).map(|i| 0.3 + 0.4 * i as f64).collect();
        let (v, g) = value_with_gradient!(at: &x, of: by_length);
        assert_close(v, by_length(&x), 1e-15, "by_length value");
        assert_vec_close(
            &g,
            &fd_grad(by_length, &x),
            1e-6,
            &format!("by_length, n = {n}"),
        );
        let g = gradient!(at: x.clone(), of: leading_pair);
        let expected = fd_grad(|v| leading_pair(v.to_vec()), &x);
        assert_vec_close(&g, &expected, 1e-6, &format!("leading_pair, n = {n}"));
        let g = gradient!(at: &x, of: leading_pair_copied);
        let expected = fd_grad(leading_pair_copied, &x);
        assert_vec_close(
            &g,
            &expected,
            1e-6,
            &format!("leading_pair_copied, n = {n}"),
        );
        let g = gradient!(at: x.clone(), of: first_times_last);
        let expected = fd_grad(|v| first_times_last(v.to_vec()), &x);
        assert_vec_close(&g, &expected, 1e-6, &format!("first_times_last, n = {n}"));
        let g = gradient!(at: &x, of: steps_of_windows);
        assert_vec_close(&g, &fd_grad(steps_of_windows, &x), 1e-6, "windows");
        // Forward mode, along each axis.
        for j in 0..n {
            let mut e = vec![0.0; n];
            e[j] = 1.0;
            let d = differential!(at: &x, of: by_length)(e);
            assert_close(d, g_of(&x, j), 1e-6, "by_length forward");
        }
    }
    let x = [0.5, 1.0, 1.5, 2.0, 2.5];
    let g = gradient!(at: x, of: outer_elements);
    assert_vec_close(
        &g,
        &[2.0, 0.0, 0.0, 0.5, 2.5f64.sin()],
        1e-15,
        "let [a, .., y, z]",
    );
    // Second order: against the formula.
    let h = hessian!(at: x, of: outer_elements);
    assert_close(h[0][3], 1.0, 1e-15, "d2/da dy");
    assert_close(h[4][4], 2.5f64.cos(), 1e-15, "d2/dz2");
    let h = hessian!(at: vec![0.3, 0.7, 1.1], of: leading_pair);
    assert_vec_close(&h[0], &[0.0, 1.4, 0.0], 1e-12, "hessian row 0");
    assert_vec_close(&h[1], &[1.4, 0.6, 0.0], 1e-12, "hessian row 1");
}

/// The `j`-th partial derivative of `by_length` at `x`, by finite differences.
fn g_of(x: &[f64], j: usize) -> f64 {
    fd_grad(by_length, x)[j]
}

#[differentiable]
fn scaled_at(xs: &[f64], i: usize, t: f64) -> f64 {
    xs[i] * t * t
}

/// Searches of a sorted slice (`partition_point`, `binary_search_by`, `contains`): indices
/// and booleans, which carry no derivative.
#[differentiable]
fn searched_sorted(xs: &[f64], t: f64) -> f64 {
    let i = xs.partition_point(|&k| k <= t);
    let j = match xs.binary_search_by(|k| k.total_cmp(&t)) {
        Ok(j) => j,
        Err(j) => j.min(xs.len() - 1),
    };
    let known = xs.contains(&1.0);
    scaled_at(xs, i, t) + xs[j] * if known { 2.0 } else { 1.0 }
}

#[test]
fn searches_of_sorted_slices() {
    let xs = vec![0.0, 1.0, 2.0];
    let t = 0.5;
    let (v, (gx, gt)) = value_with_gradient!(at: (&xs, t), of: searched_sorted);
    assert_eq!(v, searched_sorted(&xs, t));
    // i = 1, j = 1: x1 t² + 2 x1.
    assert_eq!(v, xs[1] * t * t + 2.0 * xs[1]);
    assert_eq!(gx, vec![0.0, t * t + 2.0, 0.0]);
    assert_eq!(gt, 2.0 * t * xs[1]);
    let d2 = second_derivative!(at: t, of: |t: f64| searched_sorted(&[0.0, 1.0, 2.0], t));
    assert_eq!(d2, 2.0);
}

/// A part of an array updated in place by a slice method, in a loop and on a parameter.
#[differentiable]
fn array_part_reversed_in_a_loop(x: f64) -> f64 {
    let mut a = [x, 2.0 * x, x * x];
    for i in 0..2 {
        a[i] *= x;
        a[1..].reverse();
    }
    a[0] + 10.0 * a[1] + 100.0 * a[2]
}

#[differentiable]
fn array_part_of_a_parameter(mut a: [f64; 3], x: f64) -> f64 {
    a[1..].reverse();
    a[0] * x + 10.0 * a[1] + 100.0 * a[2]
}

#[test]
fn parts_of_arrays_updated_in_place() {
    let f = array_part_reversed_in_a_loop;
    // a = [x², x², 2x] after the first pass, [x², 2x, x³] after the second:
    // f = x² + 20x + 100x³.
    let x = 1.5;
    let (v, d) = value_with_gradient!(at: x, of: array_part_reversed_in_a_loop);
    assert_eq!((v, d), (f(x), 2.0 * x + 20.0 + 300.0 * x * x));
    let (v, d) = value_with_derivative!(at: x, of: array_part_reversed_in_a_loop);
    assert_eq!((v, d), (f(x), 2.0 * x + 20.0 + 300.0 * x * x));
    assert_eq!(
        second_derivative!(at: x, of: array_part_reversed_in_a_loop),
        2.0 + 600.0 * x
    );
    let (da, dx) = gradient!(at: ([1.0, 2.0, 3.0], x), of: array_part_of_a_parameter);
    assert_eq!((da, dx), ([x, 100.0, 10.0], 1.0));
}

/// Elements of a collection of arrays given for a slice parameter (`g(x)` for `x` of
/// `xs: &[[f64; 2]]`, `&xs[i]`, `&xs[i][..]`, `Vec<[f64; 2]>`).
#[differentiable]
fn pair_product(p: &[f64]) -> f64 {
    p[0] * p[1]
}

/// (Indexed on purpose: `&xs[i]` is one of the forms.)
#[allow(clippy::needless_range_loop)]
#[differentiable]
fn rows_of_arrays(xs: &[[f64; 2]]) -> f64 {
    let mut s = 0.0;
    for x in xs.iter() {
        s += pair_product(x);
    }
    for i in 0..xs.len() {
        s += pair_product(&xs[i]) * pair_product(&xs[i][..]);
    }
    s
}

#[differentiable]
fn owned_rows_of_arrays(xs: Vec<[f64; 2]>) -> f64 {
    xs.iter().map(|x| pair_product(x)).sum()
}

#[test]
fn elements_of_collections_of_arrays_given_for_slices() {
    let xs = vec![[1.5, 2.0], [3.0, -0.5]];
    // Σ a b + (a b)²: d/da = b + 2 a b², d/db = a + 2 a² b.
    let expected: Vec<[f64; 2]> = xs
        .iter()
        .map(|[a, b]| [b + 2.0 * a * b * b, a + 2.0 * a * a * b])
        .collect();
    let (v, g) = value_with_gradient!(at: &xs, of: rows_of_arrays);
    assert_eq!(v, rows_of_arrays(&xs));
    for (r, e) in g.iter().zip(&expected) {
        assert_vec_close(r, e, 1e-12, "reverse");
    }
    let d = differential!(at: &xs, of: rows_of_arrays)(vec![[0.0, 1.0], [0.0, 0.0]]);
    assert_close(d, expected[0][1], 1e-12, "forward");
    let g = gradient!(at: xs.clone(), of: owned_rows_of_arrays);
    assert_eq!(g, vec![[2.0, 1.5], [-0.5, 3.0]]);
}

/// A slice copied with `to_owned()` (a `Vec`, as `to_vec()` gives), and a closure bound in
/// the body with an untyped parameter, called twice.
#[differentiable]
fn owned_and_squared(x: &[f64]) -> f64 {
    let a = x.to_owned();
    let sq = |t| t * t;
    sq(a[0]) * x[1] + sq(a[1] - a[0])
}

#[test]
fn to_owned_of_a_slice_and_an_untyped_closure() {
    let x = vec![1.5, -0.5];
    // f = a^2 b + (b - a)^2.
    let (a, b) = (x[0], x[1]);
    let expected = [2.0 * a * b - 2.0 * (b - a), a * a + 2.0 * (b - a)];
    let (v, g) = value_with_gradient!(at: &x, of: owned_and_squared);
    assert_eq!(v, owned_and_squared(&x));
    for (g, e) in g.iter().zip(expected) {
        assert!((g - e).abs() < 1e-12, "{g} vs {e}");
    }
    let df = differential!(at: &x, of: owned_and_squared);
    let forward = df(vec![1.0, 0.5]);
    let e = expected[0] + 0.5 * expected[1];
    assert!((forward - e).abs() < 1e-12, "forward {forward} vs {e}");
    // Second order: the Hessian [[2b + 2, 2a - 2], [2a - 2, 2]].
    let h = hessian!(at: &x, of: owned_and_squared);
    let want = [[2.0 * b + 2.0, 2.0 * a - 2.0], [2.0 * a - 2.0, 2.0]];
    for i in 0..2 {
        for k in 0..2 {
            assert!((h[i][k] - want[i][k]).abs() < 1e-12, "{h:?}");
        }
    }
}
