//! The derivative rules of the float operations: one table, read by everything that
//! differentiates a float method.
//!
//! - [`Dual`](crate::Dual)'s [`num_traits::Float`] implementation and arithmetic
//!   operators (`dual_float.rs`);
//! - diff-std's extension traits `FloatVjp` (reverse mode) and `FloatJvp` (forward mode),
//!   which generated code calls;
//! - diff-macros, through [`METHODS`]: a registration `#[derivative(of = f64::NAME)]` for
//!   one mode leaves the other to diff-std when `NAME` is in the table.
//!
//! Adding a float operation is one line of the table. `float_rules!(callback)` expands to
//! `callback! { <the table> }`; each reader is a `macro_rules!` callback matching the
//! grammar below.
//!
//! The table is here, below its three readers: `Float for Dual` must be implemented in the
//! crate of `Dual` (both are foreign to diff-std), diff-std depends on diff-core, and
//! diff-macros, a proc-macro crate, may depend on diff-core as an ordinary library and
//! read [`METHODS`] when it runs.
//!
//! # Grammar
//!
//! ```text
//! /// Optional doc lines (conventions at points where the function is not differentiable).
//! (__vjp_atan2, __jvp_atan2) atan2(a, b) -> y = a.atan2(b), r = (a * a + b * b).recip(),
//!     da = b * r, db = -a * r => (da, db);
//! ```
//!
//! - the two method names of diff-std (checked below to be `__vjp_NAME` and
//!   `__jvp_NAME`: `macro_rules!` cannot build identifiers), the function name, and the
//!   parameters: the receiver, then the other float parameters, then after `;` the
//!   non-float ones with their types (`powi(x; n: i32)`);
//! - the forward pass: the value `y = ...`, then the saved values, computed eagerly;
//! - after `=>`, one partial derivative per float parameter, in terms of the value and the
//!   saved values only, or `zero` for a piecewise constant function. Every reader shadows
//!   the parameters before it evaluates the partials, so a partial that names a parameter
//!   does not compile;
//! - or, for a function that selects one of its arguments (`min`, `max`, `clamp`), one
//!   `bool` per float parameter in brackets, whether the value is that argument
//!   (`=> [da, db]`): the derivative is the selected argument's, and the others' are not
//!   touched at all (not multiplied by zero), as if the function were written with `if`:
//!   `x.sqrt().max(1e-12)` at `x = 0` has derivative 0, not `0 * inf`.
//!
//! The expressions are written for a type `Self: Float` and may call [`cast`], which the
//! module invoking `float_rules!` brings into scope (`use diff_core::float_rules::cast;`).
//! A function whose name is not a [`num_traits::Float`] method is an operator
//! (`add`, `sub`, `mul`, `div`, `neg`, `rem`, as the methods of `core::ops`).

use num_traits::Float;

/// The rule table (see the module docs): `float_rules!(callback)` expands to
/// `callback! { <the table> }`.
#[doc(hidden)]
#[macro_export]
macro_rules! float_rules {
    ($callback:ident) => {
        $callback! {
            // ---- trigonometric ----
            (__vjp_sin, __jvp_sin) sin(x) -> y = x.sin(), d = x.cos() => (d);
            (__vjp_cos, __jvp_cos) cos(x) -> y = x.cos(), d = -x.sin() => (d);
            (__vjp_tan, __jvp_tan) tan(x) -> y = x.tan(), d = Self::one() + y * y => (d);
            (__vjp_asin, __jvp_asin) asin(x) -> y = x.asin(),
                d = ((Self::one() - x) * (Self::one() + x)).sqrt().recip() => (d);
            (__vjp_acos, __jvp_acos) acos(x) -> y = x.acos(),
                d = -((Self::one() - x) * (Self::one() + x)).sqrt().recip() => (d);
            (__vjp_atan, __jvp_atan) atan(x) -> y = x.atan(), d = (Self::one() + x * x).recip() => (d);
            /// The partials `b / (a² + b²)` and `-a / (a² + b²)`, with the square root
            /// of `a² + b²` taken by `hypot` so that neither squares under- or overflow
            /// (at `a = b = 1e-170` they are 5e169, not infinite). At the origin, where
            /// `atan2` is not differentiable, the partials are NaN.
            (__vjp_atan2, __jvp_atan2) atan2(a, b) -> y = a.atan2(b), r = a.hypot(b).recip(),
                da = b * r * r, db = -a * r * r => (da, db);

            // ---- hyperbolic ----
            (__vjp_sinh, __jvp_sinh) sinh(x) -> y = x.sinh(), d = x.cosh() => (d);
            (__vjp_cosh, __jvp_cosh) cosh(x) -> y = x.cosh(), d = x.sinh() => (d);
            (__vjp_tanh, __jvp_tanh) tanh(x) -> y = x.tanh(), d = Self::one() - y * y => (d);
            (__vjp_asinh, __jvp_asinh) asinh(x) -> y = x.asinh(),
                d = (x * x + Self::one()).sqrt().recip() => (d);
            (__vjp_acosh, __jvp_acosh) acosh(x) -> y = x.acosh(),
                d = ((x - Self::one()).sqrt() * (x + Self::one()).sqrt()).recip() => (d);
            (__vjp_atanh, __jvp_atanh) atanh(x) -> y = x.atanh(),
                d = ((Self::one() - x) * (Self::one() + x)).recip() => (d);

            // ---- exponentials and logarithms ----
            (__vjp_exp, __jvp_exp) exp(x) -> y = x.exp() => (y);
            (__vjp_exp2, __jvp_exp2) exp2(x) -> y = x.exp2(),
                d = y * cast::<Self, _>(core::f64::consts::LN_2) => (d);
            (__vjp_exp_m1, __jvp_exp_m1) exp_m1(x) -> y = x.exp_m1(), d = y + Self::one() => (d);
            (__vjp_ln, __jvp_ln) ln(x) -> y = x.ln(), d = x.recip() => (d);
            (__vjp_ln_1p, __jvp_ln_1p) ln_1p(x) -> y = x.ln_1p(), d = (Self::one() + x).recip() => (d);
            (__vjp_log2, __jvp_log2) log2(x) -> y = x.log2(),
                d = (x * cast::<Self, _>(core::f64::consts::LN_2)).recip() => (d);
            (__vjp_log10, __jvp_log10) log10(x) -> y = x.log10(),
                d = (x * cast::<Self, _>(core::f64::consts::LN_10)).recip() => (d);
            (__vjp_log, __jvp_log) log(x, base) -> y = x.log(base), ln_base = base.ln(),
                dx = (x * ln_base).recip(), dbase = -y / (base * ln_base) => (dx, dbase);

            // ---- powers and roots ----
            (__vjp_sqrt, __jvp_sqrt) sqrt(x) -> y = x.sqrt(), d = (y + y).recip() => (d);
            (__vjp_cbrt, __jvp_cbrt) cbrt(x) -> y = x.cbrt(), d = (cast::<Self, _>(3) * y * y).recip() => (d);
            /// The exponent is an integer: its slot is `()`. For `n == 0` the derivative is zero
            /// everywhere, including at `x == 0`.
            (__vjp_powi, __jvp_powi) powi(x; n: i32) -> y = x.powi(n),
                d = if n == 0 {
                    Self::zero()
                } else if let Some(m) = n.checked_sub(1) {
                    cast::<Self, _>(n) * x.powi(m)
                } else {
                    cast::<Self, _>(n) * y / x // n == i32::MIN
                } => (d);
            /// As in JAX: for `e == 0` the partial in `x` is zero (also at `x == 0`), and at
            /// `x == 0` the partial in `e` is zero. The partial in `x` is `e * x^(e-1)` also
            /// at `e == 0` away from the origin (zero, as a value), so that on dual numbers
            /// its own derivative in `e`, `1 / x`, is kept (second order).
            (__vjp_powf, __jvp_powf) powf(x, e) -> y = x.powf(e),
                dx = if e == Self::zero() && x == Self::zero() {
                    Self::zero()
                } else {
                    e * x.powf(e - Self::one())
                },
                de = if x == Self::zero() { Self::zero() } else { y * x.ln() } => (dx, de);
            (__vjp_recip, __jvp_recip) recip(x) -> y = x.recip(), d = -y * y => (d);
            /// At the origin, where `hypot` is not differentiable, the partials are zero (the
            /// minimal-norm subgradient).
            (__vjp_hypot, __jvp_hypot) hypot(a, b) -> y = a.hypot(b),
                r = if y == Self::zero() { Self::zero() } else { y.recip() },
                da = a * r, db = b * r => (da, db);
            (__vjp_mul_add, __jvp_mul_add) mul_add(x, a, b) -> y = x.mul_add(a, b), dx = a, da = x
                => (dx, da, Self::one());

            // ---- piecewise ----
            /// At zero the derivative is zero (a subgradient, as in PyTorch); `x.signum()` elsewhere.
            (__vjp_abs, __jvp_abs) abs(x) -> y = x.abs(),
                d = if x == Self::zero() { Self::zero() } else { x.signum() } => (d);
            /// The derivative goes to the selected argument: the receiver on ties, and the
            /// non-NaN argument when the other is NaN (as `min` selects it).
            (__vjp_min, __jvp_min) min(a, b) -> y = a.min(b),
                da = b.is_nan() || a <= b, db = !da => [da, db];
            /// The derivative goes to the selected argument: the receiver on ties, and the
            /// non-NaN argument when the other is NaN (as `max` selects it).
            (__vjp_max, __jvp_max) max(a, b) -> y = a.max(b),
                da = b.is_nan() || a >= b, db = !da => [da, db];
            /// The derivative goes to the selected argument: `x` when `lo <= x <= hi`, else the
            /// bound that clamps it.
            (__vjp_clamp, __jvp_clamp) clamp(x, lo, hi) -> y = x.clamp(lo, hi),
                dlo = x < lo, dhi = x > hi, dx = !dlo && !dhi => [dx, dlo, dhi];
            /// Piecewise constant: the derivative is zero (also at the jumps).
            (__vjp_signum, __jvp_signum) signum(x) -> y = x.signum() => zero;
            /// Piecewise constant: the derivative is zero (also at the jumps).
            (__vjp_floor, __jvp_floor) floor(x) -> y = x.floor() => zero;
            /// Piecewise constant: the derivative is zero (also at the jumps).
            (__vjp_ceil, __jvp_ceil) ceil(x) -> y = x.ceil() => zero;
            /// Piecewise constant: the derivative is zero (also at the jumps).
            (__vjp_round, __jvp_round) round(x) -> y = x.round() => zero;
            /// Piecewise constant: the derivative is zero (also at the jumps).
            (__vjp_trunc, __jvp_trunc) trunc(x) -> y = x.trunc() => zero;
            /// `x - x.trunc()`: the derivative is one (also at the jumps).
            (__vjp_fract, __jvp_fract) fract(x) -> y = x.fract() => (Self::one());
            /// `|x|` with the sign of `s`: the derivative is `±1` in `x` (zero at zero) and
            /// zero in `s`.
            (__vjp_copysign, __jvp_copysign) copysign(x, s) -> y = x.copysign(s),
                d = if x == Self::zero() { Self::zero() } else { x.signum() * y.signum() }
                => (d, Self::zero());

            // ---- unit conversions ----
            (__vjp_to_degrees, __jvp_to_degrees) to_degrees(x) -> y = x.to_degrees(),
                d = Self::one().to_degrees() => (d);
            (__vjp_to_radians, __jvp_to_radians) to_radians(x) -> y = x.to_radians(),
                d = Self::one().to_radians() => (d);

            // ---- arithmetic operators (`a + b` is `a.add(b)`, ...) ----
            (__vjp_add, __jvp_add) add(a, b) -> y = a + b => (Self::one(), Self::one());
            (__vjp_sub, __jvp_sub) sub(a, b) -> y = a - b => (Self::one(), -Self::one());
            (__vjp_mul, __jvp_mul) mul(a, b) -> y = a * b, da = b, db = a => (da, db);
            (__vjp_div, __jvp_div) div(a, b) -> y = a / b, r = b.recip(), db = -y * r => (r, db);
            (__vjp_neg, __jvp_neg) neg(x) -> y = -x => (-Self::one());
            /// `a % b = a - q b` with `q` the integer quotient ([`rem_quotient`]): partials
            /// `1` and `-q` (the derivative jumps where `a / b` is an integer).
            (__vjp_rem, __jvp_rem) rem(a, b) -> y = a % b, db = -rem_quotient(a, y, b)
                => (Self::one(), db);
        }
    };
}

/// The table's function names, and the check that each line names diff-std's methods
/// `__vjp_NAME` and `__jvp_NAME`.
macro_rules! names {
    ($(
        $(#[doc = $doc:literal])*
        ($vjp:ident, $jvp:ident) $name:ident ($x:ident $(, $p:ident)* $(; $c:ident : $cty:ty)*)
            -> $y:ident = $value:expr $(, $s:ident = $se:expr)* => $partials:tt;
    )*) => {
        $(
            const _: () = assert!(
                str_eq(stringify!($vjp), concat!("__vjp_", stringify!($name)))
                    && str_eq(stringify!($jvp), concat!("__jvp_", stringify!($name))),
                concat!("rule table: the methods of `", stringify!($name), "` are misnamed"),
            );
        )*

        /// The names of the operations in the table, in its order (`"sin"`, ..., `"rem"`).
        ///
        /// diff-macros reads this list when it expands `#[derivative(of = f64::NAME)]`: it
        /// depends on diff-core as an ordinary library, so the list is the table's own
        /// and needs no copy kept in sync (a package cannot include files of another one
        /// once they are published separately).
        pub const METHODS: &[&str] = &[$(stringify!($name)),*];

        /// The number of float parameters of each operation in the table, the receiver
        /// included (`("powf", 2)`, `("powi", 1)`): diff-macros converts a constant given
        /// for one of them to a dual number at second order, and leaves the others
        /// (`powi`'s `i32`) as they are.
        pub const FLOAT_PARAMETERS: &[(&str, usize)] =
            &[$((stringify!($name), 1 $(+ (stringify!($p).len() * 0 + 1))*)),*];
    };
}

crate::float_rules!(names);

/// Shadows the parameters of a rule before its partial derivatives are evaluated (see the
/// module docs): a partial that names a parameter instead of a saved value does not
/// compile.
pub struct NotCaptured;

/// Converts a primitive number to the float type of a rule (always succeeds for the
/// constants and `i32` exponents the table uses; `Dual`'s `VectorSpace::scale` converts
/// its `f64` factor with it too).
#[inline(always)]
pub fn cast<T: Float, N: num_traits::ToPrimitive>(n: N) -> T {
    <T as num_traits::NumCast>::from(n)
        .expect("diff: a constant not representable in the float type")
}

/// The integer quotient `q` of `a % b = a - q b`, from the remainder `rem = a % b`:
/// `(a - rem) / b`, rounded to the integer it is. Not `(a / b).trunc()`: `1.0 / 0.1`
/// rounds to 10 while `1.0 % 0.1` is `1 - 9 * 0.1`. (The divisor's partial of `%` is
/// `-q`, here and in diff-macros' inline partials.)
#[inline(always)]
pub fn rem_quotient<T: Float>(a: T, rem: T, b: T) -> T {
    ((a - rem) / b).round()
}

/// Compile-time string equality, for the method-name check.
const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}
