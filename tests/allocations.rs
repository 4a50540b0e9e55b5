//! Allocation counts of generated code (docs/ARCHITECTURE.md): a loop-free function
//! with branches allocates nothing, and a loop allocates a bounded number of times,
//! independent of its trip count (one tape, capacity reserved when the trip count is known).
//!
//! A counting global allocator counts, per thread, the allocations made while a closure
//! runs, so tests in this binary may run in parallel.

// The bodies deliberately use both `a = a * b` and `a *= b`: the macro lowers them apart.
#![allow(clippy::assign_op_pattern)]

use diff::prelude::*;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::hint::black_box;

struct Counting;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static COUNT: Cell<usize> = const { Cell::new(0) };
    static BYTES: Cell<usize> = const { Cell::new(0) };
}

fn note(bytes: usize) {
    // `try_with`: the allocator may run while this thread's locals are being destroyed.
    if COUNTING.try_with(Cell::get).unwrap_or(false) {
        let _ = COUNT.try_with(|c| c.set(c.get() + 1));
        let _ = BYTES.try_with(|c| c.set(c.get() + bytes));
    }
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Runs `f` and returns its result with the number of allocations (and reallocations) it
/// made on this thread.
fn count<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let (r, n, _) = count_bytes(f);
    (r, n)
}

/// [`count`], with the bytes those allocations asked for.
fn count_bytes<R>(f: impl FnOnce() -> R) -> (R, usize, usize) {
    COUNT.with(|c| c.set(0));
    BYTES.with(|c| c.set(0));
    COUNTING.with(|c| c.set(true));
    let r = f();
    COUNTING.with(|c| c.set(false));
    (r, COUNT.with(Cell::get), BYTES.with(Cell::get))
}

#[test]
fn the_counter_counts() {
    let (v, n) = count(|| black_box(vec![1.0f64; 4]));
    assert_eq!(v.len(), 4);
    assert_eq!(n, 1);
    let (_, n) = count(|| black_box(1.0f64 + 2.0));
    assert_eq!(n, 0);
}

#[differentiable]
fn branchy(x: f64, y: f64, k: i32) -> f64 {
    if x < -3.0 {
        return x * y;
    }
    let z = if x > y {
        x * y
    } else if x > 0.0 && y > 1.0 {
        x.sin() + y
    } else {
        x - y * y
    };
    let w = match k {
        0 => z * z,
        1 | 2 => z.exp(),
        _ => z,
    };
    let mut out = w;
    if w > 0.5 {
        out = w.ln() * x;
    }
    out
}

#[test]
fn loop_free_function_with_branches_allocates_nothing() {
    let points = [(-4.0, 2.0), (2.0, 1.0), (0.5, 1.5), (-0.5, 0.3), (0.2, 3.0)];
    for (x, y) in points {
        for k in [0, 1, 5] {
            let ((v, (gx, gy)), n) = count(|| {
                let (v, pb) =
                    value_with_pullback!(at: (black_box(x), black_box(y), k), of: branchy);
                (v, pb(1.0))
            });
            assert_eq!(
                n, 0,
                "value_with_pullback! + pullback at ({x}, {y}, {k}) allocated {n} times"
            );
            assert_eq!(v, branchy(x, y, k));
            assert!(gx.is_finite() && gy.is_finite());

            let (_, n) = count(|| gradient!(at: (black_box(x), black_box(y), k), of: branchy));
            assert_eq!(n, 0, "gradient! at ({x}, {y}, {k}) allocated {n} times");
            let (d, n) = count(|| {
                let (_, df) =
                    value_with_differential!(at: (black_box(x), black_box(y), k), of: branchy);
                df((1.0, 0.0))
            });
            assert_eq!(
                n, 0,
                "value_with_differential! at ({x}, {y}, {k}) allocated {n} times"
            );
            assert!((d - gx).abs() <= 1e-12 * (1.0 + gx.abs()));
        }
    }
}

#[differentiable]
fn looped(x: f64, n: usize) -> f64 {
    let mut acc = x;
    for i in 0..n {
        if acc > 1.0 {
            acc = acc * 0.5 + (x * (i as f64)).sin();
        } else {
            acc = acc + x * x;
        }
    }
    acc
}

#[differentiable]
fn looped_slice(xs: &[f64]) -> f64 {
    let mut s = 0.0;
    for v in xs.iter() {
        s += v * v;
    }
    s
}

#[differentiable]
fn looped_while(x: f64, n: usize) -> f64 {
    let mut acc = x;
    let mut i = 0;
    while i < n {
        acc = acc.sin() + x;
        i += 1;
    }
    acc
}

fn pullback_allocations(x: f64, n: usize) -> usize {
    let ((v, g), count) = count(|| {
        let (v, pb) = value_with_pullback!(at: (black_box(x), black_box(n)), of: looped);
        (v, pb(1.0))
    });
    assert_eq!(v, looped(x, n));
    assert!(g.is_finite());
    count
}

#[test]
fn a_for_loop_allocates_independently_of_its_trip_count() {
    for x in [0.3, 1.7] {
        let small = pullback_allocations(x, 10);
        let large = pullback_allocations(x, 10_000);
        assert_eq!(
            small, large,
            "x = {x}: {small} allocations for n = 10, {large} for n = 10_000"
        );
        // One allocation: the tape.
        assert_eq!(small, 1, "x = {x}: {small} allocations for n = 10");
        let (_, one) = count(|| gradient!(at: (black_box(x), 1usize), of: looped));
        assert!(one <= small, "n = 1: {one}");
    }
    let (_, small) = count(|| {
        let (_, df) = value_with_differential!(at: (0.3, 10usize), of: looped);
        df(1.0)
    });
    let (_, large) = count(|| {
        let (_, df) = value_with_differential!(at: (0.3, 10_000usize), of: looped);
        df(1.0)
    });
    assert_eq!(
        small, large,
        "forward mode: {small} allocations for n = 10, {large} for n = 10_000"
    );
}

#[test]
fn a_loop_over_a_slice_allocates_independently_of_its_length() {
    let short: Vec<f64> = (0..10).map(|i| i as f64 * 0.1).collect();
    let long: Vec<f64> = (0..10_000).map(|i| i as f64 * 1e-4).collect();
    let (g, small) = count(|| gradient!(at: &short[..], of: looped_slice));
    assert_eq!(g.len(), 10);
    assert_eq!(g[3], 2.0 * short[3]);
    assert_eq!(
        value_with_gradient!(at: &short[..], of: looped_slice).0,
        looped_slice(&short)
    );
    let (g, large) = count(|| gradient!(at: &long[..], of: looped_slice));
    assert_eq!(g.len(), 10_000);
    assert_eq!(
        small, large,
        "{small} allocations for 10 elements, {large} for 10_000"
    );
}

#[test]
fn a_while_loop_allocates_at_most_logarithmically() {
    // The trip count of a `while` is unknown up front, so its tape grows by doubling.
    let (g, small) = count(|| gradient!(at: (0.3, 10usize), of: looped_while));
    let (v, d) = value_with_derivative!(at: 0.3, of: |x| looped_while(x, 10));
    assert_eq!(v, looped_while(0.3, 10));
    assert!((d - g).abs() < 1e-12);
    let (_, large) = count(|| gradient!(at: (0.3, 10_000usize), of: looped_while));
    assert!(small <= 8, "{small} allocations for n = 10");
    assert!(
        large <= small + 12,
        "{large} allocations for n = 10_000 vs {small} for n = 10"
    );
}

/// Writes into a local vector in a loop (`out[i] = ..`, `acc[i] += ..`): the vector is
/// updated in place, not copied at each write.
#[differentiable]
fn written_in_a_loop(xs: &[f64]) -> f64 {
    let n = xs.len();
    let mut out = vec![0.0; n];
    let mut acc = vec![0.0; n];
    for i in 0..n {
        out[i] = xs[i] * xs[i];
        acc[i] += out[i].sin();
    }
    let mut s = 0.0;
    for i in 0..n {
        s += out[i] * acc[i];
    }
    s
}

#[test]
fn element_writes_in_a_loop_copy_nothing() {
    let short: Vec<f64> = (0..10).map(|i| i as f64 * 0.1).collect();
    let long: Vec<f64> = (0..10_000).map(|i| i as f64 * 1e-4).collect();
    let (g, small) = count(|| gradient!(at: &short[..], of: written_in_a_loop));
    let (v, g2) = value_with_gradient!(at: &short[..], of: written_in_a_loop);
    assert_eq!(v, written_in_a_loop(&short));
    assert_eq!(g2, g);
    // d/dx (x^2 sin(x^2)) = 2x sin(x^2) + 2x^3 cos(x^2).
    for (i, x) in short.iter().enumerate() {
        let want = 2.0 * x * (x * x).sin() + 2.0 * x * x * x * (x * x).cos();
        assert!((g[i] - want).abs() < 1e-12, "[{i}] {} vs {want}", g[i]);
    }
    let d = first_derivative!(at: 0.7, of: |t| written_in_a_loop(&[0.2, t, 1.1]));
    let want = 1.4 * 0.49f64.sin() + 2.0 * 0.343 * 0.49f64.cos();
    assert!((d - want).abs() < 1e-12, "forward {d} vs {want}");
    let (_, large) = count(|| gradient!(at: &long[..], of: written_in_a_loop));
    assert_eq!(
        small, large,
        "{small} allocations for 10 elements, {large} for 10_000"
    );
}

/// A loop nested in another: every run of the inner loop pushes its iterations on one
/// stack per call, so the allocations grow with the total iterations by chunks, not
/// with the number of runs.
#[differentiable]
fn nested(x: f64, rows: usize, cols: usize) -> f64 {
    let mut acc = 0.0;
    for i in 0..rows {
        let mut row = x * i as f64;
        for j in 0..cols {
            row = (row * 0.5 + x * j as f64).sin();
        }
        acc += row;
    }
    acc
}

#[test]
fn the_runs_of_a_nested_loop_share_one_stack() {
    let runs = |rows: usize, cols: usize| {
        let ((v, g), n) = count(|| {
            let (v, pb) = value_with_pullback!(
                at: (black_box(0.3), black_box(rows), black_box(cols)),
                of: nested
            );
            (v, pb(1.0))
        });
        assert_eq!(v, nested(0.3, rows, cols));
        let h = 1e-6;
        let fd = (nested(0.3 + h, rows, cols) - nested(0.3 - h, rows, cols)) / (2.0 * h);
        assert!((g - fd).abs() <= 1e-6 * (1.0 + fd.abs()), "{g} vs {fd}");
        n
    };
    // 1000 runs of 3 iterations: a tape for the outer loop and a few chunks of the
    // stack (their sizes doubling), not a thousand tapes.
    let many_runs = runs(1000, 3);
    assert!(
        many_runs <= 12,
        "{many_runs} allocations for 1000 runs of 3 iterations"
    );
    assert_eq!(runs(10, 3), runs(10, 3));
}

#[differentiable]
fn smoothness(xs: &[f64]) -> f64 {
    let mut s = 0.0;
    for w in xs.windows(3) {
        s += (w[0] - 2.0 * w[1] + w[2]).powi(2);
    }
    s + xs.windows(2).map(|w| w[1] * w[0]).sum::<f64>()
}

#[test]
fn windows_add_their_adjoints_in_place() {
    // The adjoint of each window is added into the whole's at its place: the bytes a
    // gradient allocates grow with the length, not with the length times the windows.
    let bytes = |n: usize| {
        let xs: Vec<f64> = (0..n).map(|i| (i as f64 * 0.3).sin()).collect();
        let (g, _, bytes) = count_bytes(|| gradient!(at: black_box(&xs), of: smoothness));
        assert_eq!(g.len(), n);
        bytes
    };
    let (small, large) = (bytes(500), bytes(4000));
    assert!(
        large < 12 * small,
        "{small} bytes for 500 elements, {large} for 4000"
    );
}

/// Reduction loops (`fused_loops.rs`) reading neighbouring elements, by index and through
/// `.windows(k)`: no tape and no collection per window; each loop's linear map is the
/// adjoint it gave `xs`, one of which becomes the result.
#[differentiable]
fn neighbour_sums(xs: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 1..xs.len() - 1 {
        s += (xs[i - 1] - 2.0 * xs[i] + xs[i + 1]).powi(2);
    }
    let mut t = 0.0;
    for w in xs.windows(2) {
        t += w[1] * w[0];
    }
    s * t
}

#[test]
fn reduction_loops_over_neighbours_allocate_one_adjoint_each() {
    for n in [3, 500, 4000] {
        let xs: Vec<f64> = (0..n).map(|i| (i as f64 * 0.3).sin()).collect();
        let (g, allocations) = count(|| gradient!(at: black_box(&xs), of: neighbour_sums));
        assert_eq!(g.len(), n);
        assert_eq!(allocations, 2, "allocations for {n} elements");
    }
}

/// An array taken by value that the body only reads: the linear map takes it whole and
/// reads its elements again, so the loop saves nothing and `gradient!` (whose result is
/// an array) allocates nothing.
#[differentiable]
fn rosenbrock_array(x: [f64; 8]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        let a = x[i + 1] - x[i] * x[i];
        let b = 1.0 - x[i];
        s += 100.0 * a * a + b * b;
    }
    s
}

#[test]
fn an_array_read_in_a_loop_is_read_again_not_saved() {
    let x: [f64; 8] = std::array::from_fn(|i| 0.5 + 0.01 * i as f64);
    let (g, allocations) = count(|| gradient!(at: x, of: rosenbrock_array));
    assert_eq!(allocations, 0, "{allocations} allocations");
    let mut want = [0.0; 8];
    for i in 0..7 {
        let a = x[i + 1] - x[i] * x[i];
        want[i] += -400.0 * x[i] * a - 2.0 * (1.0 - x[i]);
        want[i + 1] += 200.0 * a;
    }
    for (g, w) in g.iter().zip(&want) {
        assert!((g - w).abs() <= 1e-12 * (1.0 + w.abs()), "{g} vs {w}");
    }
    let (v, g2) = value_with_gradient!(at: x, of: rosenbrock_array);
    assert_eq!(v, rosenbrock_array(x));
    assert_eq!(g2, g);
}
