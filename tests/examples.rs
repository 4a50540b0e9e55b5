//! Smoke tests: the examples run to their end (each checks its own results with asserts).
//! `quickstart` keeps the private `main` the README shows; `cargo test` only builds it.

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
