//! Four nested loops with `f64` arithmetic, a slice parameter, branches and an early
//! `continue`, as in a small convolution or a pairwise energy.
#[allow(unused_imports)]
use diff::prelude::*;

/// A weighted sum over `n^4` index combinations of the entries of `w`.
#[cfg_attr(feature = "ad", differentiable)]
pub fn nested_loops(w: &[f64], x: f64, y: f64, n: usize) -> f64 {
    let m = w.len();
    let mut acc = 0.0;
    for i in 0..n {
        let mut row = w[i % m] * x;
        for j in 0..n {
            let mut cell = w[(i * n + j) % m] * y + row * 0.5;
            for k in 0..n {
                let mut inner = 0.0;
                for l in 0..n {
                    let t = w[(i + j + k + l) % m];
                    if t > 0.0 {
                        inner += t * cell.sin() + x * y;
                    } else {
                        inner -= t * x;
                    }
                    if l % 3 == 2 {
                        continue;
                    }
                    cell = cell * 0.9 + inner * 0.01;
                }
                let s = inner * inner + cell.exp().ln_1p();
                row = row.mul_add(0.5, s / (1.0 + (k as f64)));
            }
            acc += row.tanh() * w[j % m] + cell.hypot(y);
        }
        acc = acc * 0.5 + row.max(x);
    }
    acc
}
