// Field, element, tuple and array rules and their setters.
fn parts(v: Vec<f64>, i: usize) -> f64 {
    let mut w = v.clone();
    w[i] = w[0] * 2.0;
    let t = (w[i], 1.0);
    t.0 * t.1
}

fn array(x: f64, y: f64) -> f64 {
    let a = [x, y];
    a[0] * a[1]
}
