// Every refusal of a body is reported, each once (a loop body is lowered twice).
fn two_refusals(x: f64) -> f64 {
    let a = unsafe { core::ptr::read(&x) };
    let mut s = 0.0;
    for _ in 0..3 {
        s += async { a }.len();
    }
    let Some(ref b) = Some(x) else { return 0.0 };
    a * b + s
}

// Refused after activity: an active value through a macro call.
fn through_macro(x: f64) -> f64 {
    format!("{x}").len() as f64 * x + twice!(x)
}
