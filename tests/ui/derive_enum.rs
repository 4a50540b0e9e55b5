//! `#[derive(Differentiable)]` supports structs only.
use diff::prelude::*;

#[derive(Differentiable)]
enum Activation {
    Relu,
    Tanh,
}

fn main() {}
