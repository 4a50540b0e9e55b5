//! Forward-mode tangent rules of the arithmetic operators, on optional tangents (`None`
//! is zero). Generated code calls them instead of writing `d.map(|x| x * b)`, so rustc
//! need not know a tangent's type where the rule is used.
use core::ops::{Div, Mul, Neg};

/// `da`.
#[inline(always)]
pub fn tid<T>(d: Option<T>) -> Option<T> {
    d
}

/// `-db` (the right operand of a subtraction, or a negation).
pub use crate::__private::tneg;

/// `da * b`.
#[inline(always)]
pub fn tmul_r<T: Mul<B, Output = T>, B>(d: Option<T>, b: B) -> Option<T> {
    d.map(|x| x * b)
}

/// `a * db`.
#[inline(always)]
pub fn tmul_l<T, A: Mul<T, Output = T>>(d: Option<T>, a: A) -> Option<T> {
    d.map(|x| a * x)
}

/// `da / b`.
#[inline(always)]
pub fn tdiv<T: Div<B, Output = T>, B>(d: Option<T>, b: B) -> Option<T> {
    d.map(|x| x / b)
}

/// `-(db * y / b)`: the denominator's part of `y = a / b`.
#[inline(always)]
pub fn tdiv_den<T, B>(d: Option<T>, y: B, b: B) -> Option<T>
where
    T: Mul<B, Output = T> + Div<B, Output = T> + Neg<Output = T>,
{
    d.map(|x| -(x * y / b))
}

/// `-(db * trunc(a / b))`: the divisor's part of `a % b`.
#[inline(always)]
pub fn trem_den<T, B>(d: Option<T>, a: B, b: B) -> Option<T>
where
    T: Mul<B, Output = T> + Neg<Output = T>,
    B: num_traits::Float,
{
    d.map(|x| -(x * (a / b).trunc()))
}

/// `da as F`, between float types.
#[inline(always)]
pub fn tcast<T: num_traits::NumCast, F: num_traits::NumCast>(d: Option<T>) -> Option<F> {
    d.map(|x| crate::__private::cast_like(x, &F::from(0.0).expect("a float type")))
}
