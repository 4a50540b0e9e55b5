// A branch saves which way it went; a loop saves one struct per iteration on a tape, and
// a loop-invariant value once, outside it.
fn branch(x: f64) -> f64 {
    if x > 0.0 {
        x * x
    } else {
        -x
    }
}

fn power(x: f64, k: f64, n: usize) -> f64 {
    let s = k * 2.0;
    let mut p = 1.0;
    for _ in 0..n {
        p = p * x * s;
    }
    p
}

fn choose(x: f64, m: u8) -> f64 {
    match m {
        0 => x.sin(),
        _ => x,
    }
}

// Nested loops, the inner one updating an outer variable and breaking.
fn nested(x: f64, n: usize) -> f64 {
    let mut s = 0.0;
    let mut prev = x;
    for i in 0..n {
        let mut t = prev;
        for j in 0..i {
            t = t * x;
            if t > 10.0 {
                break;
            }
            s += t * j as f64;
        }
        prev = t;
        while s > 100.0 {
            s = s / 2.0;
        }
    }
    s + prev
}
