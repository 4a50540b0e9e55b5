// Scalar rules: each partial reads only what it needs; constants are recomputed.
fn products(x: f64, y: f64) -> f64 {
    let a = x * y;
    let b = a / y;
    let c = -b % 2.0;
    c * 3.0 + (x as f32) as f64
}

// An inactive parameter: `n` is varied nowhere, so `x * n` reads only `n`.
fn scaled(x: f64, n: f64) -> f64 {
    no_derivative(n) * x
}
