//! A `&mut` parameter bound to another name, or given a new reference, is refused: writes
//! through the new name would not reach the pointee.
use diff::prelude::*;

#[derive(Differentiable, Clone, Debug)]
struct Point {
    x: f64,
}

#[differentiable]
fn moved(p: &mut Point, k: f64) {
    let q = p;
    q.x = q.x * k;
}

#[differentiable]
fn reseated<'a>(mut a: &'a mut f64, b: &'a mut f64) {
    *a = 2.0 * *a;
    a = b;
    *a = 3.0 * *a;
}

fn main() {}
