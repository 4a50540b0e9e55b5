//! Exits as people write them: `return` inside loops (at any depth, from `match` arms and
//! `let` initializers), `break` with a value, labelled loops with `break 'outer` and
//! `continue 'outer`, labelled blocks, and `let y: T;` assigned later. Every function in
//! both modes, against finite differences, and its value against the function's.
mod common;
use common::{assert_close, assert_vec_close, fd, fd_grad};
use diff::prelude::*;

#[differentiable]
fn return_in_loop(x: f64) -> f64 {
    let mut y = x;
    for _ in 0..10 {
        y *= 1.1;
        if y > 5.0 {
            return y * 2.0;
        }
    }
    y
}

#[differentiable]
fn return_from_nested_loops(x: f64) -> f64 {
    let mut s = x;
    for i in 0..5 {
        for j in 0..5 {
            s = s * 1.05 + (i * j) as f64 * 0.01;
            if s > 2.0 {
                return s * x;
            }
        }
    }
    s
}

#[differentiable]
fn return_from_a_match_arm_in_a_while(x: f64) -> f64 {
    let mut y = x;
    let mut k = 0;
    while k < 50 {
        y = y.sin() + 1.0;
        k += 1;
        let step = match k % 3 {
            0 if y > 1.5 => return y * y,
            0 => 0.5,
            _ => 0.1,
        };
        y += step * x;
    }
    y * 2.0
}

#[differentiable]
fn break_with_value(x: f64) -> f64 {
    let mut y = x.abs() + 0.1;
    let r = loop {
        y *= 1.5;
        if y > 3.0 {
            break y + x;
        }
    };
    r * x
}

#[differentiable]
fn break_outer_with_value(x: f64) -> f64 {
    let mut y = x;
    let found = 'search: loop {
        for i in 0..10 {
            y = y * 1.2 + 0.1;
            if y > 2.0 && i > 2 {
                break 'search y * x;
            }
        }
        y -= 0.5;
    };
    found + y
}

#[differentiable]
fn labelled_break_and_continue(x: f64) -> f64 {
    let mut y = x;
    'outer: for _ in 0..4 {
        for j in 0..4 {
            y *= 1.1;
            if j == 2 {
                continue 'outer;
            }
            if y > 9.0 {
                break 'outer;
            }
        }
        y += 0.5;
    }
    y
}

#[differentiable]
fn labelled_block(x: f64) -> f64 {
    let r = 'a: {
        if x > 1.0 {
            break 'a x * 2.0;
        }
        x * 3.0
    };
    r + x * r
}

/// (Written with a late initialization, as the point is the late initialization.)
#[allow(clippy::needless_late_init)]
#[differentiable]
fn assigned_later(x: f64) -> f64 {
    let y: f64;
    if x > 0.0 {
        y = x * 2.0;
    } else {
        y = x.exp();
    }
    y * x
}

/// The same without the type: it is the type of what is assigned later (and of a
/// variable given its value in the statement after its `let`).
#[allow(clippy::needless_late_init)]
#[differentiable]
fn assigned_later_without_a_type(x: f64) -> f64 {
    let y;
    if x > 0.0 {
        y = x * 2.0;
    } else {
        y = x.exp();
    }
    let z;
    z = y + x.sin();
    z * x
}

/// Each function: value and both modes against finite differences, at points on both
/// sides of its branches.
macro_rules! check {
    ($f:ident, $($x:expr),*) => {$({
        let x: f64 = $x;
        let (v, g) = value_with_gradient!(at: x, of: $f);
        assert_eq!(v, $f(x), "{} value at {x}", stringify!($f));
        let oracle = fd($f, x);
        assert_close(g, oracle, 1e-5, concat!(stringify!($f), ", reverse"));
        let (v, d) = value_with_derivative!(at: x, of: $f);
        assert_eq!(v, $f(x), "{} value at {x}", stringify!($f));
        assert_close(d, oracle, 1e-5, concat!(stringify!($f), ", forward"));
    })*};
}

/// A labelled block as a statement, left by `break 'a;` (Swift's `cond4_var`).
#[differentiable]
fn labelled_block_statement(x: f64) -> f64 {
    let mut outer = x;
    'outer_if: {
        let mut inner = outer;
        inner *= x;
        if x < 0.0 {
            break 'outer_if;
        }
        outer = inner;
    }
    outer
}

/// The same left from a loop inside it, and nested in another labelled block.
#[differentiable]
fn labelled_block_statement_left_from_a_loop(x: f64) -> f64 {
    let mut s = x;
    'scan: {
        for i in 0..6 {
            s = s * 1.5 + (i as f64) * x;
            if s > 4.0 {
                break 'scan;
            }
        }
        'inner: {
            if s < 1.0 {
                break 'inner;
            }
            s += s.sin();
        }
        s *= 2.0;
    }
    s * x
}

#[test]
fn return_inside_loops() {
    check!(return_in_loop, 0.5, 1.2, 3.0, -0.4);
    check!(return_from_nested_loops, 0.5, 1.2, 0.05, -0.4);
    check!(return_from_a_match_arm_in_a_while, 0.3, 0.9, -0.2);
}

#[test]
fn break_with_a_value() {
    check!(break_with_value, 0.5, 1.2, -0.4);
    check!(break_outer_with_value, 0.5, 1.3, 0.1);
}

#[test]
fn labelled_loops_and_blocks() {
    check!(labelled_break_and_continue, 0.5, 1.2, 3.0);
    check!(labelled_block, 0.5, 1.5);
    check!(labelled_block_statement, 0.5, 3.0, -0.7);
    check!(
        labelled_block_statement_left_from_a_loop,
        0.35,
        0.9,
        2.0,
        -0.5
    );
}

#[test]
fn a_variable_assigned_after_its_let() {
    check!(assigned_later, 0.7, -0.3);
    check!(assigned_later_without_a_type, 0.7, -0.3);
}

/// An early `return` of a `Vec` that the rest of the body changes: the branch gives the
/// vector twice (the result, and the variable after the `if`).
#[differentiable]
fn returned_before_it_changes(x: f64, n: usize) -> Vec<f64> {
    let mut m = vec![x; 2];
    if n < 3 {
        return m;
    }
    m[1] = x * x;
    m
}

#[test]
fn early_return_of_a_vec_changed_later() {
    for (n, want) in [(1, vec![1.0, 1.0]), (5, vec![1.0, 4.0])] {
        let x = 2.0;
        let (v, pb) = value_with_pullback!(at: x, of: |x: f64| returned_before_it_changes(x, n));
        assert_eq!(v, returned_before_it_changes(x, n));
        assert_eq!(pb(vec![1.0, 1.0]), want[0] + want[1]);
        let (v2, df) =
            value_with_differential!(at: x, of: |x: f64| returned_before_it_changes(x, n));
        assert_eq!(v2, v);
        assert_eq!(df(1.0), want);
    }
}

/// A `return` inside a block that is the body's tail, in a function and in a closure
/// given to an operator (whose body is that block).
#[differentiable]
fn return_in_tail_block(x: &[f64]) -> f64 {
    let y = 2.0;
    {
        if x.len() < 2 {
            return 0.0;
        }
        x[0] * x[1] * y
    }
}

#[test]
fn return_inside_the_tail_block() {
    let v = vec![1.0, 2.0, 3.0];
    assert_eq!(
        value_with_gradient!(at: &v, of: return_in_tail_block),
        (4.0, vec![4.0, 2.0, 0.0])
    );
    let (value, g) = value_with_gradient!(at: &v, of: |x: &[f64]| -> f64 {
        {
            if x.len() < 2 {
                return 0.0;
            }
            x[0] * x[1]
        }
    });
    assert_eq!((value, g), (2.0, vec![2.0, 1.0, 0.0]));
    let d = first_derivative!(at: 1.5, of: |x: f64| {
        if x > 10.0 {
            return x;
        }
        x * x
    });
    assert_eq!(d, 3.0);
}

/// `return` in a closure's body returns from the closure: `.map(|&x| { if x < 0.0 {
/// return 0.0; } x * x })`. The oracle is the closure written with `else`.
mod returns_from_closures {
    use diff::prelude::*;

    #[differentiable]
    fn relu_squares(p: &[f64]) -> f64 {
        p.iter()
            .map(|&x| {
                if x < 0.0 {
                    return 0.0;
                }
                x * x
            })
            .sum::<f64>()
    }

    #[differentiable]
    fn relu_squares_else(p: &[f64]) -> f64 {
        p.iter()
            .map(|&x| if x < 0.0 { 0.0 } else { x * x })
            .sum::<f64>()
    }

    #[differentiable]
    fn banded(p: &[f64]) -> f64 {
        p.iter()
            .map(|&x| {
                let y = 2.0 * x;
                match y {
                    _ if y > 3.0 => return 3.0 + (y - 3.0).ln_1p(),
                    _ if y < -3.0 => {
                        return -3.0;
                    }
                    _ => {}
                }
                let s = y.sin();
                s * y
            })
            .fold(0.0, |a, b| a + b)
    }

    fn banded_gradient(p: &[f64]) -> Vec<f64> {
        p.iter()
            .map(|&x| {
                let y = 2.0 * x;
                2.0 * if y > 3.0 {
                    1.0 / (1.0 + (y - 3.0))
                } else if y < -3.0 {
                    0.0
                } else {
                    y.cos() * y + y.sin()
                }
            })
            .collect()
    }

    #[test]
    fn a_closure_returning_early() {
        let p = vec![0.5, -1.0, 2.0, 0.0];
        let (v, g) = value_with_gradient!(at: &p, of: relu_squares);
        assert_eq!(v, relu_squares(&p));
        assert_eq!(v, relu_squares_else(&p));
        assert_eq!(g, gradient!(at: &p, of: relu_squares_else));
        assert_eq!(g, vec![1.0, 0.0, 4.0, 0.0]);
        assert_eq!(jacobian!(at: &p, of: relu_squares)[0], g);
        let q = vec![0.3, 2.5, -2.0, -0.9];
        let (v, g) = value_with_gradient!(at: &q, of: banded);
        assert_eq!(v, banded(&q));
        for (a, b) in g.iter().zip(banded_gradient(&q)) {
            assert!((a - b).abs() < 1e-12, "{g:?}");
        }
    }
}

/// A tail `match` whose arm is a block exiting early, then giving its value.
#[differentiable]
fn arm_block_returning_early(x: &[f64]) -> f64 {
    let acc = x[0] * x[0];
    match x.len() {
        1 => {
            if acc > 3.0 {
                return acc * 2.0;
            }
            acc + x[0]
        }
        _ => x[1] * acc,
    }
}

/// An assignment (and a compound one) of a `match` with an arm exiting the function.
#[differentiable]
fn assigned_match_exiting(xs: &[f64]) -> f64 {
    let mut acc = 0.0;
    let mut k = 0;
    let mut w = 1.0;
    for &v in xs {
        k = match k {
            3 => return acc + v,
            n => n + 1,
        };
        w *= match k {
            2 => {
                if v > 10.0 {
                    return w;
                }
                v
            }
            _ => 1.0,
        };
        acc += v * v * w;
    }
    acc
}

#[test]
fn exits_in_tail_arms_and_in_assigned_values() {
    let plain_arm = |x: &[f64]| {
        let acc = x[0] * x[0];
        if x.len() == 1 {
            if acc > 3.0 {
                acc * 2.0
            } else {
                acc + x[0]
            }
        } else {
            x[1] * acc
        }
    };
    for x in [vec![1.5], vec![2.5], vec![1.5, 3.0]] {
        let (v, g) = value_with_gradient!(at: &x, of: arm_block_returning_early);
        assert_close(v, plain_arm(&x), 1e-15, "value");
        assert_vec_close(&g, &fd_grad(plain_arm, &x), 1e-6, "gradient");
    }
    let plain_assigned = |xs: &[f64]| {
        let (mut acc, mut k, mut w) = (0.0, 0, 1.0);
        for &v in xs {
            if k == 3 {
                return acc + v;
            }
            k += 1;
            if k == 2 {
                if v > 10.0 {
                    return w;
                }
                w *= v;
            }
            acc += v * v * w;
        }
        acc
    };
    for xs in [
        vec![1.0, 2.0, 3.0, 4.0, 5.0],
        vec![1.0, 20.0, 3.0],
        vec![1.0, 2.0],
    ] {
        let (v, g) = value_with_gradient!(at: &xs, of: assigned_match_exiting);
        assert_close(v, plain_assigned(&xs), 1e-15, "value");
        assert_vec_close(&g, &fd_grad(plain_assigned, &xs), 1e-6, "gradient");
        let d = differential!(at: &xs, of: assigned_match_exiting);
        let ones = vec![1.0; xs.len()];
        assert_close(d(ones), g.iter().sum(), 1e-12, "forward");
    }
}
