//! Building collections of active values: `.collect()` of a mapped chain (the type on the
//! `let` or in a turbofish), `Vec::new` / `Vec::with_capacity` with `push`,
//! `extend_from_slice`, `insert`, `truncate`, `remove`, `split_off`, `resize`, .., and
//! `vec![x; n]` with an active `x`. Each in both modes, against finite differences.
#![allow(clippy::needless_range_loop)]
mod common;
use common::{assert_close, assert_vec_close, fd, fd_grad};
use diff::prelude::*;

#[differentiable]
fn collected_with_type_on_let(x: &[f64]) -> f64 {
    let squares: Vec<f64> = x.iter().map(|a| a * a).collect();
    let mut s = 0.0;
    for (i, q) in squares.iter().enumerate() {
        s += q * (i as f64 + 1.0);
    }
    s
}

#[differentiable]
fn collected_with_turbofish(x: &[f64]) -> f64 {
    let v = x.iter().map(|a| a.sin() * 2.0).collect::<Vec<_>>();
    v[0] * v[1] + v[2]
}

#[differentiable]
fn residuals_collected_from_zip(x: &[f64], y: &[f64]) -> f64 {
    let r: Vec<f64> = x.iter().zip(y.iter()).map(|(a, b)| a - b).collect();
    r.iter().map(|e| e * e).sum()
}

#[differentiable]
fn pushed(x: &[f64]) -> f64 {
    let mut v = Vec::with_capacity(x.len());
    for i in 0..x.len() {
        v.push(x[i].sin() * x[0]);
    }
    let mut s = 0.0;
    for e in &v {
        s += e * e;
    }
    s
}

/// (Written with `push`, as the point is `push`.)
#[allow(clippy::vec_init_then_push)]
#[differentiable]
fn pushed_from_empty(x: f64, y: f64) -> f64 {
    let mut v = Vec::new();
    v.push(x * y);
    v.push(y.exp());
    v.push(3.0);
    v[0] * v[1] + v[2] * x
}

#[differentiable]
fn extended_inserted_truncated(x: &[f64]) -> f64 {
    let mut v = Vec::new();
    v.extend_from_slice(x);
    v.push(1.0);
    v.insert(0, x[1] * 3.0);
    v.truncate(3);
    v[0] * v[1] + v[2]
}

#[differentiable]
fn repeated(x: f64, n: usize) -> f64 {
    let mut v = vec![x * 2.0; n];
    v[1] = x;
    let mut s = 0.0;
    for e in v.iter() {
        s += e * e;
    }
    s
}

fn check_slice_fn(name: &str, f: impl Fn(&[f64]) -> f64 + Copy, x: &[f64], g: Vec<f64>) {
    assert_vec_close(&g, &fd_grad(f, x), 1e-6, name);
}

#[test]
fn collect_in_reverse_mode() {
    let x = vec![0.3, -1.2, 0.7];
    let (v, g) = value_with_gradient!(at: &x, of: collected_with_type_on_let);
    assert_eq!(v, collected_with_type_on_let(&x));
    check_slice_fn(
        "collect, type on the let",
        collected_with_type_on_let,
        &x,
        g,
    );
    let (v, g) = value_with_gradient!(at: &x, of: collected_with_turbofish);
    assert_eq!(v, collected_with_turbofish(&x));
    check_slice_fn("collect::<Vec<_>>", collected_with_turbofish, &x, g);
    let y = vec![1.0, 0.5, -0.5];
    let (gx, gy) = gradient!(at: (&x, &y), of: residuals_collected_from_zip);
    for i in 0..3 {
        assert_close(gx[i], 2.0 * (x[i] - y[i]), 1e-12, "d/dx residuals");
        assert_close(gy[i], -2.0 * (x[i] - y[i]), 1e-12, "d/dy residuals");
    }
}

#[test]
fn push_extend_insert_truncate_in_reverse_mode() {
    let x = vec![0.3, -1.2, 0.7];
    let (v, g) = value_with_gradient!(at: &x, of: pushed);
    assert_eq!(v, pushed(&x));
    check_slice_fn("push", pushed, &x, g);
    let (v, g) = value_with_gradient!(at: &x, of: extended_inserted_truncated);
    assert_eq!(v, extended_inserted_truncated(&x));
    check_slice_fn(
        "extend, insert, truncate",
        extended_inserted_truncated,
        &x,
        g,
    );
    let (a, b) = (0.4, -0.3);
    let (v, (dx, dy)) = value_with_gradient!(at: (a, b), of: pushed_from_empty);
    assert_eq!(v, pushed_from_empty(a, b));
    // x y e^y + 3 x
    assert_close(dx, b * b.exp() + 3.0, 1e-12, "d/dx");
    assert_close(dy, a * b.exp() + a * b * b.exp(), 1e-12, "d/dy");
}

/// Forward mode along the line `t -> [t, 2t, 1 - t]`, against finite differences.
macro_rules! check_forward {
    ($f:ident) => {{
        let line = |t: f64| vec![t, 2.0 * t, 1.0 - t];
        let t = 0.45;
        let (v, d) = value_with_derivative!(at: t, of: |t| $f(&vec![t, 2.0 * t, 1.0 - t]));
        assert_eq!(v, $f(&line(t)), stringify!($f));
        assert_close(d, fd(|t| $f(&line(t)), t), 1e-6, stringify!($f));
    }};
}

#[test]
fn building_collections_in_forward_mode() {
    check_forward!(collected_with_type_on_let);
    check_forward!(collected_with_turbofish);
    check_forward!(pushed);
    check_forward!(extended_inserted_truncated);
    let d = first_derivative!(at: 0.4, of: |x| pushed_from_empty(x, -0.3));
    assert_close(
        d,
        -0.3 * (-0.3f64).exp() + 3.0,
        1e-12,
        "forward push from empty",
    );
}

#[test]
fn vec_repeat_of_an_active_value() {
    let x = 1.5;
    // 4 (2x)^2 - (2x)^2 + x^2 over n = 4: 3 (2x)^2 + x^2, d/dx = 24 x + 2 x
    let (v, g) = value_with_gradient!(at: x, of: |x| repeated(x, 4));
    assert_eq!(v, repeated(x, 4));
    assert_close(g, 26.0 * x, 1e-12, "reverse");
    let d = first_derivative!(at: x, of: |x| repeated(x, 4));
    assert_close(d, 26.0 * x, 1e-12, "forward");
}

#[differentiable]
fn indices_mapped_and_summed(x: &[f64], w: &[f64]) -> f64 {
    (1..x.len())
        .map(|i| (x[i] - x[i - 1]) * w[i])
        .map(|d| d * d)
        .sum::<f64>()
}

#[differentiable]
fn indices_mapped_without_turbofish(x: &[f64]) -> f64 {
    (0..x.len()).map(|i| x[i] * (i as f64 + 1.0)).sum()
}

#[differentiable]
fn indices_collected(x: &[f64]) -> f64 {
    let v: Vec<f64> = (0..3).map(|i| x[i] * x[2 - i]).collect();
    v[0] + v[1] * v[2]
}

#[differentiable]
fn indices_iterated(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for v in (0..x.len()).rev().map(|i| x[i] * 2.0) {
        s = s * 0.5 + v;
    }
    s
}

#[test]
fn ranges_of_indices_mapped_to_values() {
    let x = vec![0.3, -1.2, 0.7, 2.0];
    let w = vec![1.0, 2.0, 3.0, 4.0];
    let (v, g) = value_with_gradient!(at: &x, of: |x| indices_mapped_and_summed(x, &w));
    assert_eq!(v, indices_mapped_and_summed(&x, &w));
    check_slice_fn(
        "(1..n).map(..).map(..).sum::<f64>()",
        |x| indices_mapped_and_summed(x, &w),
        &x,
        g,
    );
    let g = gradient!(at: &x, of: indices_mapped_without_turbofish);
    assert_vec_close(&g, &[1.0, 2.0, 3.0, 4.0], 1e-12, "(0..n).map(..).sum()");
    let (v, g) = value_with_gradient!(at: &x, of: indices_collected);
    assert_eq!(v, indices_collected(&x));
    check_slice_fn("(0..3).map(..).collect()", indices_collected, &x, g);
    let (v, g) = value_with_gradient!(at: &x, of: indices_iterated);
    assert_eq!(v, indices_iterated(&x));
    check_slice_fn("for v in (0..n).rev().map(..)", indices_iterated, &x, g);
    check_forward!(indices_collected);
    check_forward!(indices_iterated);
}

// ---------------------------------------------------------------------------------------
// Arrays' `.map(f)` and `[a, b].concat()`.

#[differentiable]
fn array_mapped(x: [f64; 3]) -> f64 {
    let squares = x.map(|a| a * a);
    let sines = x.map(f64::sin);
    squares[0] * sines[1] + squares[2]
}

/// Named like the method it calls: `v.concat()` in `fn concat` is not a recursive call.
#[differentiable]
fn concat(x: f64, y: f64) -> f64 {
    let v = [vec![x], vec![y, x * y]].concat();
    v[0] * v[2] + v[1]
}

/// (A `Vec` of pieces, as the point is `Vec<Vec<f64>>::concat`.)
#[allow(clippy::useless_vec)]
#[differentiable]
fn concat_of_vecs(xs: &[f64], ys: &[f64]) -> f64 {
    let pieces = vec![xs.to_vec(), ys.iter().map(|a| a * 2.0).collect()];
    let all = pieces.concat();
    all.iter()
        .enumerate()
        .map(|(i, a)| a * a * (i as f64 + 1.0))
        .sum()
}

/// Pieces that are slices, not `Vec`s: a sub-slice, `as_slice()`, an array by reference.
#[differentiable]
fn concat_of_slices(xs: &[f64], y: f64) -> f64 {
    let v = xs.to_vec();
    let all = [&xs[1..], v.as_slice(), &[y, y * y]].concat();
    all.iter()
        .enumerate()
        .map(|(i, a)| a * (i as f64 + 1.0))
        .sum()
}

#[test]
fn concat_of_slices_and_as_slice() {
    let xs = vec![0.5, -1.0, 2.0];
    let (v, (gx, gy)) = value_with_gradient!(at: (&xs, 1.5), of: concat_of_slices);
    assert_eq!(v, concat_of_slices(&xs, 1.5));
    // all = [x1, x2, x0, x1, x2, y, y^2]: weights 1..=7.
    assert_vec_close(&gx, &[3.0, 1.0 + 4.0, 2.0 + 5.0], 1e-12, "d/dxs");
    assert_close(gy, 6.0 + 7.0 * 2.0 * 1.5, 1e-12, "d/dy");
    let d = first_derivative!(at: 1.5, of: |y| concat_of_slices(&xs, y));
    assert_close(d, gy, 1e-12, "forward");
}

#[test]
fn array_map_and_concat() {
    let x = [0.3, -1.2, 0.7];
    let (v, g) = value_with_gradient!(at: x, of: array_mapped);
    assert_eq!(v, array_mapped(x));
    let want = fd_grad(|p| array_mapped([p[0], p[1], p[2]]), &x);
    assert_vec_close(&g, &want, 1e-6, "array map");
    let df = differential!(at: x, of: array_mapped);
    assert_close(df([0.0, 1.0, 0.0]), want[1], 1e-6, "array map, forward");

    let (v, (dx, dy)) = value_with_gradient!(at: (1.5, -2.0), of: concat);
    assert_eq!(v, 1.5 * (1.5 * -2.0) + -2.0);
    assert_close(dx, 2.0 * 1.5 * -2.0, 1e-12, "d/dx concat");
    assert_close(dy, 1.5 * 1.5 + 1.0, 1e-12, "d/dy concat");
    assert_close(
        first_derivative!(at: 1.5, of: |x| concat(x, -2.0)),
        dx,
        1e-12,
        "concat, forward",
    );

    let (xs, ys) = (vec![0.5, -1.0], vec![2.0, 0.25, 1.0]);
    let (v, (gx, gy)) = value_with_gradient!(at: (&xs, &ys), of: concat_of_vecs);
    assert_eq!(v, concat_of_vecs(&xs, &ys));
    assert_vec_close(
        &gx,
        &fd_grad(|p| concat_of_vecs(p, &ys), &xs),
        1e-6,
        "concat d/dxs",
    );
    assert_vec_close(
        &gy,
        &fd_grad(|p| concat_of_vecs(&xs, p), &ys),
        1e-6,
        "concat d/dys",
    );
}

#[differentiable]
fn extended_from_chains(x: &[f64], y: f64) -> f64 {
    let mut v = vec![y];
    v.extend(x.iter().map(|a| a * y));
    v.extend(x.iter());
    v.extend(&x[1..]);
    v.iter()
        .enumerate()
        .map(|(i, a)| a * (i as f64 + 1.0))
        .sum()
}

#[test]
fn extend_with_chains() {
    let x = vec![0.5, -1.5, 2.0];
    let (v, (gx, gy)) = value_with_gradient!(at: (&x, 0.7), of: extended_from_chains);
    assert_eq!(v, extended_from_chains(&x, 0.7));
    assert_vec_close(
        &gx,
        &fd_grad(|p| extended_from_chains(p, 0.7), &x),
        1e-6,
        "d/dx",
    );
    assert_close(gy, fd(|y| extended_from_chains(&x, y), 0.7), 1e-6, "d/dy");
    let dy = first_derivative!(at: 0.7, of: |y| extended_from_chains(&[0.5, -1.5, 2.0], y));
    assert_close(dy, gy, 1e-12, "forward d/dy");
}

#[differentiable]
fn swapped_elements(x: &[f64]) -> f64 {
    let mut w = x.to_vec();
    w.swap(0, 2);
    let mut pair = [w[1], w[2] * w[2]];
    pair.swap(0, 1);
    w[1] = pair[0] * 3.0;
    w[0] * 2.0 + w[1] + w[2].sin() * pair[1]
}

#[differentiable]
fn swapped_through_mem(x: &[f64]) -> f64 {
    let (mut a, mut b) = (x[0], x[1] * 2.0);
    std::mem::swap(&mut a, &mut b);
    let mut w = x.to_vec();
    std::mem::swap(&mut w[0], &mut a);
    let old = std::mem::replace(&mut w[2], b * b);
    a * 3.0 + b + w[0] * old + w[2]
}

/// `std::mem::take` of a `Vec` and of a float: the old value moves out, the default
/// (an empty `Vec`, `0.0`) stays.
#[differentiable]
fn taken_through_mem(x: &[f64]) -> f64 {
    let mut w = x.to_vec();
    let moved = std::mem::take(&mut w);
    let mut s = moved[0] * moved[1];
    let kept = std::mem::take(&mut s);
    kept * 3.0 + s + w.len() as f64 + moved[2]
}

#[differentiable]
fn largest_after_the_first(x: &[f64]) -> f64 {
    let mut best = x[0];
    for &t in &x[1..] {
        if t > best {
            best = t;
        }
    }
    best * best
}

#[test]
fn swaps_in_both_modes() {
    let x = vec![0.3, -1.2, 0.7];
    let (v, g) = value_with_gradient!(at: &x, of: swapped_elements);
    assert_eq!(v, swapped_elements(&x));
    check_slice_fn("Vec::swap and array swap", swapped_elements, &x, g);
    let (v, g) = value_with_gradient!(at: &x, of: swapped_through_mem);
    assert_eq!(v, swapped_through_mem(&x));
    check_slice_fn("mem::swap and mem::replace", swapped_through_mem, &x, g);
    let (v, g) = value_with_gradient!(at: &x, of: taken_through_mem);
    assert_eq!(v, taken_through_mem(&x));
    assert_eq!(g, vec![3.0 * x[1], 3.0 * x[0], 1.0]);
    check_slice_fn("mem::take", taken_through_mem, &x, g);
    check_forward!(swapped_elements);
    check_forward!(swapped_through_mem);
    check_forward!(taken_through_mem);
}

#[test]
fn loop_over_a_sub_slice() {
    let x = vec![0.3, -1.2, 2.5, 0.7];
    let (v, g) = value_with_gradient!(at: &x, of: largest_after_the_first);
    assert_eq!(v, largest_after_the_first(&x));
    assert_vec_close(&g, &[0.0, 0.0, 5.0, 0.0], 1e-12, "largest after the first");
    check_forward!(largest_after_the_first);
}

#[differentiable]
fn updated_through_iter_mut(x: &[f64]) -> f64 {
    let mut w = x.to_vec();
    for v in w.iter_mut() {
        *v *= 2.0;
        *v = v.sin();
    }
    for (i, v) in w.iter_mut().enumerate() {
        *v += i as f64 * *v;
    }
    w[0] + w[1] * w[2]
}

#[test]
fn iter_mut_loops_in_both_modes() {
    let x = vec![0.3, -1.2, 0.7];
    let (v, g) = value_with_gradient!(at: &x, of: updated_through_iter_mut);
    assert_eq!(v, updated_through_iter_mut(&x));
    // w = [sin 2x0, 2 sin 2x1, 3 sin 2x2]
    let expected = [
        2.0 * (2.0 * x[0]).cos(),
        4.0 * (2.0 * x[1]).cos() * 3.0 * (2.0 * x[2]).sin(),
        2.0 * (2.0 * x[1]).sin() * 6.0 * (2.0 * x[2]).cos(),
    ];
    assert_vec_close(&g, &expected, 1e-12, "iter_mut");
    check_forward!(updated_through_iter_mut);
}

/// A `&mut` slice written through `iter_mut()` zipped with the input, and through
/// `skip`, `rev` and `enumerate` after `iter_mut()`.
#[differentiable]
fn exp_into(out: &mut [f64], xs: &[f64]) {
    for (o, x) in out.iter_mut().zip(xs) {
        *o = x.exp();
    }
    for (k, o) in out.iter_mut().skip(1).rev().enumerate() {
        *o += k as f64 * *o;
    }
}

#[differentiable]
fn sum_of_exps_written_in_place(xs: &[f64]) -> f64 {
    let mut buf = vec![0.0; xs.len()];
    exp_into(&mut buf, xs);
    buf.iter().sum()
}

#[test]
fn iter_mut_through_zip_and_other_adaptors() {
    let x = vec![0.3, -1.2, 0.7, 0.1];
    let (v, g) = value_with_gradient!(at: &x, of: sum_of_exps_written_in_place);
    assert_eq!(v, sum_of_exps_written_in_place(&x));
    // buf = [e^x0, e^x1 (k = 2 → ×3), e^x2 (k = 1 → ×2), e^x3 (k = 0 → ×1)]
    let expected = [x[0].exp(), 3.0 * x[1].exp(), 2.0 * x[2].exp(), x[3].exp()];
    assert_close(v, expected.iter().sum(), 1e-12, "value");
    assert_vec_close(&g, &expected, 1e-12, "iter_mut().zip(..)");
    check_forward!(sum_of_exps_written_in_place);
}

/// The written collection given to `zip` (`xs.iter().zip(ys.iter_mut())`, also
/// `&mut ys` and after `enumerate`), as users write element-wise updates.
#[differentiable]
fn squares_zipped_into(xs: &[f64]) -> f64 {
    let mut ys = vec![0.0; xs.len()];
    for (a, b) in xs.iter().zip(ys.iter_mut()) {
        *b = a * a;
    }
    for (i, (a, b)) in xs.iter().zip(&mut ys).enumerate() {
        *b += a.sin() * i as f64;
    }
    ys.iter().enumerate().map(|(i, y)| y * (i + 1) as f64).sum()
}

#[test]
fn iter_mut_as_the_argument_of_zip() {
    let x = vec![0.3, -1.2, 0.7];
    let (v, g) = value_with_gradient!(at: &x, of: squares_zipped_into);
    assert_eq!(v, squares_zipped_into(&x));
    // Σ (i + 1) (x_i² + i sin x_i)
    let expected: Vec<f64> = (0..3)
        .map(|i| (i + 1) as f64 * (2.0 * x[i] + i as f64 * x[i].cos()))
        .collect();
    assert_vec_close(&g, &expected, 1e-12, "zip(ys.iter_mut())");
    check_forward!(squares_zipped_into);
}

/// Sub-slices written through `iter_mut()` (`xs[1..].iter_mut()`, `&mut xs[..k]`, with
/// `enumerate` and `zip`) and by methods (`out[3..].fill(x)`, `zs[..2].reverse()`), and a
/// collection overwritten by `copy_from_slice`.
#[differentiable]
fn sub_slices_written(xs: &[f64], out: &mut [f64]) {
    let mut ys = xs.to_vec();
    for v in ys[1..].iter_mut() {
        *v *= 3.0;
    }
    let k = 2;
    for (i, v) in ys[..k].iter_mut().enumerate() {
        *v += i as f64 * *v;
    }
    for v in &mut ys[3..] {
        *v *= 2.0;
    }
    for (o, y) in out[1..=2].iter_mut().zip(&ys) {
        *o = o.sin() + y * y;
    }
    let mut zs = vec![0.0; xs.len()];
    zs.copy_from_slice(&ys);
    out[0] = zs.iter().sum();
    // Sub-slices updated by a method: the elements written back.
    out[3..].fill(0.25);
    zs[..2].reverse();
    out[1..3].clone_from_slice(&zs[1..=2]);
}

#[differentiable]
fn sum_of_sub_slices_written(xs: &[f64]) -> f64 {
    let mut out = vec![0.5; xs.len()];
    sub_slices_written(xs, &mut out);
    out.iter()
        .enumerate()
        .map(|(i, o)| o * (i + 1) as f64)
        .sum()
}

#[test]
fn sub_slices_written_through_iter_mut() {
    let x = vec![0.3, -1.2, 0.7, 0.1];
    let (v, g) = value_with_gradient!(at: &x, of: sum_of_sub_slices_written);
    assert_eq!(v, sum_of_sub_slices_written(&x));
    // ys = [x0, 6 x1, 3 x2, 6 x3]; zs = [ys1, ys0, ys2, ys3]; out = [Σ ys, zs1, zs2, .25]
    let ys = [x[0], 6.0 * x[1], 3.0 * x[2], 6.0 * x[3]];
    let factors = [1.0, 6.0, 3.0, 6.0];
    let expected: Vec<f64> = (0..4)
        .map(|i| factors[i] * [3.0, 1.0, 4.0, 1.0][i])
        .collect();
    let value = ys.iter().sum::<f64>() + 2.0 * ys[0] + 3.0 * ys[2] + 4.0 * 0.25;
    assert_close(v, value, 1e-12, "value");
    assert_vec_close(&g, &expected, 1e-12, "sub-slices through iter_mut");
    check_forward!(sum_of_sub_slices_written);
}

/// Rows of a flat matrix written through `chunks_mut(k)` (also enumerated, and
/// `chunks_exact_mut`): elements, `iter_mut()`, `len()` and `fill` of the chunk.
#[differentiable]
fn rows_written(xs: &[f64]) -> f64 {
    let mut m = xs.to_vec();
    for c in m.chunks_mut(2) {
        c[0] *= 3.0;
    }
    for (r, row) in m.chunks_mut(2).enumerate() {
        for v in row.iter_mut() {
            *v += r as f64 * *v;
        }
        let n = row.len() as f64;
        row[row.len() - 1] /= n;
    }
    for c in m.chunks_exact_mut(2) {
        let s = c[0] * c[1];
        c.fill(s);
    }
    // The chunk looped over by name.
    for row in m.chunks_mut(3) {
        for v in row {
            *v *= 2.0;
        }
    }
    m.iter().enumerate().map(|(i, v)| v * (i + 1) as f64).sum()
}

#[test]
fn rows_written_through_chunks_mut() {
    let x = vec![0.5, 3.0, 1.5, 2.0, 0.7];
    let (v, g) = value_with_gradient!(at: &x, of: rows_written);
    assert_eq!(v, rows_written(&x));
    // m = [3 x0, x1 / 2, 6 x2, x3, 9 x4], then pairs replaced by their products:
    // [p0, p0, p1, p1, 9 x4] with p0 = 1.5 x0 x1, p1 = 6 x2 x3, all doubled; weights 1..5.
    let (p0, p1) = (1.5 * x[0] * x[1], 6.0 * x[2] * x[3]);
    assert_close(v, 2.0 * (3.0 * p0 + 7.0 * p1 + 45.0 * x[4]), 1e-12, "value");
    let expected = [
        6.0 * 1.5 * x[1],
        6.0 * 1.5 * x[0],
        14.0 * 6.0 * x[3],
        14.0 * 6.0 * x[2],
        90.0,
    ];
    assert_vec_close(&g, &expected, 1e-12, "chunks_mut");
    check_forward!(rows_written);
}

/// An array overwritten by `fill` and `copy_from_slice`.
#[differentiable]
fn arrays_overwritten(xs: &[f64]) -> f64 {
    let mut a = [1.0; 3];
    a.fill(xs[0] * xs[1]);
    let mut b = [0.0; 2];
    b.copy_from_slice(&xs[1..]);
    a.iter().sum::<f64>() + b[0] * b[1] * a[2]
}

#[test]
fn arrays_overwritten_against_a_formula() {
    let x = vec![0.3, -1.2, 0.7];
    let (v, g) = value_with_gradient!(at: &x, of: arrays_overwritten);
    assert_eq!(v, arrays_overwritten(&x));
    // 3 x0 x1 + x1 x2 x0 x1 = 3 x0 x1 + x0 x1² x2
    let (x0, x1, x2) = (x[0], x[1], x[2]);
    let expected = [
        3.0 * x1 + x1 * x1 * x2,
        3.0 * x0 + 2.0 * x0 * x1 * x2,
        x0 * x1 * x1,
    ];
    assert_vec_close(&g, &expected, 1e-12, "fill and copy_from_slice on arrays");
    check_forward!(arrays_overwritten);
    let h = hessian!(at: &x, of: arrays_overwritten);
    let expected = [
        [0.0, 3.0 + 2.0 * x1 * x2, x1 * x1],
        [3.0 + 2.0 * x1 * x2, 2.0 * x0 * x2, 2.0 * x0 * x1],
        [x1 * x1, 2.0 * x0 * x1, 0.0],
    ];
    for i in 0..3 {
        assert_vec_close(&h[i], &expected[i], 1e-12, "hessian");
    }
}

/// Elements looked up as an `Option` and matched: `if let Some(&v) = xs.get(i)`,
/// `match xs.first() { Some(v) => .., None => .. }`.
#[differentiable]
fn neighbours_matched(xs: &[f64], i: usize) -> f64 {
    let left = if let Some(&v) = xs.get(i.wrapping_sub(1)) {
        v
    } else {
        0.0
    };
    let right = match xs.get(i + 1) {
        Some(v) => *v * 2.0,
        None => 0.0,
    };
    let first = match xs.first() {
        Some(v) => v * v,
        _ => 1.0,
    };
    left * right + first
}

#[test]
fn elements_looked_up_and_matched() {
    let x = vec![0.3, -1.2, 0.7, 0.1];
    for i in 0..4 {
        let (v, g) = value_with_gradient!(at: &x, of: |xs: &[f64]| neighbours_matched(xs, i));
        assert_eq!(v, neighbours_matched(&x, i));
        assert_vec_close(
            &g,
            &fd_grad(|xs| neighbours_matched(xs, i), &x),
            1e-6,
            "get(i)",
        );
    }
    let (v, g) = value_with_gradient!(at: &Vec::new(), of: |xs: &[f64]| neighbours_matched(xs, 0));
    assert_eq!((v, g), (1.0, vec![]));
}

/// Two `enumerate`s in one chain, each numbering what reaches it.
#[differentiable]
fn enumerated_twice(xs: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, (j, x)) in xs.iter().skip(1).enumerate().enumerate() {
        s += (i + 2 * j) as f64 * x;
    }
    s + xs
        .iter()
        .enumerate()
        .rev()
        .enumerate()
        .map(|(k, (j, x))| (k * j) as f64 * x * x)
        .sum::<f64>()
}

#[test]
fn chains_enumerated_twice() {
    let x = vec![0.3, -1.2, 0.7, 0.1];
    let (v, g) = value_with_gradient!(at: &x, of: enumerated_twice);
    assert_eq!(v, enumerated_twice(&x));
    // Items x[1..] numbered 0, 1, 2 twice: 3 j x[j + 1]; reversed: k = 3 - j.
    let expected: Vec<f64> = (0..4)
        .map(|j| {
            let first = if j > 0 { 3.0 * (j - 1) as f64 } else { 0.0 };
            first + 2.0 * ((3 - j) * j) as f64 * x[j]
        })
        .collect();
    assert_vec_close(&g, &expected, 1e-12, "enumerate().enumerate()");
    check_forward!(enumerated_twice);
}

/// An array mapped (eagerly, `[T; N]::map`) into a variable, then iterated.
#[differentiable]
fn norm_of_mapped_array(x: [f64; 3]) -> f64 {
    let squares = x.map(|v| v * v);
    squares.iter().sum::<f64>().sqrt()
}

#[test]
fn an_array_mapped_into_a_variable_then_iterated() {
    let x = [1.0, 2.0, 2.0];
    let (v, g) = value_with_gradient!(at: x, of: norm_of_mapped_array);
    assert_close(v, 3.0, 1e-12, "value");
    assert_vec_close(&g, &[1.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0], 1e-12, "gradient");
    let d = first_derivative!(at: 2.0, of: |t: f64| norm_of_mapped_array([1.0, t, 2.0]));
    assert_close(d, 2.0 / 3.0, 1e-12, "forward");
}

/// Collections bound by one `let` of a tuple: each is its own variable (no tuple moves
/// them away), and a swap of the names reads the values from before it.
#[differentiable]
fn two_buffers(x: &[f64]) -> f64 {
    let (mut a, mut b) = (Vec::new(), vec![0.0; x.len()]);
    for i in 0..x.len() {
        a.push(x[i] * 2.0);
        b[i] = x[i] * x[i];
    }
    let (s, t) = (a.iter().sum::<f64>(), b.iter().sum::<f64>());
    let (s, t) = (t, s * 3.0);
    s + t
}

#[test]
fn collections_bound_by_a_tuple_let() {
    let x = vec![0.5, 1.5, -1.0];
    let (v, g) = value_with_gradient!(at: &x, of: two_buffers);
    assert_eq!(v, two_buffers(&x));
    // Σ x² + 6 Σ x
    assert_close(v, 0.25 + 2.25 + 1.0 + 6.0, 1e-12, "value");
    let expected: Vec<f64> = x.iter().map(|xi| 2.0 * xi + 6.0).collect();
    assert_vec_close(&g, &expected, 1e-12, "gradient");
    check_forward!(two_buffers);
}

/// Sorting a collection of values that carry a derivative: each sorted element's
/// derivative goes back to where it came from.
#[differentiable]
fn trimmed_weighted(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let mut w = x.to_vec();
    w.sort_unstable_by(|a, b| b.total_cmp(a));
    let mut u = x.iter().map(|t| t * t).collect::<Vec<f64>>();
    u.sort_by(f64::total_cmp);
    let mut s = 0.0;
    for k in 1..v.len() - 1 {
        s += (k as f64) * v[k] + w[k] * w[k];
    }
    s + u[0]
}

#[test]
fn sorted_collections() {
    let x = vec![0.3, -1.2, 2.0, 0.7, 1.1];
    let (v, g) = value_with_gradient!(at: &x, of: trimmed_weighted);
    assert_eq!(v, trimmed_weighted(&x));
    assert_vec_close(&g, &fd_grad(trimmed_weighted, &x), 1e-6, "sort_by");
    check_forward!(trimmed_weighted);
    // Sorted ascending: -1.2, 0.3, 0.7, 1.1, 2.0; descending: 2.0, 1.1, 0.7, 0.3, -1.2;
    // squares' least: 0.09 (of 0.3).
    let expected = [
        0.6 + 1.0 + 2.0 * 0.3,
        0.0,
        0.0,
        2.0 + 2.0 * 0.7,
        3.0 + 2.0 * 1.1,
    ];
    assert_vec_close(&g, &expected, 1e-12, "by hand");
    let h = hessian!(at: &x, of: trimmed_weighted);
    assert_close(h[0][0], 4.0, 1e-12, "d²/dx0²");
    assert_close(h[4][4], 2.0, 1e-12, "d²/dx4²");
}

/// `rows.iter().flatten()`: the rows (`Vec`s or arrays) concatenated, then iterated.
#[differentiable]
fn flattened_rows(m: &[Vec<f64>], p: &[[f64; 2]]) -> f64 {
    let a: f64 = m.iter().flatten().map(|v| v * v).sum();
    let mut b = 0.0;
    for (k, v) in m.iter().flatten().enumerate() {
        if k > 2 {
            break;
        }
        b += v * (k as f64 + 1.0);
    }
    let c = m.iter().flatten().copied().fold(0.0, f64::max);
    a + b + c + p.iter().flatten().map(|v| v.exp()).sum::<f64>()
}

#[test]
fn flattened_rows_of_vecs_and_arrays() {
    let m = vec![vec![1.0, 2.0], vec![3.0], vec![0.5, -1.0]];
    let p = vec![[0.0, 1.0], [0.5, -0.5]];
    let (v, (gm, gp)) = value_with_gradient!(at: (&m, &p), of: flattened_rows);
    assert_eq!(v, flattened_rows(&m, &p));
    assert_eq!(gm, vec![vec![3.0, 6.0], vec![10.0], vec![1.0, -2.0]]);
    let want: Vec<[f64; 2]> = p.iter().map(|r| [r[0].exp(), r[1].exp()]).collect();
    assert_eq!(gp, want);
}

/// `rows.iter().flat_map(|r| r.iter())` and `.flat_map(|r| r)`: the same as `flatten()`.
#[allow(clippy::flat_map_identity)]
#[differentiable]
fn flat_mapped_rows(m: &[Vec<f64>]) -> f64 {
    let a: f64 = m.iter().flat_map(|r| r.iter()).map(|v| v * v).sum();
    let mut b = 0.0;
    for v in m.iter().flat_map(|r| r) {
        b += v.powi(3);
    }
    a + b
}

#[test]
fn flat_mapped_rows_as_flattened() {
    let m = vec![vec![1.0, 2.0], vec![3.0], vec![0.5, -1.0]];
    let (v, g) = value_with_gradient!(at: &m, of: flat_mapped_rows);
    assert_eq!(v, flat_mapped_rows(&m));
    let want: Vec<Vec<f64>> = m
        .iter()
        .map(|r| r.iter().map(|v| 2.0 * v + 3.0 * v * v).collect())
        .collect();
    assert_eq!(g, want);
}

#[differentiable]
fn reversed_and_swapped(x: Vec<f64>) -> f64 {
    let mut v = x;
    v.reverse();
    v.swap(0, 1);
    let mut a = [v[0], v[1], v[2]];
    a.reverse();
    v[0] * 1.0 + v[1] * 2.0 + v[2] * v[2] * 3.0 + a[0] * 5.0
}

#[differentiable]
fn array_of_a_repeated_value(x: f64, y: f64) -> f64 {
    let v = [x * y; 4];
    let w = [-1.5; 2];
    v.iter()
        .enumerate()
        .map(|(i, a)| a * (i as f64 + 1.0))
        .sum::<f64>()
        + w[1] * x
}

#[test]
fn reverse_and_array_repeat_in_both_modes() {
    let at = [0.3, -1.2, 0.8, 2.0];
    let f = |p: &[f64]| reversed_and_swapped(p.to_vec());
    let (v, g) = value_with_gradient!(at: at.to_vec(), of: reversed_and_swapped);
    assert_eq!(v, f(&at));
    assert_vec_close(&g, &fd_grad(f, &at), 1e-6, "reverse, swap");
    let (_, df) = value_with_differential!(at: at.to_vec(), of: reversed_and_swapped);
    assert_close(
        df(vec![0.0, 1.0, 0.0, 0.5]),
        g[1] + 0.5 * g[3],
        1e-12,
        "reverse, forward",
    );
    let h = hessian!(at: at.to_vec(), of: reversed_and_swapped);
    assert_close(h[1][1], 6.0, 1e-12, "reverse, second order");

    let (v, (gx, gy)) = value_with_gradient!(at: (0.7, 1.3), of: array_of_a_repeated_value);
    assert_eq!(v, array_of_a_repeated_value(0.7, 1.3));
    assert_close(gx, 10.0 * 1.3 - 1.5, 1e-12, "[x * y; 4], x");
    assert_close(gy, 10.0 * 0.7, 1e-12, "[x * y; 4], y");
    assert_close(
        first_derivative!(at: 0.7, of: |x: f64| array_of_a_repeated_value(x, 1.3)),
        gx,
        1e-12,
        "[x; N], forward",
    );
    assert_close(
        second_derivative!(at: 0.7, of: |x: f64| array_of_a_repeated_value(x, x)),
        20.0,
        1e-12,
        "[x; N], second order",
    );
}

#[differentiable]
fn squares(x: &[f64]) -> Vec<f64> {
    x.iter().map(|a| a * a).collect()
}

#[differentiable]
fn chains_over_call_results(x: &[f64]) -> f64 {
    let mut s = squares(x).iter().sum::<f64>();
    for (i, v) in squares(x).iter().enumerate() {
        s += v * i as f64;
    }
    s + x.to_vec().iter().map(|a| a.sin()).sum::<f64>()
        + squares(x).into_iter().fold(0.0, |a, b| a * 0.5 + b)
}

#[test]
fn iterator_chains_over_the_result_of_a_call() {
    let at = [0.3, -1.2, 0.8];
    let (v, g) = value_with_gradient!(at: &at, of: chains_over_call_results);
    assert_eq!(v, chains_over_call_results(&at));
    assert_vec_close(&g, &fd_grad(chains_over_call_results, &at), 1e-6, "reverse");
    let (_, df) = value_with_differential!(at: &at, of: chains_over_call_results);
    assert_close(df(vec![1.0, 0.0, 0.0]), g[0], 1e-12, "forward");
    let h = hessian!(at: &at, of: chains_over_call_results);
    let column = fd_grad(
        |p: &[f64]| gradient!(at: p, of: chains_over_call_results)[2],
        &at,
    );
    assert_vec_close(&h[2], &column, 1e-5, "second order");
}

#[differentiable]
fn built_by_from_fn(x: &[f64], k: f64) -> f64 {
    let v: [f64; 4] = std::array::from_fn(|i| x[i] * x[(i + 1) % 4] * k);
    v.iter().map(|a| a * a).sum()
}

#[test]
fn arrays_built_by_from_fn() {
    let x = [1.0, 2.0, 3.0, 4.0];
    let (v, (gx, gk)) = value_with_gradient!(at: (&x, 0.5), of: built_by_from_fn);
    assert_eq!(v, built_by_from_fn(&x, 0.5));
    assert_vec_close(
        &gx,
        &fd_grad(|p: &[f64]| built_by_from_fn(p, 0.5), &x),
        1e-6,
        "x",
    );
    assert_close(gk, 200.0, 1e-12, "k");
    assert_close(
        first_derivative!(at: 0.5, of: |k: f64| built_by_from_fn(&x, k)),
        200.0,
        1e-12,
        "forward",
    );
    let h = hessian!(at: &[1.0, 2.0, 3.0, 4.0], of: |p: &[f64]| built_by_from_fn(p, 0.5));
    assert_vec_close(&h[0], &[10.0, 2.0, 0.0, 4.0], 1e-12, "second order");
}

/// `v.retain(p)` on a local `Vec` of active values: the kept elements carry their
/// derivatives, the dropped ones none.
#[differentiable]
fn kept_positive(xs: &[f64], w: f64) -> f64 {
    let mut v: Vec<f64> = xs.iter().map(|x| x * w).collect();
    v.retain(|x| *x > 0.0);
    v.iter().map(|x| x * x).sum::<f64>() + v.len() as f64
}

#[test]
fn retain_on_a_local_vec() {
    let xs = [1.0, -2.0, 3.0, -0.5];
    let (v, (gx, gw)) = value_with_gradient!(at: (&xs[..], 2.0), of: kept_positive);
    assert_eq!(v, kept_positive(&xs, 2.0));
    // (2 x)^2 over the kept x = 1, 3.
    assert_vec_close(&gx, &[8.0, 0.0, 24.0, 0.0], 1e-12, "d/dxs");
    assert_close(gw, 2.0 * (1.0 + 9.0) * 2.0, 1e-12, "d/dw");
    let d = first_derivative!(at: 2.0, of: |w: f64| kept_positive(&xs, w));
    assert_close(d, gw, 1e-12, "forward");
    let h = second_derivative!(at: 2.0, of: |w: f64| kept_positive(&xs, w));
    assert_close(h, 20.0, 1e-12, "second");
}

/// The other `Vec` methods that move active values around or take them out: `remove`,
/// `swap_remove`, `split_off` (whose results carry the derivatives of what they took),
/// `rotate_left` and `rotate_right` (also on arrays), `resize` and `fill` with an active
/// value (whose derivative is the sum of its copies'), `clear`, and `drain(range)`
/// collected or looped over.
#[differentiable]
fn moved_around(x: Vec<f64>, k: f64) -> f64 {
    let mut v = x.clone();
    v.rotate_left(1);
    let r = v.remove(1);
    let s = v.swap_remove(0);
    v.resize(5, k * k);
    let mut tail = v.split_off(3);
    tail.rotate_right(1);
    let mut a = [x[0], x[1], k];
    a.rotate_right(2);
    let mut w = vec![0.0; 3];
    w.fill(x[2] * k);
    let mut used = w.clone();
    used.clear();
    used.push(w[1]);
    let mut t = 0.0;
    for (i, e) in v.iter().chain(tail.iter()).enumerate() {
        t += (i as f64 + 1.0) * e * e;
    }
    let mut q = vec![x[0], x[1] * k, x[2], x[3] * x[3]];
    let front: Vec<f64> = q.drain(..2).collect();
    let mut last = 0.0;
    for e in q.drain(1..=1) {
        last += e * k;
    }
    t + r * 3.0
        + s.sin()
        + a[0] * a[1]
        + 2.0 * a[2]
        + w.iter().sum::<f64>() * used[0]
        + front[0] * front[1]
        + last
        + q[0]
}

#[test]
fn vec_methods_that_take_out_and_rotate() {
    let x = vec![0.3, -1.1, 0.8, 1.7];
    let k = 0.6;
    let f = |p: &[f64]| moved_around(p[..4].to_vec(), p[4]);
    let p = [x[0], x[1], x[2], x[3], k];
    let (v, (gx, gk)) = value_with_gradient!(at: (x.clone(), k), of: moved_around);
    assert_eq!(v, moved_around(x.clone(), k));
    let g: Vec<f64> = gx.iter().copied().chain([gk]).collect();
    assert_vec_close(&g, &fd_grad(f, &p), 1e-6, "reverse");
    let (fv, slope) = value_with_differential!(at: (x.clone(), k), of: moved_around);
    assert_eq!(fv, v);
    let dir = [1.0, -0.5, 2.0, 0.25, -1.5];
    let along = slope((dir[..4].to_vec(), dir[4]));
    let want: f64 = g.iter().zip(dir).map(|(g, d)| g * d).sum();
    assert_close(along, want, 1e-12, "forward");
    let h = hessian!(at: p.to_vec(), of: |q: Vec<f64>| moved_around(q[..4].to_vec(), q[4]));
    for (i, row) in h.iter().enumerate() {
        let gi = |q: &[f64]| {
            let (_, (gx, gk)) = value_with_gradient!(at: (q[..4].to_vec(), q[4]), of: moved_around);
            gx.iter().copied().chain([gk]).nth(i).unwrap()
        };
        assert_vec_close(row, &fd_grad(gi, &p), 1e-5, &format!("hessian row {i}"));
    }
}

/// `collect()` typed by its `let` (`Vec<usize>` of indices, kept as written; `Vec<f64>`
/// of active values).
#[differentiable]
fn collected_with_the_type_on_the_let(xs: &[f64]) -> f64 {
    let idx: Vec<usize> = (0..xs.len()).rev().collect();
    let squares: Vec<f64> = xs.iter().map(|v| v * v).collect();
    xs[idx[0]] * 2.0 + squares[idx[1]]
}

#[test]
fn collections_typed_by_their_let() {
    let x = vec![1.0, 2.0, 3.0];
    let (v, g) = value_with_gradient!(at: &x, of: collected_with_the_type_on_the_let);
    assert_eq!(v, collected_with_the_type_on_the_let(&x));
    // 2 x2 + x1².
    assert_eq!(v, 2.0 * x[2] + x[1] * x[1]);
    assert_eq!(g, vec![0.0, 2.0 * x[1], 2.0]);
}

/// `vec![]` with the element type on the `let`, filled by `push` (Swift's array tests).
#[differentiable]
fn squares_pushed_into_typed_vec_macro(array: Vec<f64>) -> Vec<f64> {
    let mut results: Vec<f64> = vec![];
    for i in 0..array.len() {
        results.push(array[i] * array[i]);
    }
    results
}

/// `vec![]` with no type anywhere but the pushes.
#[differentiable]
fn doubled_pushed_into_untyped_vec_macro(array: Vec<f64>) -> f64 {
    let mut results = vec![];
    for x in array.iter() {
        results.push(x * 2.0 + x.sin());
    }
    let mut s = 0.0;
    for r in results {
        s += r * r;
    }
    s
}

#[test]
fn empty_vec_macro_filled_by_push() {
    let x = vec![0.5, -1.25, 2.0];
    let (v, pb) = value_with_pullback!(at: x.clone(), of: squares_pushed_into_typed_vec_macro);
    assert_eq!(v, squares_pushed_into_typed_vec_macro(x.clone()));
    let seed = vec![1.0, -2.0, 0.5];
    let want: Vec<f64> = (0..3).map(|i| 2.0 * x[i] * seed[i]).collect();
    assert_vec_close(&pb(seed.clone()), &want, 1e-12, "typed vec![] pullback");
    let j = jacobian!(at: x.clone(), of: squares_pushed_into_typed_vec_macro);
    for i in 0..3 {
        for k in 0..3 {
            let want = if i == k { 2.0 * x[i] } else { 0.0 };
            assert_close(j[i][k], want, 1e-12, "typed vec![] jacobian");
        }
    }
    let f = |p: &[f64]| doubled_pushed_into_untyped_vec_macro(p.to_vec());
    let (v, g) = value_with_gradient!(at: x.clone(), of: doubled_pushed_into_untyped_vec_macro);
    assert_eq!(v, f(&x));
    assert_vec_close(&g, &fd_grad(f, &x), 1e-6, "untyped vec![] gradient");
    let (_, df) =
        value_with_differential!(at: x.clone(), of: doubled_pushed_into_untyped_vec_macro);
    let dir = vec![0.3, -0.1, 0.7];
    let dot: f64 = (0..3).map(|i| g[i] * dir[i]).sum();
    assert_close(df(dir), dot, 1e-12, "untyped vec![] differential");
    // d²/dx² of (2x + sin x)²: 2 (2 + cos x)² - 2 (2x + sin x) sin x.
    let h = hessian!(at: x.clone(), of: doubled_pushed_into_untyped_vec_macro);
    for i in 0..3 {
        let (a, r) = (x[i], 2.0 * x[i] + x[i].sin());
        let want = 2.0 * (2.0 + a.cos()).powi(2) - 2.0 * r * a.sin();
        assert_close(h[i][i], want, 1e-10, "untyped vec![] hessian");
    }
}

/// Type aliases, where the macro reads how a type is written: a `let` collecting into
/// `Matrix`, parameters of type `Vec3` and `&Matrix`, in both orders.
/// `.to_vec()` of arrays however they were made: written by
/// element in a loop from `[0.0; N]`, repeated (`[x; N]`), a literal, and a parameter
/// taken by reference (Enzyme's brusselator: `let mut du = [0.0; N]; ..; du.to_vec()`).
#[differentiable]
fn arrays_to_vecs(u: [f64; 2], r: &[f64; 2]) -> f64 {
    let mut a = [0.0; 2];
    for k in 0..2 {
        a[k] = 2.0 * u[k] * r[k];
    }
    let v = a.to_vec();
    let b = [u[1]; 3];
    let w = b.to_vec();
    let c = [u[0], w[1]];
    let z = c.to_vec();
    let e = [r[0], a[1]];
    let e = e.to_vec();
    let q = r.to_vec();
    v[0] * v[1] + w[0] * w[2] * u[0] + z[0] * z[1] + e[0] * e[1] + q[1] * u[0]
}

fn arrays_to_vecs_plain(x: &[f64]) -> f64 {
    let (u, r) = ([x[0], x[1]], [x[2], x[3]]);
    let a = [2.0 * u[0] * r[0], 2.0 * u[1] * r[1]];
    a[0] * a[1] + u[1] * u[1] * u[0] + u[0] * u[1] + r[0] * a[1] + r[1] * u[0]
}

#[test]
fn arrays_made_every_way_to_vecs() {
    let (u, r) = ([1.5, -0.75], [0.5, 2.0]);
    let x = [u[0], u[1], r[0], r[1]];
    let (v, (gu, gr)) = value_with_gradient!(at: (u, &r), of: arrays_to_vecs);
    assert_close(v, arrays_to_vecs_plain(&x), 1e-12, "value");
    let expected = fd_grad(arrays_to_vecs_plain, &x);
    let got = [gu[0], gu[1], gr[0], gr[1]];
    assert_vec_close(&got, &expected, 1e-8, "reverse against differences");
    for k in 0..4 {
        let mut e = [0.0; 4];
        e[k] = 1.0;
        let (v, df) = value_with_differential!(at: (u, &r), of: arrays_to_vecs);
        assert_close(v, arrays_to_vecs_plain(&x), 1e-12, "forward value");
        let d = df(([e[0], e[1]], [e[2], e[3]]));
        assert_close(d, got[k], 1e-12, "forward against reverse");
    }
    let h = hessian!(at: u, of: |p: [f64; 2]| arrays_to_vecs(p, &[0.5, 2.0]));
    for i in 0..2 {
        for j in 0..2 {
            let dg = fd(
                |t| {
                    let mut p = x;
                    p[j] += t;
                    fd_grad(arrays_to_vecs_plain, &p)[i]
                },
                0.0,
            );
            assert_close(h[i][j], dg, 1e-5, "hessian against differences");
        }
    }
}

mod type_aliases {
    use diff::prelude::*;

    type Matrix = Vec<Vec<f64>>;
    pub type Vec3 = [f64; 3];

    #[differentiable]
    fn scale(x: &[f64], w: f64) -> Vec<f64> {
        x.iter().map(|v| v * w).collect()
    }

    #[differentiable]
    #[allow(clippy::ptr_arg)] // `&Matrix` as a user writes it
    fn squares(xs: &Matrix, w: f64) -> f64 {
        let rows: Matrix = xs.iter().map(|x| scale(x, w)).collect();
        rows.iter()
            .map(|r| r.iter().map(|v| v * v).sum::<f64>())
            .sum()
    }

    #[differentiable]
    fn dot3(a: Vec3, b: Vec3) -> f64 {
        a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
    }

    #[test]
    fn aliases_read_as_their_types() {
        let xs = vec![vec![1.0, 2.0]];
        // sum (w x)^2: d/dx = 2 w^2 x, d/dw = 2 w |x|^2.
        let (v, (gx, gw)) = value_with_gradient!(at: (&xs, 3.0), of: squares);
        assert_eq!(v, squares(&xs, 3.0));
        assert_eq!((gx, gw), (vec![vec![18.0, 36.0]], 30.0));
        let d = [1.0, 2.0, 3.0];
        let g = gradient!(at: 2.0, of: |x: f64| dot3([x, 1.0, 0.0], [x, d[1], d[2]]));
        assert_eq!(g, 4.0);
        let g = first_derivative!(at: 2.0, of: |x: f64| dot3([x, 1.0, 0.0], [x, d[1], d[2]]));
        assert_eq!(g, 4.0);
        let h = second_derivative!(at: 2.0, of: |x: f64| dot3([x, 1.0, 0.0], [x, d[1], d[2]]));
        assert_eq!(h, 2.0);
        let (ga, gb) = gradient!(at: ([1.0, 2.0, 3.0], [4.0, 5.0, 6.0]), of: dot3);
        assert_eq!((ga, gb), ([4.0, 5.0, 6.0], [1.0, 2.0, 3.0]));
    }
}
