#![allow(
    clippy::needless_range_loop,
    clippy::useless_vec,
    clippy::ptr_arg,
    clippy::assign_op_pattern
)]
//! Minimal reproductions found by random-program testing, kept as regressions.
use diff::prelude::*;

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
fn zip_skip(p: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..p.len() - 1 {
        s += p[i] * p[i + 1];
    }
    s + p.iter().map(|v| v * 2.0).sum::<f64>()
}

#[test]
fn fuzz_regressions() {
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
        gradient!(at: &[1.0, 2.0, 3.0][..], of: zip_skip),
        vec![4.0, 6.0, 4.0]
    );
}

#[differentiable]
fn sumsq(p: &[f64]) -> f64 {
    p.iter().map(|t| t * t).sum::<f64>()
}

#[derive(Differentiable, Clone, Debug)]
pub struct Pt {
    x: f64,
    y: f64,
}

impl Pt {
    #[differentiable]
    fn norm2(&self) -> f64 {
        self.x * self.x + self.y * self.y
    }
}

#[differentiable]
fn borrows_locals(x: f64, y: f64) -> f64 {
    let w = vec![x, y];
    let a = [x, y, 1.0];
    let p = Pt { x, y: 2.0 * y };
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
    let g = gradient!(at: 4.0, of: newton);
    assert!((g - 0.25).abs() < 1e-9, "{g}");
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
fn let_match_return(x: f64, y: f64, n: usize) -> f64 {
    let v = match n {
        0 => return x,
        _ => x * x,
    };
    v + y
}

#[differentiable]
fn let_if_return(x: f64, y: f64, n: usize) -> f64 {
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
        value_with_gradient!(at: (2.0, 3.0, 0), of: let_match_return),
        (2.0, (1.0, 0.0))
    );
    assert_eq!(
        value_with_gradient!(at: (2.0, 3.0, 1), of: let_match_return),
        (7.0, (4.0, 1.0))
    );
    assert_eq!(
        value_with_gradient!(at: (2.0, 3.0, 0), of: let_if_return),
        (2.0, (1.0, 0.0))
    );
    // v = 4, w = 8 + 3, result 15; d/dx = 2x*2 + 2x = 12, d/dy = 1
    assert_eq!(
        value_with_gradient!(at: (2.0, 3.0, 1), of: let_if_return),
        (15.0, (12.0, 1.0))
    );
    // v = 64, t = 128 > 100: returns 128, d/dx = 2 * 2x = 32
    assert_eq!(
        value_with_gradient!(at: (8.0, 3.0, 1), of: let_if_return),
        (128.0, (32.0, 0.0))
    );
}

#[differentiable]
fn r1(x: f64, y: f64) -> f64 {
    let mut w = vec![x, y];
    if x > 5.0 {
        return x;
    }
    w[0] += y;
    w[0] * w[1]
}
#[differentiable]
fn p2(x: f64, y: f64) -> f64 {
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
        value_with_gradient!(at: (2.0, 3.0), of: r1),
        (15.0, (3.0, 8.0))
    );
    assert_eq!(
        value_with_gradient!(at: (2.0, 3.0), of: p2),
        (10.0, (7.0, 2.0))
    );
}

#[differentiable]
fn s5(p: &Vec<f64>) -> f64 {
    let q = p.clone();
    q[0] * q[1]
}
#[differentiable]
fn s6(p: &[f64]) -> f64 {
    let mut q = p.to_vec();
    q[0] *= 3.0;
    q[0] * q[1]
}
#[test]
fn clones_and_to_vec_of_active_values() {
    assert_eq!(
        gradient!(at: &vec![1.0, 2.0, 3.0], of: s5),
        vec![2.0, 1.0, 0.0]
    );
    assert_eq!(gradient!(at: &[1.0, 2.0][..], of: s6), vec![6.0, 3.0]);
    assert_eq!(first_derivative!(at: 1.0, of: |x| s5(&vec![x, 2.0])), 2.0);
}

#[differentiable]
fn rg<T: Float>(x: T, n: usize) -> T {
    if n == 0 {
        return x;
    }
    rg(x, n - 1) * x
}
#[test]
fn generic_recursion() {
    assert_eq!(gradient!(at: (2.0, 3), of: rg::<f64>), 32.0);
    assert_eq!(first_derivative!(at: 2.0, of: |x| rg(x, 2)), 12.0);
}

#[differentiable]
fn s4(p: &[f64]) -> f64 {
    p.iter()
        .zip(p.iter().skip(1))
        .map(|(a, b)| a * b)
        .sum::<f64>()
}
#[test]
fn zip_with_a_skipped_copy() {
    assert_eq!(
        gradient!(at: &[1.0, 2.0, 3.0][..], of: s4),
        vec![2.0, 4.0, 2.0]
    );
    assert_eq!(s4(&[1.0, 2.0, 3.0]), 8.0);
}

#[derive(Differentiable, Clone, Debug)]
pub struct Pt2 {
    a: f64,
    b: f64,
}
impl Pt2 {
    #[differentiable]
    fn scale(&mut self, k: f64) {
        self.a *= k.cos();
        self.b = self.b + k * self.a;
    }
}
#[differentiable]
fn c5(x: f64, y: f64) -> f64 {
    let mut p = Pt2 { a: x, b: y };
    p.scale(p.b);
    p.a + p.b
}
#[differentiable]
fn n4(x: f64, y: f64) -> f64 {
    let v = x * x;
    let mut t = (1.25_f64, v);
    t.1 = t.1 * y;
    let (_a, b) = t;
    b + y
}
#[differentiable]
fn w2(x: f64, y: f64) -> f64 {
    let mut s = x;
    let mut st = vec![1.0, 2.0];
    while let Some(w) = st.pop() {
        s = s * w + y;
    }
    s
}
#[test]
fn method_args_from_the_receiver_mutable_tuples_and_while_let_pop() {
    let (gx, gy) = gradient!(at: (0.7, 1.3), of: c5);
    assert!(
        (gx - 0.6152473058).abs() < 1e-9 && (gy + 0.3640794985).abs() < 1e-9,
        "{gx} {gy}"
    );
    assert_eq!(
        value_with_gradient!(at: (2.0, 3.0), of: n4),
        (15.0, (12.0, 5.0))
    );
    assert_eq!(first_derivative!(at: 2.0, of: |x| n4(x, 3.0)), 12.0);
    // s = (x*2 + y)*1 + y
    assert_eq!(gradient!(at: (2.0, 3.0), of: w2), (2.0, 2.0));
}

#[derive(Differentiable, Clone, Debug)]
pub struct Pt3 {
    a: f64,
    b: f64,
}
impl Pt3 {
    #[differentiable]
    fn scale(&mut self, k: f64) {
        self.a *= k.cos();
        self.b = self.b + k * self.a;
    }
}
#[differentiable]
fn c7(x: f64, y: f64) -> f64 {
    let mut p = Pt3 { a: x, b: y };
    p.scale(p.b * p.b);
    p.a + p.b
}
#[test]
fn places_read_before_their_owner_is_updated() {
    let h = 1e-6;
    let (gx, gy) = gradient!(at: (0.7, 1.3), of: c7);
    let fx = (c7(0.7 + h, 1.3) - c7(0.7 - h, 1.3)) / (2.0 * h);
    let fy = (c7(0.7, 1.3 + h) - c7(0.7, 1.3 - h)) / (2.0 * h);
    assert!(
        (gx - fx).abs() < 1e-6 && (gy - fy).abs() < 1e-6,
        "{gx} {fx} {gy} {fy}"
    );
}

#[differentiable]
fn n4b(x: f64, y: f64) -> f64 {
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
        value_with_gradient!(at: (2.0, 3.0), of: n4b),
        (11.0, (1.0 + 3.0, 1.0 + 2.0))
    );
}
#[derive(Differentiable, Clone, Debug)]
pub struct Pt4 {
    a: f64,
    b: f64,
}

#[differentiable]
fn carried_struct(x: f64, y: f64) -> f64 {
    let mut p = Pt4 { a: x, b: y };
    let mut acc = 0.0;
    for _ in 0..3 {
        p.b += acc;
        acc = acc * 0.5 + p.a * p.b;
    }
    acc
}

#[test]
fn struct_carried_through_a_loop_and_dropped() {
    let h = 1e-6;
    let (gx, gy) = gradient!(at: (0.7, 1.3), of: carried_struct);
    let fx = (carried_struct(0.7 + h, 1.3) - carried_struct(0.7 - h, 1.3)) / (2.0 * h);
    let fy = (carried_struct(0.7, 1.3 + h) - carried_struct(0.7, 1.3 - h)) / (2.0 * h);
    assert!(
        (gx - fx).abs() < 1e-6 && (gy - fy).abs() < 1e-6,
        "{gx} {fx} {gy} {fy}"
    );
    let d = first_derivative!(at: 0.7, of: |x| carried_struct(x, 1.3));
    assert!((d - gx).abs() < 1e-12);
}
