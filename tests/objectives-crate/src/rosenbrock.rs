use diff::prelude::*;
use num_traits::Float;

/// Rosenbrock's function, generic over its scalar as argmin writes it.
#[differentiable]
pub fn rosenbrock<T: Float>(param: &[T]) -> T {
    let one = T::one();
    let hundred = T::from(100.0).unwrap();
    param
        .iter()
        .zip(param.iter().skip(1))
        .map(|(&xi, &xi1)| (one - xi).powi(2) + hundred * (xi1 - xi.powi(2)).powi(2))
        .fold(T::zero(), |acc, v| acc + v)
}
