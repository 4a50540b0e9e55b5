//! The macro that turns the rule table of diff-core (`diff_core::float_rules!`, whose
//! module docs give the grammar of a line) into the extension traits
//! [`FloatVjp`](crate::FloatVjp) and [`FloatJvp`](crate::FloatJvp).
//!
//! Before the closures are built, every parameter is shadowed by
//! `diff_core::float_rules::NotCaptured`, so a partial that names a parameter instead of
//! a saved value does not compile: the pullback and the differential capture exactly the
//! saved numbers.

use num_traits::Float;

/// Forward-mode accumulation of `partial * tangent` terms over `Option` (`None` = zero).
pub(crate) trait TangentSum {
    /// `self + other`, where `None` is zero.
    fn plus(self, other: Self) -> Self;
}

impl<T: Float> TangentSum for Option<T> {
    #[inline(always)]
    fn plus(self, other: Self) -> Self {
        match (self, other) {
            (Some(a), Some(b)) => Some(a + b),
            (a, None) => a,
            (None, b) => b,
        }
    }
}

/// Expands the rule table into the traits `FloatVjp` and `FloatJvp` and their blanket impls.
macro_rules! rules {
    ($(
        $(#[doc = $doc:literal])*
        ($vjp:ident, $jvp:ident) $name:ident ($x:ident $(, $p:ident)* $(; $c:ident : $cty:ty)*)
            -> $y:ident = $value:expr $(, $s:ident = $se:expr)* => $partials:tt;
    )*) => {
        /// Reverse mode (VJP) of the float operations, for every [`num_traits::Float`].
        ///
        /// `x.__vjp_NAME(args)` returns `(value, pullback)`. The pullback takes the seed (the
        /// adjoint of the value) and returns a tuple with one slot per parameter, receiver
        /// first: `Option<Self>` for a float parameter (`None` means zero) and `()` for any
        /// other (such as `powi`'s `i32`). It captures only the numbers saved in the
        /// forward pass, and is `Copy`.
        ///
        /// The methods take `&self`, so a user's registration implemented for `f64` by value
        /// wins by method-resolution order.
        pub trait FloatVjp: Float {
            $(
                rule!(@vjp [$($doc)*] $vjp $name ($x $(, $p)* $(; $c : $cty)*)
                    $y = $value, [$($s = $se),*] => $partials);
            )*
        }

        impl<T: Float> FloatVjp for T {}

        /// Forward mode (JVP) of the float operations, for every [`num_traits::Float`].
        ///
        /// `x.__jvp_NAME(args)` returns `(value, differential)`. The differential takes a
        /// tuple with one slot per parameter, receiver first (`Option<Self>` for a float
        /// parameter, `None` meaning zero, and `()` for any other) and returns the tangent
        /// of the value (`None` when it is zero). It captures only the numbers saved in the
        /// forward pass, and is `Copy`.
        pub trait FloatJvp: Float {
            $(
                rule!(@jvp [$($doc)*] $jvp $name ($x $(, $p)* $(; $c : $cty)*)
                    $y = $value, [$($s = $se),*] => $partials);
            )*
        }

        impl<T: Float> FloatJvp for T {}
    };
}

/// One method of a rule, from one table line (see [`rules!`]).
macro_rules! rule {
    (@vjp [$($doc:literal)*] $method:ident $name:ident
        ($x:ident $(, $p:ident)* $(; $c:ident : $cty:ty)*)
        $y:ident = $value:expr, [$($s:ident = $se:expr),*] => $partials:tt
    ) => {
        #[doc = concat!(
            "Reverse mode of `", stringify!($name), "`. Forward pass: `",
            stringify!($y = $value), "`", $(", `", stringify!($s = $se), "`",)*
            ". Partial derivatives: `", stringify!($partials), "`."
        )]
        #[doc = ""]
        $(#[doc = $doc])*
        #[inline(always)]
        fn $method(&self $(, $p: Self)* $(, $c: $cty)*) -> (
            Self,
            impl FnOnce(Self) -> (Option<Self>, $(rule!(@ty $p Option<Self>),)* $(rule!(@ty $c ()),)*)
                + Copy
                + use<Self>,
        ) {
            let $x = *self;
            rule!(@forward $y = $value, [$($s = $se),*]; $x $($p)* $($c)*);
            ($y, rule!(@pullback $partials; $($p)*; $($c)*))
        }
    };

    (@jvp [$($doc:literal)*] $method:ident $name:ident
        ($x:ident $(, $p:ident)* $(; $c:ident : $cty:ty)*)
        $y:ident = $value:expr, [$($s:ident = $se:expr),*] => $partials:tt
    ) => {
        #[doc = concat!(
            "Forward mode of `", stringify!($name), "`. Forward pass: `",
            stringify!($y = $value), "`", $(", `", stringify!($s = $se), "`",)*
            ". Partial derivatives: `", stringify!($partials), "`."
        )]
        #[doc = ""]
        $(#[doc = $doc])*
        #[inline(always)]
        fn $method(&self $(, $p: Self)* $(, $c: $cty)*) -> (
            Self,
            impl FnOnce((Option<Self>, $(rule!(@ty $p Option<Self>),)* $(rule!(@ty $c ()),)*))
                -> Option<Self>
                + Copy
                + use<Self>,
        ) {
            let $x = *self;
            rule!(@forward $y = $value, [$($s = $se),*]; $x $($p)* $($c)*);
            ($y, rule!(@differential $partials; $x $($p)*; $($c)*))
        }
    };

    // The forward pass: the value, the saved values, then every parameter shadowed.
    (@forward $y:ident = $value:expr, [$($s:ident = $se:expr),*]; $($param:ident)*) => {
        let $y = $value;
        $(let $s = $se;)*
        $(
            #[allow(unused_variables)]
            let $param = ::diff_core::float_rules::NotCaptured;
        )*
    };

    (@pullback zero; $($p:ident)*; $($c:ident)*) => {
        move |_seed: Self| (None, $(rule!(@none $p),)* $(rule!(@unit $c),)*)
    };
    (@pullback ($d0:expr $(, $d:expr)*); $($p:ident)*; $($c:ident)*) => {
        move |seed: Self| (Some(seed * ($d0)), $(Some(seed * ($d)),)* $(rule!(@unit $c),)*)
    };

    (@pullback [$d0:expr $(, $d:expr)*]; $($p:ident)*; $($c:ident)*) => {
        move |seed: Self| (
            ($d0).then_some(seed),
            $(($d).then_some(seed),)*
            $(rule!(@unit $c),)*
        )
    };

    (@differential zero; $x:ident $($p:ident)*; $($c:ident)*) => {
        move |_tangents: (Option<Self>, $(rule!(@ty $p Option<Self>),)* $(rule!(@ty $c ()),)*)| {
            None
        }
    };
    (@differential ($d0:expr $(, $d:expr)*); $x:ident $($p:ident)*; $($c:ident)*) => {
        move |($x, $($p,)* $(rule!(@ignore $c),)*):
            (Option<Self>, $(rule!(@ty $p Option<Self>),)* $(rule!(@ty $c ()),)*)| {
            #[allow(unused_imports)] // unused by one-parameter rules
            use $crate::table::TangentSum as _;
            $x.map(|t| t * ($d0)) $(.plus($p.map(|t| t * ($d))))*
        }
    };

    (@differential [$d0:expr $(, $d:expr)*]; $x:ident $($p:ident)*; $($c:ident)*) => {
        move |($x, $($p,)* $(rule!(@ignore $c),)*):
            (Option<Self>, $(rule!(@ty $p Option<Self>),)* $(rule!(@ty $c ()),)*)| {
            #[allow(unused_imports)] // unused by one-parameter rules
            use $crate::table::TangentSum as _;
            $x.filter(|_| $d0) $(.plus($p.filter(|_| $d)))*
        }
    };

    (@ty $ignored:ident $t:ty) => { $t };
    (@none $ignored:ident) => { None };
    (@unit $ignored:ident) => { () };
    (@ignore $ignored:ident) => { _ };
}
