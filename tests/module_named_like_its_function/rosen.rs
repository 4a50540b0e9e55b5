//! A file module holding a function of its own name, as argmin's test functions are
//! laid out (`mod rosen;` and `pub use rosen::*;` in the parent).
use diff::prelude::*;
use num_traits::{Float, FromPrimitive};

/// The Rosenbrock function, generic over its float.
#[differentiable]
pub fn rosen<T: Float + FromPrimitive>(param: &[T]) -> T {
    let (a, b) = (T::from_f64(1.0).unwrap(), T::from_f64(100.0).unwrap());
    param
        .iter()
        .zip(param.iter().skip(1))
        .map(|(&x, &y)| (a - x).powi(2) + b * (y - x.powi(2)).powi(2))
        .fold(T::zero(), |acc, v| acc + v)
}

/// Its other functions keep their usual companions.
#[differentiable]
pub fn rosen_scaled(param: &[f64], k: f64) -> f64 {
    k * rosen(param)
}
