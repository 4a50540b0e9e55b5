//! The conventions at points where a rule is not differentiable, and the properties that
//! generated code relies on.

use crate::prelude::*;

#[test]
fn abs_at_zero_is_zero() {
    for x in [0.0, -0.0] {
        let (y, pullback) = x.__vjp_abs();
        assert_eq!((y, pullback(1.0)), (0.0, (Some(0.0),)));
        assert_eq!(x.__jvp_abs().1((Some(1.0),)), Some(0.0));
    }
    assert_eq!(2.0f32.__vjp_abs().1(1.0), (Some(1.0),));
    assert_eq!((-2.0f32).__vjp_abs().1(1.0), (Some(-1.0),));
    assert!(f64::NAN.__vjp_abs().1(1.0).0.unwrap().is_nan());
}

#[test]
fn min_max_send_the_derivative_to_the_selected_argument() {
    // Ties go to the receiver; the other argument is not touched (`None`, not zero).
    assert_eq!(1.0.__vjp_min(1.0).1(1.0), (Some(1.0), None));
    assert_eq!(1.0.__vjp_max(1.0).1(1.0), (Some(1.0), None));
    assert_eq!(1.0f32.__vjp_min(2.0).1(1.0), (Some(1.0), None));
    assert_eq!(1.0f32.__vjp_max(2.0).1(1.0), (None, Some(1.0)));
    // NaN is skipped, as the primal skips it.
    let (y, pullback) = f64::NAN.__vjp_min(2.0);
    assert_eq!((y, pullback(1.0)), (2.0, (None, Some(1.0))));
    let (y, pullback) = 2.0.__vjp_max(f64::NAN);
    assert_eq!((y, pullback(1.0)), (2.0, (Some(1.0), None)));
    assert_eq!(3.0.__jvp_max(1.0).1((Some(0.5), Some(7.0))), Some(0.5));
    // The tangent of the argument not selected is not multiplied by zero: a NaN there
    // (the derivative of `sqrt` at 0) does not reach the result.
    assert_eq!(0.0.__jvp_max(1e-12).1((Some(f64::NAN), None)), None);
    assert_eq!(
        1.0.__jvp_min(3.0).1((Some(2.0), Some(f64::INFINITY))),
        Some(2.0)
    );
}

#[test]
fn clamp_sends_the_derivative_to_the_selected_argument() {
    assert_eq!(0.5.__vjp_clamp(-1.0, 1.0).1(1.0), (Some(1.0), None, None));
    assert_eq!(1.0.__vjp_clamp(-1.0, 1.0).1(1.0), (Some(1.0), None, None));
    assert_eq!(
        (-3.0).__vjp_clamp(-1.0, 1.0).1(1.0),
        (None, Some(1.0), None)
    );
    assert_eq!(3.0.__vjp_clamp(-1.0, 1.0).1(1.0), (None, None, Some(1.0)));
    assert_eq!(
        3.0.__jvp_clamp(-1.0, 1.0).1((Some(f64::NAN), Some(5.0), Some(7.0))),
        Some(7.0)
    );
}

#[test]
fn hypot_at_origin_is_zero_and_atan2_is_nan() {
    assert_eq!(0.0.__vjp_hypot(0.0).1(1.0), (Some(0.0), Some(0.0)));
    let (da, db) = 0.0f32.__vjp_atan2(0.0).1(1.0);
    assert!(da.unwrap().is_nan() && db.unwrap().is_nan());
}

#[test]
fn atan2_partials_of_tiny_and_huge_arguments_are_finite() {
    // d/da atan2(a, b) = b / (a^2 + b^2): at a = b = 1e-170 the squares underflow, but
    // the partials are 1 / (2e-170) = 5e169.
    for (a, b, da, db) in [
        (1e-170, 1e-170, 5e169, -5e169),
        (3e-170, -4e-170, -4e169 / 2.5, -3e169 / 2.5),
        (1e170, 1e170, 5e-171, -5e-171),
    ] {
        let (ga, gb) = a.__vjp_atan2(b).1(1.0);
        let rel = |x: f64, y: f64| ((x - y) / y).abs();
        assert!(
            rel(ga.unwrap(), da) < 1e-14 && rel(gb.unwrap(), db) < 1e-14,
            "{a} {b}"
        );
        let t = a.__jvp_atan2(b).1((Some(1.0), Some(0.0))).unwrap();
        assert!(rel(t, da) < 1e-14, "{a} {b}: {t}");
    }
}

#[test]
fn powers_at_zero() {
    // d/dx x^0 = 0 even at 0; d/de 0^e = 0 (JAX's convention).
    assert_eq!(0.0.__vjp_powf(0.0).1(1.0), (Some(0.0), Some(0.0)));
    assert_eq!(0.0.__vjp_powf(2.0).1(1.0), (Some(0.0), Some(0.0)));
    assert_eq!(2.0.__vjp_powf(0.0).1(1.0), (Some(0.0), Some(2f64.ln())));
    assert_eq!(0.0.__vjp_powi(0).1(1.0), (Some(0.0), ()));
    assert_eq!(0.0f32.__vjp_powi(1).1(1.0), (Some(1.0), ()));
    assert_eq!(3.0.__jvp_powi(2).1((Some(1.0), ())), Some(6.0));
    // The most negative exponent does not overflow `n - 1`.
    let (y, pullback) = 1.0.__vjp_powi(i32::MIN);
    assert_eq!((y, pullback(1.0)), (1.0, (Some(i32::MIN as f64), ())));
}

#[test]
fn piecewise_constant_rules_have_zero_derivative() {
    let x = 2.5f64;
    assert_eq!(x.__vjp_floor().0, 2.0);
    assert_eq!(x.__vjp_floor().1(1.0), (None,));
    assert_eq!(x.__vjp_ceil().1(1.0), (None,));
    assert_eq!(x.__vjp_round().1(1.0), (None,));
    assert_eq!(x.__vjp_trunc().1(1.0), (None,));
    assert_eq!(x.__vjp_signum().1(1.0), (None,));
    assert_eq!(0.0.__vjp_signum().1(1.0), (None,));
    assert_eq!(x.__jvp_floor().1((Some(1.0),)), None);
    assert_eq!(3.0f32.__jvp_round().1((Some(1.0),)), None);
    // fract = x - trunc(x) has derivative one, also at the jumps.
    assert_eq!(3.0.__vjp_fract().1(2.0), (Some(2.0),));
}

#[test]
fn rem_matches_the_operator() {
    let (y, pullback) = 7.5.__vjp_rem(2.0);
    assert_eq!((y, pullback(1.0)), (7.5 % 2.0, (Some(1.0), Some(-3.0))));
    let (y, pullback) = (-7.5f32).__vjp_rem(2.0);
    assert_eq!((y, pullback(1.0)), (-7.5 % 2.0, (Some(1.0), Some(3.0))));
}

#[test]
fn closures_are_copy_and_reusable() {
    let (_, pullback) = 0.3.__vjp_atan2(1.2);
    let copy = pullback;
    assert_eq!(pullback(1.0), copy(1.0));
    let (_, differential) = 0.3f32.__jvp_powi(3);
    assert_eq!(differential((Some(1.0), ())), differential((Some(1.0), ())));
}

#[test]
fn pullbacks_capture_only_the_saved_values() {
    // sin saves one number (cos x); atan2 two (its partials); floor none.
    fn size<T>(_: &T) -> usize {
        core::mem::size_of::<T>()
    }
    assert_eq!(size(&0.5f64.__vjp_sin().1), 8);
    assert_eq!(size(&0.5f32.__jvp_sin().1), 4);
    assert_eq!(size(&0.5f64.__vjp_atan2(1.0).1), 16);
    assert_eq!(size(&0.5f64.__vjp_floor().1), 0);
}

mod user_registration {
    type Pullback = fn(f64) -> (Option<f64>,);

    /// A registration a user implemented for `f64` by value.
    trait MySin {
        fn __vjp_sin(self) -> (f64, Pullback);
    }

    impl MySin for f64 {
        fn __vjp_sin(self) -> (f64, Pullback) {
            (-1.0, |_| (Some(42.0),))
        }
    }

    #[test]
    fn wins_over_the_library_rule() {
        use crate::prelude::*;
        let (y, pullback) = 0.5f64.__vjp_sin();
        assert_eq!((y, pullback(1.0)), (-1.0, (Some(42.0),)));
        // The library rule still applies to the types the user did not register.
        assert_eq!(0.0f32.__vjp_sin().0, 0.0);
    }
}

/// The closures own their saved values and do not borrow the receiver (`use<Self>`), so a
/// rule can be applied to a temporary and its pullback returned from a function.
#[test]
fn closures_do_not_borrow_the_receiver() {
    fn square_of_sin<T: num_traits::Float>(x: T) -> (T, impl FnOnce(T) -> T) {
        let (y, sin_pullback) = x.__vjp_sin();
        let (z, square_pullback) = y.__vjp_powi(2);
        (z, move |seed| {
            let (dy, ()) = square_pullback(seed);
            sin_pullback(dy.unwrap()).0.unwrap()
        })
    }
    let (z, pullback) = square_of_sin(0.7f64);
    assert_eq!(z, 0.7f64.sin().powi(2));
    assert!((pullback(1.0) - 2.0 * 0.7f64.sin() * 0.7f64.cos()).abs() < 1e-15);
    let (_, differential) = (1.0f32 + 2.0).__jvp_exp();
    assert_eq!(differential((Some(1.0),)), Some(3.0f32.exp()));
}
