//! Smoke tests: the examples run to their end (each checks its own results with asserts).
//! `quickstart` keeps the private `main` the README shows; `cargo test` only builds it.

#[path = "../examples/rosenbrock_descent.rs"]
mod rosenbrock_descent;

#[path = "../examples/custom_derivative.rs"]
mod custom_derivative;

#[path = "../examples/option_greeks.rs"]
mod option_greeks;

#[path = "../examples/newton.rs"]
mod newton;

#[path = "../examples/logistic_regression.rs"]
mod logistic_regression;

#[path = "../examples/inverse_kinematics.rs"]
mod inverse_kinematics;

#[path = "../examples/mlp.rs"]
mod mlp;

#[path = "../examples/fit_ode.rs"]
mod fit_ode;

#[test]
fn rosenbrock_descent_runs() {
    rosenbrock_descent::main();
}

#[test]
fn custom_derivative_runs() {
    custom_derivative::main();
}

#[test]
fn option_greeks_runs() {
    option_greeks::main();
}

#[test]
fn newton_runs() {
    newton::main();
}

#[test]
fn logistic_regression_runs() {
    logistic_regression::main();
}

#[test]
fn inverse_kinematics_runs() {
    inverse_kinematics::main();
}

#[test]
fn mlp_runs() {
    mlp::main();
}

#[test]
fn fit_ode_runs() {
    fit_ode::main();
}
