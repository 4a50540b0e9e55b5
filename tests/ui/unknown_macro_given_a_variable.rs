//! A statement calling a macro of the user's with a variable of the function: the
//! attribute sees the call, not what it expands to (`$v += $by` would change `y` behind
//! the derivatives' back), so it is refused at the macro. Printing and assertions are
//! known to change nothing.
use diff::prelude::*;

macro_rules! bump {
    ($v:expr, $by:expr) => {
        $v += $by
    };
}

#[differentiable]
fn bumped(x: f64) -> f64 {
    let mut y = x;
    bump!(y, x * x);
    println!("{y}");
    assert!(y.is_finite(), "{}", y);
    y
}

fn main() {}
