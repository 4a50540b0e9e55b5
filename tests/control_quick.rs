#![allow(clippy::assign_op_pattern)]
use diff::prelude::*;

#[differentiable]
fn softplus(x: f64) -> f64 {
    (1.0 + x.exp()).ln()
}

#[differentiable]
fn f(x: f64, y: f64, n: usize) -> f64 {
    let mut acc = y;
    for i in 0..n {
        if acc > x {
            acc = acc * 0.5 + x.sin();
        } else {
            acc += softplus(x * y) * (i as f64);
        }
    }
    acc * acc
}

#[test]
fn loop_with_branch() {
    for &(x, y) in &[(0.3, 0.7), (-0.4, 1.3), (1.1, -0.2)] {
        let n = 50;
        let (gx, gy) = gradient!(at: (x, y, n), of: f);
        let h = 1e-6;
        let fx = (f(x + h, y, n) - f(x - h, y, n)) / (2.0 * h);
        let fy = (f(x, y + h, n) - f(x, y - h, n)) / (2.0 * h);
        assert!((gx - fx).abs() < 1e-4 * (1.0 + fx.abs()), "{gx} {fx}");
        assert!((gy - fy).abs() < 1e-4 * (1.0 + fy.abs()), "{gy} {fy}");
        let (v, df) = value_with_differential!(at: (x, y, n), of: f);
        assert_eq!(v, f(x, y, n));
        let d = df((0.3, -0.7));
        assert!((d - (0.3 * gx - 0.7 * gy)).abs() < 1e-9 * (1.0 + d.abs()));
    }
}

#[differentiable]
fn guard(x: f64) -> f64 {
    if x < 0.0 {
        return -x * 2.0;
    }
    let y = x * x;
    if y > 4.0 {
        return y.sqrt() * 3.0;
    }
    y + 1.0
}

#[differentiable]
fn newton_like(x: f64) -> f64 {
    let mut y = x;
    let mut k = 0;
    while y > 1.0 {
        y = y * 0.5;
        k += 1;
    }
    let mut acc = 0.0;
    loop {
        acc = acc + y * x;
        k += 1;
        if k > 6 {
            break;
        }
        if k % 2 == 0 {
            continue;
        }
        acc = acc * 1.5;
    }
    acc
}

fn fd(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    let h = 1e-6;
    (f(x + h) - f(x - h)) / (2.0 * h)
}

#[test]
fn early_return_while_loop_break_continue() {
    for x in [-1.5, 0.5, 1.5, 3.0, 7.3] {
        let g = gradient!(at: x, of: guard);
        assert!((g - fd(guard, x)).abs() < 1e-5, "guard {x}: {g}");
        assert_eq!(first_derivative!(at: x, of: guard), g);
        let g = gradient!(at: x, of: newton_like);
        assert!(
            (g - fd(newton_like, x)).abs() < 1e-4 * (1.0 + g.abs()),
            "newton {x}: {g} vs {}",
            fd(newton_like, x)
        );
        let d = first_derivative!(at: x, of: newton_like);
        assert!((g - d).abs() < 1e-9 * (1.0 + g.abs()));
    }
}

#[differentiable]
fn matcher(x: f64, k: i32, o: Option<f64>) -> f64 {
    let base = match k {
        0 => x * x,
        1 | 2 => x.sin() * 2.0,
        n if n < 0 => x * (n as f64),
        _ => 1.0,
    };
    let extra = match o {
        Some(c) => c * x,
        None => 0.0,
    };
    let mut acc = base;
    match x > 0.5 {
        true => acc += extra,
        false => acc -= extra * x,
    }
    acc
}

#[test]
fn match_arms() {
    for k in [-2, 0, 1, 2, 5] {
        for o in [None, Some(1.5)] {
            for x in [0.2, 0.9] {
                let g = gradient!(at: (x, k, o), of: matcher);
                let num = fd(|x| matcher(x, k, o), x);
                assert!((g - num).abs() < 1e-5, "{k} {o:?} {x}: {g} vs {num}");
                let (_, df) = value_with_differential!(at: (x, k, o), of: matcher);
                assert!((df(1.0) - g).abs() < 1e-12);
            }
        }
    }
}

#[differentiable]
fn carried_feeds(x: f64, n: usize) -> f64 {
    let mut p = 1.0;
    let mut acc = 0.0;
    for _ in 0..n {
        p = p * x;
        acc += p;
    }
    acc
}

#[differentiable]
fn nested_while(x: f64) -> f64 {
    let mut i = 0;
    let mut acc = 0.0;
    while i < 3 {
        let mut j = 0;
        while j < 2 {
            acc = acc + x * 0.1;
            j += 1;
        }
        i += 1;
    }
    acc
}

#[differentiable]
fn rem_and_ints(x: f64, n: i32) -> f64 {
    let m = n % 4;
    let r = x % 1.5;
    match m {
        0 => r * x,
        _ => r + x,
    }
}

#[differentiable]
fn slice_loop(xs: &[f64]) -> f64 {
    let mut s = 0.0;
    for &v in xs {
        s += v * v;
    }
    for v in xs {
        s += *v;
    }
    s
}

#[differentiable]
fn whole_binding(x: f64) -> f64 {
    match x {
        v if v < 0.0 => -v * 2.0,
        v => v * v,
    }
}

#[test]
fn fixed_control_flow_bugs() {
    for x in [0.3, 1.7] {
        let n = 4;
        let g = gradient!(at: (x, n), of: carried_feeds);
        let d = first_derivative!(at: x, of: |x| carried_feeds(x, 4));
        let expect = 1.0 + 2.0 * x + 3.0 * x * x + 4.0 * x * x * x;
        assert!((g - expect).abs() < 1e-12 && (d - expect).abs() < 1e-12);
        assert!((nested_while(x) - 6.0 * x * 0.1).abs() < 1e-12);
        assert!((gradient!(at: x, of: nested_while) - 0.6).abs() < 1e-12);
        for n in [0, 1, 5] {
            let g = gradient!(at: (x, n), of: rem_and_ints);
            let num = fd(|x| rem_and_ints(x, n), x);
            assert!((g - num).abs() < 1e-5, "{g} {num}");
        }
    }
    let xs = vec![1.0, -2.0];
    assert_eq!(gradient!(at: &xs, of: slice_loop), vec![3.0, -3.0]);
    assert_eq!(gradient!(at: -1.0, of: whole_binding), -2.0);
    assert_eq!(gradient!(at: 3.0, of: whole_binding), 6.0);
}

#[differentiable]
fn pow_rec(x: f64, n: u32) -> f64 {
    if n == 0 {
        1.0
    } else {
        x * pow_rec(x, n - 1)
    }
}

#[differentiable]
fn sum_rec(xs: &[f64], i: usize) -> f64 {
    if i >= xs.len() {
        return 0.0;
    }
    xs[i].sin() + sum_rec(xs, i + 1)
}

#[test]
fn recursion() {
    for x in [0.5, 1.3] {
        let g = gradient!(at: (x, 5), of: pow_rec);
        assert!((g - 5.0 * x.powi(4)).abs() < 1e-12);
        let d = first_derivative!(at: x, of: |x| pow_rec(x, 5));
        assert!((d - 5.0 * x.powi(4)).abs() < 1e-12);
    }
    let xs = vec![0.1, 0.2, 0.3];
    let g = gradient!(at: (&xs, 0), of: sum_rec);
    assert_eq!(g, xs.iter().map(|x| x.cos()).collect::<Vec<_>>());
}

#[differentiable]
fn if_let_and_while_let(x: f64, o: Option<f64>, n: usize) -> f64 {
    let mut acc = if let Some(c) = o { c * x } else { x };
    let mut k = n;
    while let Some(j) = k.checked_sub(1) {
        acc = acc * x + (j as f64);
        k = j;
    }
    for i in 0..n {
        if i % 2 == 0 {
            acc += x * (i as f64);
        }
    }
    acc
}

#[test]
fn if_let_while_let() {
    for (o, n) in [(None, 0), (Some(2.0), 3)] {
        let x = 0.8;
        let g = gradient!(at: (x, o, n), of: if_let_and_while_let);
        let num = fd(|x| if_let_and_while_let(x, o, n), x);
        assert!((g - num).abs() < 1e-6, "{g} {num}");
    }
}

#[differentiable]
fn local_closures(x: f64, k: f64) -> f64 {
    let sq = |t: f64| t * t * k;
    let mut acc = 0.0;
    for i in 0..3 {
        if i != 1 {
            acc += sq(x + i as f64);
        }
    }
    acc
}

#[test]
fn closures_called_in_the_body_are_inlined() {
    let (gx, gk) = gradient!(at: (0.5, 2.0), of: local_closures);
    // k * (x^2 + (x+2)^2)
    assert!((gx - 2.0 * (2.0 * 0.5 + 2.0 * 2.5)).abs() < 1e-12);
    assert!((gk - (0.25 + 6.25)).abs() < 1e-12);
}

#[differentiable]
fn match_return(x: f64, k: i32) -> f64 {
    let mut y = x;
    match k {
        0 => {
            return x.sqrt();
        }
        1 => return x * 3.0,
        _ => {
            y = y * 2.0;
        }
    }
    let z = match k {
        2 => y,
        _ => y + 1.0,
    };
    z * x
}

#[test]
fn match_arms_may_return() {
    assert!((gradient!(at: (4.0, 0), of: match_return) - 0.25).abs() < 1e-12);
    assert_eq!(gradient!(at: (4.0, 1), of: match_return), 3.0);
    assert_eq!(gradient!(at: (4.0, 2), of: match_return), 16.0);
    assert_eq!(gradient!(at: (4.0, 5), of: match_return), 17.0);
    assert_eq!(first_derivative!(at: 4.0, of: |x| match_return(x, 5)), 17.0);
}
