//! [`Dual`], a forward-mode dual number `re + eps·ε` (`ε² = 0`): its conversions and its
//! tangent algebra. Its arithmetic operators and its [`num_traits::Float`] implementation
//! are built from the rule table, in `dual_float.rs`.
//!
//! Running code generic over `T: Float` with `T = Dual<f64>` computes, next to each value,
//! its derivative along the direction the inputs' `eps` parts were set to. Running a
//! reverse-mode companion that way (forward over reverse) gives a Hessian column.

use core::cmp::Ordering;
use core::fmt;
use core::iter::{Product, Sum};
use core::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Rem, RemAssign};
use core::ops::{Neg, Sub, SubAssign};

use crate::lift::Lift;

use num_traits::{Float, FromPrimitive, Num, NumCast, One, ToPrimitive, Zero};

use crate::{Differentiable, InnerProduct, VectorSpace};

/// A dual number `re + eps·ε` with `ε² = 0`: a value and its derivative along one
/// direction (forward mode).
///
/// Comparisons (`==`, `<`, ...) look at the value `re` only, so that code branching on
/// values (`if x == T::zero()`, `a.max(b)`) takes the same branch as with plain floats.
#[derive(Clone, Copy, Debug, Default)]
pub struct Dual<T> {
    /// The value.
    pub re: T,
    /// The derivative (the dual part).
    pub eps: T,
}

impl<T> Dual<T> {
    /// The dual number `re + eps·ε`.
    #[inline(always)]
    pub const fn new(re: T, eps: T) -> Self {
        Dual { re, eps }
    }
}

impl<T: Zero> Dual<T> {
    /// A constant: the dual part is zero.
    #[inline(always)]
    pub fn constant(re: T) -> Self {
        Dual::new(re, T::zero())
    }
}

impl<T: Zero + One> Dual<T> {
    /// The variable being differentiated with respect to: the dual part is one.
    #[inline(always)]
    pub fn variable(re: T) -> Self {
        Dual::new(re, T::one())
    }
}

impl<T: Zero> From<T> for Dual<T> {
    /// A constant.
    #[inline(always)]
    fn from(re: T) -> Self {
        Dual::constant(re)
    }
}

impl<T: fmt::Display> fmt::Display for Dual<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} + {}ε", self.re, self.eps)
    }
}

/// Compares the values `re` only (the dual parts are ignored).
impl<T: PartialEq> PartialEq for Dual<T> {
    #[inline(always)]
    fn eq(&self, other: &Self) -> bool {
        self.re == other.re
    }
}

/// Orders by the values `re` only (the dual parts are ignored).
impl<T: PartialOrd> PartialOrd for Dual<T> {
    #[inline(always)]
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        self.re.partial_cmp(&other.re)
    }
}

// Comparisons with a plain scalar on the right (`x.abs() < EPS` in a function written for
// `f64`, run on dual numbers for second order): the values only, like comparisons between
// dual numbers. (Not the other way round: `f64: PartialEq<Dual<f64>>` would make
// comparisons of plain floats with an inferred right side ambiguous.)
macro_rules! scalar_comparisons {
    ($($s:ty),*) => {$(
        impl PartialEq<$s> for Dual<$s> {
            #[inline(always)]
            fn eq(&self, other: &$s) -> bool {
                self.re == *other
            }
        }
        impl PartialOrd<$s> for Dual<$s> {
            #[inline(always)]
            fn partial_cmp(&self, other: &$s) -> Option<Ordering> {
                self.re.partial_cmp(other)
            }
        }
    )*};
}
scalar_comparisons!(f32, f64);

macro_rules! total_order {
    ($($s:ty),*) => {$(
        impl Dual<$s> {
            /// The total order of the values (`f64::total_cmp`), the dual parts ignored.
            #[inline(always)]
            pub fn total_cmp(&self, other: &Self) -> Ordering {
                self.re.total_cmp(&other.re)
            }
        }
    )*};
}
total_order!(f32, f64);

// ---- arithmetic between dual numbers: `Neg`, `Add`, `Sub`, `Mul`, `Div` and `Rem` are
// built from the rule table in `dual_float.rs` ----

macro_rules! assign_ops {
    ($($tr:ident $method:ident $op:tt),*) => {$(
        impl<T: Float> $tr for Dual<T> {
            #[inline(always)]
            fn $method(&mut self, b: Self) {
                *self = *self $op b;
            }
        }
    )*};
}
assign_ops!(AddAssign add_assign +, SubAssign sub_assign -, MulAssign mul_assign *,
    DivAssign div_assign /, RemAssign rem_assign %);

// ---- mixed arithmetic with plain scalars: the scalar is a constant ----

macro_rules! scalar_ops {
    ($($s:ty),*) => {$(
        scalar_ops!(@ops $s: Add add AddAssign add_assign, Sub sub SubAssign sub_assign,
            Mul mul MulAssign mul_assign, Div div DivAssign div_assign,
            Rem rem RemAssign rem_assign);
    )*};
    (@ops $s:ty: $($tr:ident $method:ident $assign_tr:ident $assign:ident),*) => {$(
        impl $tr<$s> for Dual<$s> {
            type Output = Self;
            #[inline(always)]
            fn $method(self, b: $s) -> Self {
                $tr::$method(self, Dual::constant(b))
            }
        }
        impl $tr<Dual<$s>> for $s {
            type Output = Dual<$s>;
            #[inline(always)]
            fn $method(self, b: Dual<$s>) -> Dual<$s> {
                $tr::$method(Dual::constant(self), b)
            }
        }
        impl $assign_tr<$s> for Dual<$s> {
            #[inline(always)]
            fn $assign(&mut self, b: $s) {
                *self = $tr::$method(*self, b);
            }
        }
    )*};
}
scalar_ops!(f32, f64);

// ---- the same through references, as `f64` has them (`for x in xs { s += x - 1.0 }`
// in a function written for `f64`, run on dual numbers for second order) ----

macro_rules! reference_ops {
    ($($s:ty),*) => {$(
        reference_ops!(@ops $s: Add add, Sub sub, Mul mul, Div div, Rem rem);
        reference_ops!(@assign $s: AddAssign add_assign +, SubAssign sub_assign -,
            MulAssign mul_assign *, DivAssign div_assign /, RemAssign rem_assign %);
        impl Neg for &Dual<$s> {
            type Output = Dual<$s>;
            #[inline(always)]
            fn neg(self) -> Dual<$s> {
                -*self
            }
        }
    )*};
    (@ops $s:ty: $($tr:ident $method:ident),*) => {$(
        reference_ops!(@one $s, $tr $method, &Dual<$s>, Dual<$s>, *);
        reference_ops!(@one $s, $tr $method, Dual<$s>, &Dual<$s>, +);
        reference_ops!(@one $s, $tr $method, &Dual<$s>, &Dual<$s>, *);
        reference_ops!(@one $s, $tr $method, &Dual<$s>, $s, *);
        reference_ops!(@one $s, $tr $method, &Dual<$s>, &$s, *);
        reference_ops!(@one $s, $tr $method, Dual<$s>, &$s, +);
        reference_ops!(@one $s, $tr $method, &$s, Dual<$s>, *);
        reference_ops!(@one $s, $tr $method, &$s, &Dual<$s>, *);
        reference_ops!(@one $s, $tr $method, $s, &Dual<$s>, +);
    )*};
    (@assign $s:ty: $($tr:ident $method:ident $op:tt),*) => {$(
        impl $tr<&Dual<$s>> for Dual<$s> {
            #[inline(always)]
            fn $method(&mut self, b: &Dual<$s>) {
                *self = *self $op *b;
            }
        }
        impl $tr<&$s> for Dual<$s> {
            #[inline(always)]
            fn $method(&mut self, b: &$s) {
                *self = *self $op *b;
            }
        }
    )*};
    (@one $s:ty, $tr:ident $method:ident, $a:ty, $b:ty, $_m:tt) => {
        impl $tr<$b> for $a {
            type Output = Dual<$s>;
            #[inline(always)]
            fn $method(self, b: $b) -> Dual<$s> {
                $tr::$method(Lift::<$s>::lift(self), Lift::<$s>::lift(b))
            }
        }
    };
}
reference_ops!(f32, f64);

impl<T: Float> Sum for Dual<T> {
    fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(<Self as Zero>::zero(), |a, b| a + b)
    }
}

impl<'a, T: Float> Sum<&'a Dual<T>> for Dual<T> {
    fn sum<I: Iterator<Item = &'a Self>>(iter: I) -> Self {
        iter.fold(<Self as Zero>::zero(), |a, b| a + *b)
    }
}

impl<T: Float> Product for Dual<T> {
    fn product<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(Self::one(), |a, b| a * b)
    }
}

impl<'a, T: Float> Product<&'a Dual<T>> for Dual<T> {
    fn product<I: Iterator<Item = &'a Self>>(iter: I) -> Self {
        iter.fold(Self::one(), |a, b| a * *b)
    }
}

// ---- num-traits: the numeric traits below `Float` ----

impl<T: Float> Zero for Dual<T> {
    #[inline(always)]
    fn zero() -> Self {
        Dual::new(T::zero(), T::zero())
    }
    /// Whether the value is zero (the dual part is ignored, as by `==`).
    #[inline(always)]
    fn is_zero(&self) -> bool {
        self.re.is_zero()
    }
}

impl<T: Float> One for Dual<T> {
    #[inline(always)]
    fn one() -> Self {
        Dual::constant(T::one())
    }
}

impl<T: Float> Num for Dual<T> {
    type FromStrRadixErr = T::FromStrRadixErr;
    /// Parses a constant.
    fn from_str_radix(s: &str, radix: u32) -> Result<Self, Self::FromStrRadixErr> {
        T::from_str_radix(s, radix).map(Dual::constant)
    }
}

macro_rules! to_primitive {
    ($($method:ident -> $t:ty),*) => {$(
        #[inline(always)]
        fn $method(&self) -> Option<$t> {
            self.re.$method()
        }
    )*};
}

/// Converts the value `re`. To an integer the dual part is dropped (an index computed from
/// a value has no derivative); to a float it cannot be, since a float carrying it on would
/// be wrong without a word: a conversion of a value whose dual part is not zero to `f32`
/// or `f64` (`x.to_f64()`, `T::from(x)`, `NumCast`, in a function generic over its float
/// run at second order) stops with the reason.
impl<T: Float> ToPrimitive for Dual<T> {
    to_primitive!(to_isize -> isize, to_i8 -> i8, to_i16 -> i16, to_i32 -> i32,
        to_i64 -> i64, to_i128 -> i128, to_usize -> usize, to_u8 -> u8, to_u16 -> u16,
        to_u32 -> u32, to_u64 -> u64, to_u128 -> u128);
    #[inline(always)]
    #[track_caller]
    fn to_f32(&self) -> Option<f32> {
        self.without_derivative().re.to_f32()
    }
    #[inline(always)]
    #[track_caller]
    fn to_f64(&self) -> Option<f64> {
        self.without_derivative().re.to_f64()
    }
}

std::thread_local! {
    /// Set while [`values_only`] runs.
    static VALUES_ONLY: core::cell::Cell<bool> = const { core::cell::Cell::new(false) };
}

/// Runs `f` with dual numbers converting to plain floats by their values, dropping their
/// dual parts: for the adjoint of a value converted from a plain float (`T::from(c)` of
/// a constant `c`), whose dual part has nowhere to go, as the plain float carries none.
pub(crate) fn values_only<R>(f: impl FnOnce() -> R) -> R {
    let before = VALUES_ONLY.with(|v| v.replace(true));
    let r = f();
    VALUES_ONLY.with(|v| v.set(before));
    r
}

impl<T: Float> Dual<T> {
    /// `self`, when its dual part is zero (see `ToPrimitive for Dual`).
    #[inline(always)]
    #[track_caller]
    fn without_derivative(&self) -> &Self {
        if !self.eps.is_zero() && !VALUES_ONLY.with(core::cell::Cell::get) {
            panic!("diff: second order (hessian!, second_derivative!, a nested operator) converts a value carrying a derivative to a plain float (`x.to_f64()`, `T::from(x)`, `NumCast::from(x)` in a function generic over its float), which would lose the derivative; keep the value in `T` (drop the conversion) for second order (where: the location this panic gives, or with RUST_BACKTRACE=1 the first frame outside diff and num-traits)");
        }
        self
    }
}

/// Converts to a constant.
impl<T: Float> NumCast for Dual<T> {
    #[inline(always)]
    fn from<N: ToPrimitive>(n: N) -> Option<Self> {
        <T as NumCast>::from(n).map(Dual::constant)
    }
}

macro_rules! from_primitive {
    ($($method:ident($t:ty)),*) => {$(
        #[inline(always)]
        fn $method(n: $t) -> Option<Self> {
            <T as NumCast>::from(n).map(Dual::constant)
        }
    )*};
}

/// Converts to a constant.
impl<T: Float> FromPrimitive for Dual<T> {
    from_primitive!(
        from_isize(isize),
        from_i8(i8),
        from_i16(i16),
        from_i32(i32),
        from_i64(i64),
        from_i128(i128),
        from_usize(usize),
        from_u8(u8),
        from_u16(u16),
        from_u32(u32),
        from_u64(u64),
        from_u128(u128),
        from_f32(f32),
        from_f64(f64)
    );
}

// ---- tangent algebra: a dual number is its own tangent, so `Dual<f64>: Real` ----

impl<T: Float> Differentiable for Dual<T> {
    type TangentVector = Dual<T>;
    #[inline(always)]
    fn zero_tangent(&self) -> Self {
        Zero::zero()
    }
    #[inline(always)]
    fn move_by(&mut self, direction: &Self) {
        *self += *direction;
    }
    #[inline(always)]
    fn without_derivative(self) -> Self {
        Dual::constant(self.re)
    }
}

impl<T: Float> VectorSpace for Dual<T> {
    #[inline(always)]
    fn zero_vector() -> Self {
        Zero::zero()
    }
    #[inline(always)]
    fn add(self, other: Self) -> Self {
        self + other
    }
    /// Scales both parts.
    #[inline(always)]
    fn scale(self, by: f64) -> Self {
        let by = crate::float_rules::cast::<T, _>(by);
        Dual::new(self.re * by, self.eps * by)
    }
}

/// The product of the values `re`, as `f64` (the dual parts are dropped).
impl<T: Float> InnerProduct for Dual<T> {
    #[inline(always)]
    fn dot(&self, other: &Self) -> f64 {
        let f = |x: T| x.to_f64().unwrap_or(f64::NAN);
        f(self.re) * f(other.re)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::__private::Unit;
    use crate::dense::{hessian, DualParts, Lift};
    use crate::Real;

    const _: fn() = || {
        fn is_real<T: Real>() {}
        is_real::<Dual<f64>>();
        is_real::<Dual<f32>>();
    };

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * (1.0 + b.abs())
    }

    #[test]
    fn constructors_and_comparisons() {
        let x = Dual::variable(2.0);
        assert_eq!((x.re, x.eps), (2.0, 1.0));
        let c = Dual::constant(2.0);
        assert_eq!((c.re, c.eps), (2.0, 0.0));
        assert_eq!(<Dual<f32> as From<f32>>::from(3.0).eps, 0.0);
        assert_eq!(x, c); // values only
        assert!(Dual::new(1.0, 5.0) < Dual::new(2.0, -5.0));
        assert_eq!(Dual::<f64>::default().re, 0.0);
        assert_eq!(format!("{}", Dual::new(1.5, 2.0)), "1.5 + 2ε");
    }

    #[test]
    fn arithmetic() {
        let (a, b) = (Dual::new(3.0, 1.0), Dual::new(2.0, 0.5));
        let parts = |d: Dual<f64>| (d.re, d.eps);
        assert_eq!(parts(a + b), (5.0, 1.5));
        assert_eq!(parts(a - b), (1.0, 0.5));
        assert_eq!(parts(a * b), (6.0, 2.0 + 1.5));
        assert_eq!(parts(a / b), (1.5, (1.0 * 2.0 - 3.0 * 0.5) / 4.0));
        assert_eq!(parts(a % b), (1.0, 1.0 - 0.5));
        assert_eq!(parts(-a), (-3.0, -1.0));
        let mut m = a;
        m *= b;
        m += a;
        m -= b;
        m /= b;
        m %= Dual::constant(10.0);
        let expect = (a * b + a - b) / b;
        assert_eq!(parts(m), parts(expect));
        let v = [a, b, a];
        assert_eq!(parts(v.iter().sum()), (8.0, 2.5));
        assert_eq!(parts(v.into_iter().product()), (18.0, 6.0 + 4.5 + 6.0));
    }

    #[test]
    fn mixed_scalar_arithmetic() {
        let x = Dual::variable(2.0);
        let parts = |d: Dual<f64>| (d.re, d.eps);
        assert_eq!(parts(x * 2.0), (4.0, 2.0));
        assert_eq!(parts(2.0 * x), (4.0, 2.0));
        assert_eq!(parts(x + 1.0), (3.0, 1.0));
        assert_eq!(parts(1.0 + x), (3.0, 1.0));
        assert_eq!(parts(x - 1.0), (1.0, 1.0));
        assert_eq!(parts(1.0 - x), (-1.0, -1.0));
        assert_eq!(parts(x / 4.0), (0.5, 0.25));
        assert_eq!(parts(1.0 / x), (0.5, -0.25));
        assert_eq!(parts(x % 1.5), (0.5, 1.0));
        let mut y = x;
        y *= 3.0;
        y += 1.0;
        y -= 0.5;
        y /= 2.0;
        assert_eq!(parts(y), (3.25, 1.5));
        let z = Dual::variable(2.0f32) * 2.0 + 1.0;
        assert_eq!((z.re, z.eps), (5.0, 2.0));
        let w = 1.0f32 / Dual::variable(2.0f32);
        assert_eq!((w.re, w.eps), (0.5, -0.25));
    }

    #[test]
    fn conversions() {
        let x = Dual::new(2.5, 1.0);
        assert_eq!(x.to_i32(), Some(2));
        assert_eq!(Dual::new(2.5, 0.0).to_f64(), Some(2.5));
        // To a float, a dual part would be lost without a word: a stop instead.
        let lost = std::panic::catch_unwind(|| x.to_f64());
        assert!(lost.is_err());
        let c: Dual<f64> = num_traits::cast(3u8).unwrap();
        assert_eq!((c.re, c.eps), (3.0, 0.0));
        let two = Dual::<f64>::from_f64(2.0).unwrap();
        assert_eq!((two.re, two.eps), (2.0, 0.0));
        let p = Dual::<f64>::from_str_radix("1.25", 10).unwrap();
        assert_eq!((p.re, p.eps), (1.25, 0.0));
        assert!(<Dual<f64> as Zero>::zero().is_zero() && Dual::<f32>::one().is_one());
        let u = x.unit();
        assert_eq!((u.re, u.eps), (1.0, 0.0));
    }

    #[test]
    fn tangent_algebra() {
        let mut x = Dual::new(1.0, 2.0);
        let z = x.zero_tangent();
        assert_eq!((z.re, z.eps), (0.0, 0.0));
        x.move_by(&Dual::new(0.5, 1.0));
        assert_eq!((x.re, x.eps), (1.5, 3.0));
        let s = VectorSpace::add(x, Dual::new(1.0, 1.0)).scale(2.0);
        assert_eq!((s.re, s.eps), (5.0, 8.0));
        assert_eq!(Dual::new(2.0, 9.0).dot(&Dual::new(3.0, 9.0)), 6.0);
        let v = crate::__private::tadd(Some(Dual::new(1.0f32, 1.0)), None).unwrap();
        assert_eq!((v.re, v.eps), (1.0, 1.0));
    }

    /// `f(x, y) = x² y + sin(x y)`: its gradient, written generically as reverse-mode
    /// code would compute it (forward sweep, then adjoints from a unit seed).
    fn gradient<T: Real>(v: [T; 2]) -> [T; 2] {
        let [x, y] = v;
        let x2 = x * x;
        let xy = x * y;
        let (s, c) = xy.sin_cos();
        let _f = x2 * y + s;
        let seed = T::one();
        let (d_x2, d_xy) = (seed * y, seed * c);
        let dx = d_x2 * (x + x) + d_xy * y;
        let dy = seed * x2 + d_xy * x;
        [dx, dy]
    }

    fn analytic_hessian(x: f64, y: f64) -> [[f64; 2]; 2] {
        let (s, c) = (x * y).sin_cos();
        let fxy = 2.0 * x + c - x * y * s;
        [[2.0 * y - y * y * s, fxy], [fxy, -x * x * s]]
    }

    #[test]
    fn hessian_forward_over_reverse() {
        for (x, y) in [(0.7, -1.3), (2.0, 0.5), (0.0, 1.0)] {
            let expected = analytic_hessian(x, y);
            let h = hessian(&[x, y], gradient::<Dual<f64>>);
            let h_vec = hessian(&vec![x, y], |v: Vec<Dual<f64>>| {
                gradient([v[0], v[1]]).to_vec()
            });
            for (i, row) in expected.iter().enumerate() {
                for (j, e) in row.iter().enumerate() {
                    assert!(close(h[i][j], *e), "{:?} vs {:?}", h, expected);
                    assert_eq!(h_vec[i][j], h[i][j]);
                }
            }
        }
    }

    #[test]
    fn lift_and_dual_parts() {
        let l = [1.0f64, 2.0, 3.0].lift(1);
        assert_eq!(
            l.map(|d| (d.re, d.eps)),
            [(1.0, 0.0), (2.0, 1.0), (3.0, 0.0)]
        );
        assert_eq!(vec![1.0f32, 2.0].dimension(), 2);
        assert_eq!(vec![1.0f32, 2.0].lift(0).dual_parts(), vec![1.0, 0.0]);
        assert_eq!(2.0f64.lift(0).eps, 1.0);
        assert_eq!([1.0f32][..].lift_constant().dual_parts(), vec![0.0]);
        assert_eq!(None::<Dual<f64>>.dual_parts(), Vec::<f64>::new());
        // A scalar input: d²/dx² x³ = 6x; a zero (None) gradient gives zeros.
        let h = hessian(&2.0f32, |x: Dual<f32>| x * x * 3.0);
        assert_eq!(h, vec![vec![12.0]]);
        let h = hessian(&vec![1.0, 2.0], |_| None::<Vec<Dual<f64>>>);
        assert_eq!(h, vec![vec![0.0; 2]; 2]);
    }

    #[test]
    #[should_panic(expected = "has 1 entries for an input of dimension 2")]
    fn hessian_wrong_gradient_length() {
        let _ = hessian(&[1.0, 2.0], |v: [Dual<f64>; 2]| vec![v[0]]);
    }
}
