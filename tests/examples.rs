//! Smoke tests: the examples run to their end (each checks its own results with asserts).
//! `quickstart` is the README's code verbatim (with a private `main`); its checks are the
//! README's and `tests/reverse.rs`'s.

#[path = "../examples/rosenbrock_descent.rs"]
mod rosenbrock_descent;

#[path = "../examples/custom_derivative.rs"]
mod custom_derivative;

#[test]
fn rosenbrock_descent_runs() {
    rosenbrock_descent::main();
}

#[test]
fn custom_derivative_runs() {
    custom_derivative::main();
}
