use diff::prelude::*;

#[differentiable]
fn row_written_through_a_name(x: f64) -> f64 {
    let mut m = vec![vec![1.0, 2.0], vec![3.0, 4.0]];
    let row = &mut m[1];
    row[0] = x * x;
    m[1][0] + m[0][0]
}

#[differentiable]
fn last_element_through_a_view(x: f64) -> f64 {
    let mut v = vec![1.0, 2.0];
    v.last_mut().unwrap().clone_from(&x);
    v[0] + v[1]
}

fn main() {}
