#![allow(
    clippy::assign_op_pattern,
    clippy::float_cmp,
    clippy::manual_swap,
    clippy::explicit_auto_deref,
    clippy::useless_vec,
    clippy::needless_range_loop
)]
//! Sound lowering: programs whose variables start equal, are swapped through `&mut`
//! borrows of their parts, or are assigned inside a compound assignment's right side.
//! Each is checked in both modes: the value bit for bit against the original function,
//! the derivative against a formula or central finite differences.
mod common;
use common::{assert_close, check_value_and_gradient2, check_value_and_slope, fd};
use diff::prelude::*;

/// What `value_with_gradient!` (`reverse`) and `value_with_derivative!` (`forward`)
/// returned for a function of one scalar: values bit for bit, slopes against `fd`.
fn check1(name: &str, f: impl Fn(f64) -> f64, x: f64, reverse: (f64, f64), forward: (f64, f64)) {
    check_value_and_slope(&format!("{name} reverse"), &f, x, reverse);
    check_value_and_slope(&format!("{name} forward"), &f, x, forward);
}

/// Momentum: two state variables that start equal.
#[differentiable]
fn heavy_ball(x0: f64) -> f64 {
    let mut x = x0;
    let mut x_prev = x0;
    for _ in 0..3 {
        let x_new = x - 0.1 * x * x + 0.5 * (x - x_prev);
        x_prev = x;
        x = x_new;
    }
    x
}

#[differentiable]
fn previous_iterate(v: f64) -> f64 {
    let mut x = v;
    let mut prev = x;
    for _ in 0..2 {
        prev = x;
        x = x * x;
    }
    prev
}

/// A variable assigned the value it already holds, in a `while` loop.
#[differentiable]
fn reassigned_equal(v: f64, n: usize) -> f64 {
    let mut a = v;
    let mut b = v;
    let mut i = 0;
    while i < n {
        b = a;
        a = a * 0.5 + b.sin();
        i += 1;
    }
    a * b
}

#[test]
fn loop_carried_variables_that_start_equal() {
    let (v, d) = value_with_gradient!(at: 1.2, of: heavy_ball);
    assert_eq!(v, heavy_ball(1.2));
    assert_close(v, 0.70460635, 1e-8, "heavy_ball value");
    assert_close(d, 0.25556265, 1e-8, "heavy_ball derivative");
    check1(
        "heavy_ball",
        heavy_ball,
        1.2,
        value_with_gradient!(at: 1.2, of: heavy_ball),
        value_with_derivative!(at: 1.2, of: heavy_ball),
    );
    assert_eq!(
        value_with_gradient!(at: 3.0, of: previous_iterate),
        (9.0, 6.0)
    );
    assert_eq!(
        value_with_derivative!(at: 3.0, of: previous_iterate),
        (9.0, 6.0)
    );
    for n in 0..4 {
        let f = |v: f64| reassigned_equal(v, n);
        check1(
            "reassigned_equal",
            f,
            0.7,
            value_with_gradient!(at: 0.7, of: |v| reassigned_equal(v, n)),
            value_with_derivative!(at: 0.7, of: |v| reassigned_equal(v, n)),
        );
    }
}

#[differentiable]
fn swap(x: &mut f32, y: &mut f32) {
    let t = *x;
    *x = *y;
    *y = t;
}

#[differentiable]
fn multiply_swap(x: f32, y: f32) -> f32 {
    let mut t = (x, y);
    swap(&mut t.0, &mut t.1);
    t.0 * t.1
}

#[differentiable]
fn swap_generic<T: Float>(x: &mut T, y: &mut T) {
    let t = *x;
    *x = *y;
    *y = t;
}

/// `x - 2y` after swapping: `y - 2x`.
#[differentiable]
fn subtract_swapped(x: f64, y: f64) -> f64 {
    let mut t = (x, y);
    swap_generic(&mut t.0, &mut t.1);
    t.0 - 2.0 * t.1
}

/// An element of an array and a local, borrowed in one call.
#[differentiable]
fn subtract_swapped_elements(x: f64, y: f64) -> f64 {
    let mut a = [x, 0.0, 0.0];
    let mut b = y;
    let i = 0;
    swap_generic(&mut a[i], &mut b);
    a[0] - 2.0 * b
}

#[test]
fn swaps_through_mut_borrows_of_parts() {
    assert_eq!(
        gradient!(at: (3.0f32, 4.0f32), of: multiply_swap),
        (4.0, 3.0)
    );
    let df = differential!(at: (3.0f32, 4.0f32), of: multiply_swap);
    assert_eq!(df((1.0, 0.0)), 4.0);
    for f in [subtract_swapped, subtract_swapped_elements] {
        assert_eq!(f(3.0, 4.0), -2.0);
    }
    assert_eq!(
        value_with_gradient!(at: (3.0, 4.0), of: subtract_swapped),
        (-2.0, (-2.0, 1.0))
    );
    assert_eq!(
        value_with_gradient!(at: (3.0, 4.0), of: subtract_swapped_elements),
        (-2.0, (-2.0, 1.0))
    );
    let (v, df) = value_with_differential!(at: (3.0, 4.0), of: subtract_swapped_elements);
    assert_eq!((v, df((0.0, 1.0))), (-2.0, 1.0));
}

/// Rust evaluates a primitive compound assignment's right side first.
#[differentiable]
fn compound_block(x: f64) -> f64 {
    let mut g = 0.3 * x;
    g += {
        g += x;
        x * x
    };
    g
}

#[differentiable]
fn compound_on_element(x: f64) -> f64 {
    let mut w = [x, 1.0];
    w[0] *= {
        let t = w[0];
        w[0] = t + 1.0;
        t
    };
    w[0] + w[1]
}

#[test]
fn assignment_inside_a_compound_assignment() {
    let (v, d) = value_with_gradient!(at: 1.5, of: compound_block);
    assert_eq!(v, compound_block(1.5));
    assert_close(v, 4.2, 1e-12, "compound_block value");
    assert_close(d, 4.3, 1e-12, "compound_block derivative");
    check1(
        "compound_block",
        compound_block,
        1.5,
        value_with_gradient!(at: 1.5, of: compound_block),
        value_with_derivative!(at: 1.5, of: compound_block),
    );
    // (x + 1) * x + 1: 2x + 1.
    assert_eq!(
        value_with_gradient!(at: 2.0, of: compound_on_element),
        (7.0, 5.0)
    );
    assert_eq!(
        value_with_derivative!(at: 2.0, of: compound_on_element),
        (7.0, 5.0)
    );
}

#[derive(Differentiable, Clone, Copy, Debug)]
struct Projectile {
    height: f64,
    speed: f64,
}

impl Projectile {
    #[differentiable]
    fn step(&mut self, drag: f64, dt: f64) {
        self.height = self.height + self.speed * dt;
        self.speed = self.speed - (9.81 + drag * self.speed) * dt;
    }
}

/// The state before the last step: `prev` starts equal to the state it follows.
#[differentiable]
fn height_before_landing(speed: f64, drag: f64) -> f64 {
    let mut s = Projectile { height: 0.0, speed };
    let mut prev = s;
    let mut n = 0;
    while n < 20 {
        prev = s;
        s.step(drag, 0.05);
        n += 1;
    }
    prev.height + prev.speed
}

/// A `&mut self` method called on a field, and a struct written through a `&mut`
/// parameter and read back.
#[differentiable]
fn write_through(p: &mut Projectile, k: f64) {
    p.height = p.height * k;
    p.speed = p.height + p.speed;
}

#[differentiable]
fn nested_state(x: f64, k: f64) -> f64 {
    let mut t = (
        Projectile {
            height: x,
            speed: 1.0,
        },
        2.0,
    );
    t.0.step(k, 0.1);
    write_through(&mut t.0, k);
    t.0.height * t.0.speed + t.1
}

#[test]
fn struct_state_and_mutation_through_fields() {
    let f = |v: f64| height_before_landing(v, 0.3);
    check1(
        "height_before_landing",
        f,
        5.0,
        value_with_gradient!(at: 5.0, of: |v| height_before_landing(v, 0.3)),
        value_with_derivative!(at: 5.0, of: |v| height_before_landing(v, 0.3)),
    );
    let g = |x: f64| nested_state(x, 0.7);
    check1(
        "nested_state",
        g,
        1.5,
        value_with_gradient!(at: 1.5, of: |x| nested_state(x, 0.7)),
        value_with_derivative!(at: 1.5, of: |x| nested_state(x, 0.7)),
    );
    let h = |k: f64| nested_state(1.5, k);
    let (_, (_, dk)) = value_with_gradient!(at: (1.5, 0.7), of: nested_state);
    assert_close(dk, fd(h, 0.7), 1e-7, "nested_state dk");
}

#[differentiable]
fn scale(x: &mut f64, k: f64) {
    let before = *x;
    *x = before * k;
}

/// A `&mut` parameter passed on to another function, then read.
#[differentiable]
fn scale_twice(x: &mut f64, k: f64) {
    scale(x, k);
    *x = *x + k;
    scale(x, k);
}

#[differentiable]
fn use_scale_twice(x: f64, k: f64) -> f64 {
    let mut a = [x, k, 1.0];
    scale_twice(&mut a[0], k);
    let i = 2;
    a[i] += {
        a[0] *= 2.0;
        a[0]
    };
    a[0] * a[2]
}

#[test]
fn mut_parameter_passed_on() {
    let f = |x: f64| use_scale_twice(x, 1.3);
    check1(
        "use_scale_twice",
        f,
        0.4,
        value_with_gradient!(at: 0.4, of: |x| use_scale_twice(x, 1.3)),
        value_with_derivative!(at: 0.4, of: |x| use_scale_twice(x, 1.3)),
    );
}

/// A closure reads what it captured where it was defined.
#[differentiable]
fn closure_then_shadow(x: f64, k: f64) -> f64 {
    let f = |t: f64| t * k;
    let k = k * 10.0;
    f(x) + k
}

#[differentiable]
fn move_closure_then_assign(x: f64, k: f64) -> f64 {
    let mut k = k;
    let f = move |t: f64| t * k;
    k = k * 10.0;
    f(x) + k
}

/// An `FnMut` closure updates the variable it captures, also in a loop.
#[differentiable]
fn accumulating_closure(x: f64, k: f64) -> f64 {
    let mut acc = 0.0;
    let mut add = |t: f64| acc += t * k;
    for _ in 0..3 {
        add(x);
    }
    add(1.0);
    acc
}

#[test]
fn closures_read_what_they_captured() {
    for f in [closure_then_shadow, move_closure_then_assign] {
        assert_eq!(f(1.5, 2.0), 23.0);
    }
    assert_eq!(
        value_with_gradient!(at: (1.5, 2.0), of: closure_then_shadow),
        (23.0, (2.0, 11.5))
    );
    assert_eq!(
        value_with_gradient!(at: (1.5, 2.0), of: move_closure_then_assign),
        (23.0, (2.0, 11.5))
    );
    let (v, df) = value_with_differential!(at: (1.5, 2.0), of: closure_then_shadow);
    assert_eq!((v, df((0.0, 1.0))), (23.0, 11.5));
    assert_eq!(accumulating_closure(1.5, 2.0), 11.0);
    assert_eq!(
        value_with_gradient!(at: (1.5, 2.0), of: accumulating_closure),
        (11.0, (6.0, 5.5))
    );
    let (v, df) = value_with_differential!(at: (1.5, 2.0), of: accumulating_closure);
    assert_eq!((v, df((1.0, 0.0))), (11.0, 6.0));
}

/// A block, branch or arm whose exit absorbs the statements after it: its own `let`s
/// (and a `match` arm's bindings) end with it, and a shadowing `let` after it is a new
/// variable, not an update of the one it hides.
#[differentiable]
fn shadow_inside_exiting_block(x: f64, c: f64) -> f64 {
    let mut a = x;
    {
        if c > 5.0 {
            return 0.0;
        }
        a = a * 2.0;
        let a = 100.0 * x;
        let _ = a;
    }
    a * x
}

#[differentiable]
fn shadow_inside_exiting_branch(x: f64, c: f64) -> f64 {
    let a = x;
    if c > 5.0 {
        let a = 7.0 * x;
        if c > 6.0 {
            return a;
        }
    } else {
        let a = 3.0;
        let _ = a;
    }
    a * x
}

#[differentiable]
fn arm_binding_then_rest(x: f64, n: usize) -> f64 {
    let k = x;
    match n {
        0 => return x,
        k => {
            let _ = k;
        }
    }
    k * x
}

#[differentiable]
fn shadow_after_exiting_let(x: f64, y: f64) -> f64 {
    let t = (x, y);
    let v = if x > 5.0 { return 1.0 } else { y.sin() };
    let t = t.0 + 0.5 * t.1;
    t * v
}

#[differentiable]
fn exiting_let_block(x: f64, c: f64) -> f64 {
    let a = x;
    let b = {
        let a = 3.0 * x;
        if c > 5.0 {
            return 0.0;
        }
        a + 1.0
    };
    a * b
}

#[test]
fn scopes_of_blocks_that_exit() {
    for c in [2.0, 5.5, 6.5] {
        let at = (1.5, c);
        check_value_and_gradient2(
            "shadow_inside_exiting_block",
            shadow_inside_exiting_block,
            at,
            value_with_gradient!(at: (1.5, c), of: shadow_inside_exiting_block),
        );
        check_value_and_gradient2(
            "shadow_inside_exiting_branch",
            shadow_inside_exiting_branch,
            at,
            value_with_gradient!(at: (1.5, c), of: shadow_inside_exiting_branch),
        );
        check_value_and_gradient2(
            "exiting_let_block",
            exiting_let_block,
            at,
            value_with_gradient!(at: (1.5, c), of: exiting_let_block),
        );
        let (v, df) = value_with_differential!(at: (1.5, c), of: shadow_inside_exiting_branch);
        assert_eq!(v, shadow_inside_exiting_branch(1.5, c));
        assert_close(
            df((1.0, 0.0)),
            fd(|x| shadow_inside_exiting_branch(x, c), 1.5),
            1e-7,
            "shadow_inside_exiting_branch forward",
        );
    }
    assert_eq!(shadow_inside_exiting_block(1.5, 2.0), 4.5);
    check_value_and_gradient2(
        "shadow_after_exiting_let",
        shadow_after_exiting_let,
        (1.5, 2.0),
        value_with_gradient!(at: (1.5, 2.0), of: shadow_after_exiting_let),
    );
    for n in [0, 2] {
        let (v, d) = value_with_gradient!(at: (1.5, n), of: arm_binding_then_rest);
        assert_eq!(v, arm_binding_then_rest(1.5, n));
        assert_eq!(d, if n == 0 { 1.0 } else { 3.0 });
    }
}

/// A condition reading a `&mut` parameter reads its current value, not its value on
/// entry (the condition is kept as written, so `*p` is substituted).
#[differentiable]
fn early_exit_on_updated_pointee(p: &mut f64, k: f64) -> f64 {
    let before = *p;
    *p += k;
    if *p < 0.0 {
        return 2.0 * before;
    }
    *p * 3.0
}

#[differentiable]
fn call_early_exit(x: f64, y: f64) -> f64 {
    let mut a = x;
    let r = early_exit_on_updated_pointee(&mut a, y);
    a + 10.0 * r
}

#[derive(Differentiable, Clone, Copy, Debug)]
struct Gauge {
    level: f64,
}

impl Gauge {
    #[differentiable]
    fn drain(&mut self, k: f64) -> f64 {
        self.level -= k;
        if self.level > 0.0 && (*self).level.is_finite() {
            self.level * 2.0
        } else {
            k
        }
    }
}

#[differentiable]
fn call_drain(x: f64, k: f64) -> f64 {
    let mut g = Gauge { level: x };
    let r = Gauge::drain(&mut g, k);
    r + g.level
}

#[test]
fn conditions_read_the_current_pointee() {
    // x + y < 0 takes the early exit although x alone is positive.
    assert_eq!(call_early_exit(0.3, -1.7), 4.6);
    assert_eq!(
        value_with_gradient!(at: (0.3, -1.7), of: call_early_exit),
        (call_early_exit(0.3, -1.7), (21.0, 1.0))
    );
    assert_eq!(
        value_with_derivative!(at: -1.7, of: |y| call_early_exit(0.3, y)),
        (call_early_exit(0.3, -1.7), 1.0)
    );
    // level 1.0 - 1.5 < 0: r = k, so the result is k + x - k = x.
    assert_eq!(
        value_with_gradient!(at: (1.0, 1.5), of: call_drain),
        (call_drain(1.0, 1.5), (1.0, 0.0))
    );
    assert_eq!(
        value_with_gradient!(at: (2.0, 0.5), of: call_drain),
        (call_drain(2.0, 0.5), (3.0, -3.0))
    );
}

impl Gauge {
    /// `self.level * self.level` in a condition: a product, not a dereference.
    #[differentiable]
    fn refill(&mut self, k: f64) -> f64 {
        self.level = k;
        if self.level * self.level > 1.0 && (*self).level > 0.0 {
            return self.level;
        }
        -self.level
    }
}

#[differentiable]
fn call_refill(x: f64, k: f64) -> f64 {
    let mut g = Gauge { level: x };
    let r = Gauge::refill(&mut g, k);
    r + g.level
}

#[test]
fn products_of_self_fields_in_conditions() {
    assert_eq!(call_refill(0.5, 2.0), 4.0);
    assert_eq!(call_refill(0.5, 0.5), 0.0);
    assert_eq!(
        value_with_gradient!(at: (0.5, 2.0), of: call_refill),
        (4.0, (0.0, 2.0))
    );
    assert_eq!(
        value_with_gradient!(at: (0.5, 0.5), of: call_refill),
        (0.0, (0.0, 0.0))
    );
}

/// Element updates in every form the reverse sweep passes the vector's adjoint through
/// whole (`v[i] += e`, `v[i] -= e`, `v[i] = e + v[i]`), where the update reads its own
/// element (`v[i] += v[i]`, `v[i] -= v[i]`), and where the old element is read again
/// after the update (which keeps the general transpose).
#[differentiable]
#[allow(clippy::useless_vec)] // a Vec's adjoint is what is tested
fn element_updates(x: Vec<f64>, k: f64) -> f64 {
    let mut v = vec![0.0; 3];
    let mut m = vec![vec![0.0; 2]; 2];
    for i in 0..3 {
        v[i] += x[i] * k;
        v[i] -= x[(i + 1) % 3].sin();
        v[i] = x[i] * x[i] + v[i];
        m[i % 2][i / 2] += v[i] * k;
    }
    v[0] += v[0];
    v[1] -= v[1];
    let old = v[2];
    v[2] += old * k;
    let after = old * v[2];
    v[0] * v[1] + v[2] + after + m[0][0] * m[1][1] + m[0][1]
}

#[test]
fn element_updates_pass_the_adjoint_through() {
    let (x, k) = (vec![0.7, -1.3, 0.4], 1.7);
    let f = |p: &[f64]| element_updates(p[..3].to_vec(), p[3]);
    let p = [x[0], x[1], x[2], k];
    let (v, (gx, gk)) = value_with_gradient!(at: (x.clone(), k), of: element_updates);
    assert_eq!(v, element_updates(x.clone(), k));
    let g: Vec<f64> = gx.iter().copied().chain([gk]).collect();
    for (j, g) in g.iter().enumerate() {
        let mut step = [0.0; 4];
        step[j] = 1.0;
        let want = fd(
            |h| {
                f(&[
                    p[0] + h * step[0],
                    p[1] + h * step[1],
                    p[2] + h * step[2],
                    p[3] + h * step[3],
                ])
            },
            0.0,
        );
        assert_close(*g, want, 1e-6, &format!("element_updates d/dp{j}"));
    }
    let (fv, slope) = value_with_differential!(at: (x.clone(), k), of: element_updates);
    assert_eq!(fv, v);
    let along = slope((vec![1.0, -0.5, 2.0], 0.25));
    let want = g[0] - 0.5 * g[1] + 2.0 * g[2] + 0.25 * g[3];
    assert_close(along, want, 1e-12, "element_updates along a direction");
}

/// Loops written through `iter_mut()` nested in one another, a chain in such a loop
/// reading its item, and a `chunks_mut` chunk read in a loop over a written sub-slice:
/// each rewritten loop's index is its own (they once shared one name, and the inner
/// loop's index was read for the outer's element: value 70 for 78).
#[differentiable]
fn nested_written_loops(xs: &[f64]) -> f64 {
    let mut a = xs.to_vec();
    let mut b = vec![0.0; 2];
    for p in a.iter_mut() {
        for q in b.iter_mut() {
            *q += *p;
        }
        *p *= 2.0;
    }
    let mut c = vec![1.0; 2];
    for v in c.iter_mut() {
        *v = xs.iter().map(|x| x * *v).sum::<f64>() + *v;
    }
    let mut m = xs.to_vec();
    for row in m.chunks_mut(2) {
        for w in c[1..].iter_mut() {
            *w += row[0];
        }
    }
    b[0] * 10.0 + b[1] + a.iter().sum::<f64>() + c[0] * 3.0 + c[1]
}

#[test]
fn nested_written_loops_keep_their_indices() {
    let x = vec![1.0, 2.0, 3.0];
    let (v, g) = value_with_gradient!(at: &x, of: nested_written_loops);
    assert_eq!(v, nested_written_loops(&x));
    // b = [Σx, Σx]; a = 2x; c = [Σx + 1, Σx + 1 + x0 + x2]:
    // 11 Σx + 2 Σx + 3 (Σx + 1) + Σx + 1 + x0 + x2 = 17 Σx + x0 + x2 + 4.
    let s: f64 = x.iter().sum();
    assert_close(v, 17.0 * s + x[0] + x[2] + 4.0, 1e-12, "value");
    let expected = [18.0, 17.0, 18.0];
    for k in 0..3 {
        assert_close(g[k], expected[k], 1e-12, "gradient");
    }
    let d = first_derivative!(at: 0.0, of: |t: f64| {
        nested_written_loops(&[1.0 + t, 2.0 + 2.0 * t, 3.0 + 3.0 * t])
    });
    assert_close(d, 18.0 + 2.0 * 17.0 + 3.0 * 18.0, 1e-12, "forward");
}

#[derive(Clone, Differentiable)]
struct Layer {
    w: Vec<f64>,
}

/// A loop writing `layers[l].w` through `iter_mut()` whose body changes `l`: the loop
/// writes the layer `l` named when it started.
#[differentiable]
fn written_layer_while_its_index_changes(x: f64) -> f64 {
    let mut layers = vec![
        Layer {
            w: vec![x, 2.0 * x],
        },
        Layer {
            w: vec![3.0 * x, x * x],
        },
    ];
    let mut l = 0;
    for v in layers[l].w.iter_mut() {
        *v *= x;
        l = 1;
    }
    let mut m = vec![vec![x, 1.0, 2.0], vec![x, x, x]];
    let mut r = 1;
    for c in m[r].chunks_mut(2) {
        c[0] *= x;
        r = 0;
    }
    for v in m[r][1..].iter_mut() {
        *v += x;
        r = 1;
    }
    let w = &layers;
    w[0].w[0]
        + w[0].w[1]
        + w[1].w[0]
        + w[1].w[1]
        + m[0].iter().sum::<f64>() * 2.0
        + m[1].iter().sum::<f64>()
        + (l + r) as f64
}

#[test]
fn written_places_keep_the_indices_they_started_with() {
    let x = 1.5;
    let v = value_with_gradient!(at: x, of: written_layer_while_its_index_changes);
    // layers: [x², 2x²], [3x, x²]; m: [x, 1 + x, 2 + x], [x², x, x²].
    let value = 3.0 * x * x + 3.0 * x + x * x + 2.0 * (3.0 * x + 3.0) + 2.0 * x * x + x + 2.0;
    let slope = 6.0 * x + 3.0 + 2.0 * x + 6.0 + 4.0 * x + 1.0;
    assert_close(v.0, value, 1e-12, "value");
    assert_close(v.1, slope, 1e-12, "reverse");
    let d = first_derivative!(at: x, of: written_layer_while_its_index_changes);
    assert_close(d, slope, 1e-12, "forward");
    assert_close(
        d,
        fd(written_layer_while_its_index_changes, x),
        1e-6,
        "finite differences",
    );
}

/// An iterator kept in a variable reads what it captured when it was made, however the
/// variables change before it is consumed (also walked by `while let .. = it.next()`, as
/// users write it).
#[allow(clippy::while_let_on_iterator)]
#[differentiable]
fn iterator_made_before_its_variables_change(x: f64) -> f64 {
    let xs = vec![x, 2.0 * x, 3.0 * x];
    let mut k = 1;
    let mut a = x;
    let it = xs.iter().skip(k).map(move |v| v * a);
    k = 2;
    a = 1.0;
    let s: f64 = it.sum();
    let mut w = xs.iter().rev().take(k);
    k = 0;
    let mut t = 0.0;
    while let Some(v) = w.next() {
        t += v * v;
    }
    s + (k as f64) + a + t
}

#[test]
fn iterators_read_the_values_they_were_made_with() {
    let x = 1.5;
    let v = value_with_gradient!(at: x, of: iterator_made_before_its_variables_change);
    // s = (2x + 3x) x = 5x², t = 9x² + 4x², k = 0, a = 1.
    assert_close(v.0, 18.0 * x * x + 1.0, 1e-12, "value");
    assert_close(v.1, 36.0 * x, 1e-12, "reverse");
    let d = first_derivative!(at: x, of: iterator_made_before_its_variables_change);
    assert_close(d, 36.0 * x, 1e-12, "forward");
}

/// The item of a loop over `iter_mut()` read inside `vec![..]` and `assert!(..)`.
#[differentiable]
fn items_read_inside_macros(x: f64) -> f64 {
    let mut xs = [x, 2.0 * x, 3.0];
    let mut total = 0.0;
    for q in xs.iter_mut() {
        let pair = vec![*q, *q * x];
        assert!(pair.len() == 2, "two elements");
        *q = pair[0] + pair[1];
        total += vec![*q; 2][1];
    }
    total + xs[2]
}

#[test]
fn written_items_inside_macros() {
    let x = 1.5;
    // xs = [x + x², 2x + 2x², 3 + 3x]; total = Σ; result = 3x + 3x² + 6 + 6x.
    let v = value_with_gradient!(at: x, of: items_read_inside_macros);
    assert_close(v.0, 9.0 * x + 3.0 * x * x + 6.0, 1e-12, "value");
    assert_close(v.1, 9.0 + 6.0 * x, 1e-12, "reverse");
    let d = first_derivative!(at: x, of: items_read_inside_macros);
    assert_close(d, 9.0 + 6.0 * x, 1e-12, "forward");
}

/// Methods of the user's named like standard methods whose result never carries a
/// derivative (`len`, `count`, `position`, `contains`): their calls are differentiated,
/// while the standard ones (`xs.len()`) stay plain in the same crate.
pub struct Ledger {
    pub k: f64,
}

impl Ledger {
    #[differentiable]
    pub fn len(&self, s: f64) -> f64 {
        self.k * s * s
    }
    #[differentiable]
    pub fn count(&self, s: f64) -> f64 {
        self.k * s * s * s
    }
    #[differentiable]
    pub fn contains(&self, s: f64) -> f64 {
        self.k * s.sin()
    }
}

pub trait Holding {
    #[differentiable]
    fn price(&self, s: f64) -> f64;
    #[differentiable]
    fn position(&self, s: f64) -> f64 {
        2.0 * self.price(s)
    }
}

impl Holding for Ledger {
    #[differentiable]
    fn price(&self, s: f64) -> f64 {
        self.k * s * s
    }
}

#[differentiable]
fn ledger_total(xs: &[f64], b: &Ledger) -> f64 {
    let mut s = 0.0;
    for i in 0..xs.len() {
        s += b.len(xs[i]) + b.count(xs[i]) + b.contains(xs[i]);
    }
    s * xs.len() as f64
}

#[differentiable]
fn held<M: Holding>(m: &M, s: f64) -> f64 {
    m.position(s) + m.position(s * s)
}

#[test]
fn methods_named_like_standard_ones_are_differentiated() {
    let b = Ledger { k: 2.0 };
    let xs = vec![0.5, 1.5];
    let f = |x: &[f64]| ledger_total(x, &b);
    let (v, g) = value_with_gradient!(at: &xs, of: |x: &[f64]| ledger_total(x, &b));
    assert_eq!(v, f(&xs));
    // d/dx_i of 2 (k x² + k x³ + k sin x) summed: 2 k (2x + 3x² + cos x).
    for i in 0..2 {
        let x = xs[i];
        assert_close(
            g[i],
            4.0 * (2.0 * x + 3.0 * x * x + x.cos()),
            1e-12,
            "ledger",
        );
    }
    let h = |s: f64| held(&b, s);
    // 2 k s² + 2 k s⁴: 4 k s + 8 k s³.
    let want = |s: f64| 8.0 * s + 16.0 * s * s * s;
    let (v, d) = value_with_gradient!(at: 1.5, of: |s| held(&b, s));
    assert_eq!(v, h(1.5));
    assert_close(d, want(1.5), 1e-12, "held reverse");
    let (v, d) = value_with_derivative!(at: 1.5, of: |s| held(&b, s));
    assert_eq!(v, h(1.5));
    assert_close(d, want(1.5), 1e-12, "held forward");
    assert_close(d, fd(h, 1.5), 1e-6, "held fd");
}

/// Methods of the user's named like float methods the library has rules for (`exp`,
/// `abs`, `max`, `mul_add`), on a struct of the crate, beside the float methods of the
/// same names on floats in the same bodies.
pub struct Scaler {
    pub k: f64,
}

impl Scaler {
    #[differentiable]
    pub fn exp(&self, x: f64) -> f64 {
        self.k * x * x
    }
    #[differentiable]
    pub fn max(&self, x: f64) -> f64 {
        self.k * x * x * x
    }
    #[differentiable]
    pub fn mul_add(&self, x: f64, y: f64) -> f64 {
        self.k * x * y + y
    }
}

#[differentiable]
fn scaled_and_plain(s: &Scaler, x: f64) -> f64 {
    s.exp(x) + s.max(x) + s.mul_add(x, x) + x.exp() + x.max(0.5) + x.mul_add(2.0, 1.0)
}

#[test]
fn methods_named_like_float_methods_are_the_users() {
    let s = Scaler { k: 2.0 };
    let f = |x: f64| scaled_and_plain(&s, x);
    let x = 1.5;
    // k x² + k x³ + (k x² + x) + eˣ + x + 2x + 1
    let want =
        |x: f64| 2.0 * s.k * x + 3.0 * s.k * x * x + 2.0 * s.k * x + 1.0 + x.exp() + 1.0 + 2.0;
    let (v, d) = value_with_gradient!(at: x, of: |x| scaled_and_plain(&s, x));
    assert_eq!(v, f(x));
    assert_close(d, want(x), 1e-12, "reverse");
    let (v, d) = value_with_derivative!(at: x, of: |x| scaled_and_plain(&s, x));
    assert_eq!(v, f(x));
    assert_close(d, want(x), 1e-12, "forward");
    let d2 = second_derivative!(at: x, of: |x| scaled_and_plain(&s, x));
    assert_close(
        d2,
        2.0 * s.k + 6.0 * s.k * x + 2.0 * s.k + x.exp(),
        1e-12,
        "second",
    );
}

/// `max`, `min` and `clamp` select one argument: the derivative is the selected one's,
/// and an argument not selected does not pass its derivative on multiplied by zero (`0 *
/// inf` is NaN, the derivative of `sqrt` at 0). Enzyme's `guarded_normalize`: `1 /
/// len.max(eps)` at the origin. The oracle is the same function written with `if`.
mod selections {
    use diff::prelude::*;

    #[differentiable]
    fn guarded_length(x: f64) -> f64 {
        (x * x).sqrt().max(1e-12)
    }

    #[differentiable]
    fn guarded_length_if(x: f64) -> f64 {
        let len = (x * x).sqrt();
        if len >= 1e-12 {
            len
        } else {
            1e-12
        }
    }

    #[differentiable]
    fn normalized_first(v: &[f64]) -> f64 {
        let len = v.iter().map(|a| a * a).sum::<f64>().sqrt();
        v[0] / len.max(1e-12)
    }

    #[differentiable]
    fn clamped_root(x: f64) -> f64 {
        x.sqrt().clamp(1.0, 2.0) + x.sqrt().min(-1.0)
    }

    #[differentiable]
    fn largest_root(v: &[f64]) -> f64 {
        v.iter().map(|a| a.sqrt()).fold(1.0, f64::max)
    }

    #[test]
    fn the_argument_not_selected_passes_nothing_on() {
        for x in [0.0, 0.5, -2.0] {
            let want = gradient!(at: x, of: guarded_length_if);
            assert_eq!(gradient!(at: x, of: guarded_length), want, "at {x}");
            assert_eq!(first_derivative!(at: x, of: guarded_length), want, "at {x}");
            assert_eq!(
                second_derivative!(at: x, of: guarded_length),
                second_derivative!(at: x, of: guarded_length_if),
                "at {x}"
            );
        }
        assert_eq!(gradient!(at: 0.0, of: guarded_length), 0.0);
        assert_eq!(value_with_gradient!(at: 0.0, of: guarded_length).0, 1e-12);
        let origin = vec![0.0, 0.0, 0.0];
        assert_eq!(
            value_with_gradient!(at: &origin, of: normalized_first).0,
            0.0
        );
        assert_eq!(
            value_with_gradient!(at: 2.25, of: clamped_root).0,
            clamped_root(2.25)
        );
        let g = gradient!(at: &vec![0.0, 0.0, 0.0], of: normalized_first);
        assert_eq!(g, vec![1e12, 0.0, 0.0]);
        assert_eq!(gradient!(at: 0.0, of: clamped_root), 0.0);
        assert_eq!(first_derivative!(at: 0.0, of: clamped_root), 0.0);
        // Inside the clamp's range the derivative is the root's: 1 / (2 sqrt x).
        assert_eq!(gradient!(at: 2.25, of: clamped_root), 1.0 / 3.0);
        assert_eq!(
            gradient!(at: &vec![0.0, 0.25], of: largest_root),
            vec![0.0, 0.0]
        );
        assert_eq!(
            gradient!(at: &vec![0.0, 4.0], of: largest_root),
            vec![0.0, 0.25]
        );
        let h = hessian!(at: &vec![0.0, 0.25], of: largest_root);
        assert_eq!(h, vec![vec![0.0, 0.0], vec![0.0, 0.0]]);
    }
}

/// The sign read from a float's bits: a branch, no derivative lost.
#[differentiable]
fn by_sign_bit(x: f64) -> f64 {
    let negative = (x.to_bits() >> 63) != 0;
    if negative {
        -x * x
    } else {
        x * x * x
    }
}

/// A float rebuilt from bits the derivative is meant to skip: a constant scale.
#[differentiable]
fn scaled_by_bits(x: f64) -> f64 {
    let half = no_derivative(f64::from_bits(0x3fe0_0000_0000_0000));
    let _sign = x.to_bits() >> 63;
    half * x * x
}

/// libm's `expm1` style: the bits kept in a `let` and read to branch, a constant built
/// from a literal's bits (cratesport: refused before, though no derivative is lost).
#[differentiable]
fn doubled_above_one(x: f64) -> f64 {
    let ui = x.to_bits();
    let hx = ((ui >> 32) & 0x7fff_ffff) as u32;
    let two = f64::from_bits(0x4000_0000_0000_0000);
    if hx >= 0x3ff0_0000 {
        return x * two;
    }
    x
}

/// `frexp` style: the exponent read from the bits scales the value, a piecewise constant
/// factor `2^-e` (the derivative is that factor).
#[differentiable]
fn mantissa_scaled(x: f64) -> f64 {
    let e = (((x.to_bits() >> 52) & 0x7ff) as i32) - 1023;
    x * 2f64.powi(-e)
}

#[test]
fn bits_of_a_float_that_carries_a_derivative() {
    for x in [0.7, 1.5, -3.0] {
        check1(
            "doubled_above_one",
            doubled_above_one,
            x,
            value_with_gradient!(at: x, of: doubled_above_one),
            value_with_derivative!(at: x, of: doubled_above_one),
        );
        check1(
            "mantissa_scaled",
            mantissa_scaled,
            x,
            value_with_gradient!(at: x, of: mantissa_scaled),
            value_with_derivative!(at: x, of: mantissa_scaled),
        );
    }
    for x in [-1.3, 0.8] {
        check1(
            "by_sign_bit",
            by_sign_bit,
            x,
            value_with_gradient!(at: x, of: by_sign_bit),
            value_with_derivative!(at: x, of: by_sign_bit),
        );
        check1(
            "scaled_by_bits",
            scaled_by_bits,
            x,
            value_with_gradient!(at: x, of: scaled_by_bits),
            value_with_derivative!(at: x, of: scaled_by_bits),
        );
    }
}
