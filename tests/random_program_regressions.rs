#![allow(clippy::assign_op_pattern, unused_assignments)]
//! Minimal reproductions of what the random-program tester (tests/fuzz) found, kept as
//! regressions. Values are checked bit for bit against the original function and
//! derivatives against central finite differences, in both modes.
mod common;
use common::{assert_close, fd};
use diff::prelude::*;

fn check(
    name: &str,
    f: impl Fn(f64, f64) -> f64,
    at: (f64, f64),
    rev: (f64, (f64, f64)),
    fwd: (f64, f64),
) {
    let (x, y) = at;
    assert_eq!(rev.0.to_bits(), f(x, y).to_bits(), "{name}: value");
    assert_eq!(fwd.0.to_bits(), f(x, y).to_bits(), "{name}: forward value");
    let (dx, dy) = (fd(|x| f(x, y), x), fd(|y| f(x, y), y));
    assert_close(rev.1 .0, dx, 1e-7, &format!("{name}: dx"));
    assert_close(rev.1 .1, dy, 1e-7, &format!("{name}: dy"));
    assert_close(fwd.1, dx, 1e-7, &format!("{name}: forward dx"));
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
