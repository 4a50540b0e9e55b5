//! A parameter that is a tuple of references (rustc's `std::autodiff` test
//! `abi_handling.rs`): refused at the parameter, with what to write instead.
use diff::prelude::*;

#[differentiable]
fn f7(x: (&f32, &f32)) -> f32 {
    x.0 * x.1
}

#[differentiable]
fn f8(x: &(f32, f32)) -> f32 {
    x.0 * x.1
}

fn main() {
    println!("{}", f7((&2.0, &3.0)));
    println!("{:?}", gradient!(at: &(2.0f32, 3.0f32), of: f8));
}
