use diff::prelude::*;

enum Shape {
    Circle(f64),
    Rect(f64, f64),
}

#[differentiable]
fn area(x: f64) -> f64 {
    let s = if x > 0.0 { Shape::Circle(x) } else { Shape::Rect(x, 2.0) };
    match s {
        Shape::Circle(r) => 3.14 * r * r,
        Shape::Rect(w, h) => w * h,
    }
}

fn main() {
    let _ = gradient!(at: 1.0, of: area);
}
