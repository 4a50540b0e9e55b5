//! Where a differentiable function can live and how it can be named: in its own module,
//! by path, imported by name (also renamed), by glob, through `pub use` re-exports, inside
//! another function's body, from a `macro_rules!` expansion; the same for functions with
//! a registered derivative. Each is used from a differentiable body (both modes) and by
//! the operators, and checked against the derivative's formula and the function's value.
#[macro_use]
mod common;
use diff::prelude::*;

mod model {
    use diff::prelude::*;

    /// `3x^2`.
    #[differentiable]
    pub fn loss(x: f64) -> f64 {
        3.0 * x * x
    }

    /// `x^3`, generic.
    #[differentiable]
    pub fn cube<T: Float>(x: T) -> T {
        x * x * x
    }

    /// `sin x`, private: reached as `super::wave` or `crate::model::wave` only from here.
    #[differentiable]
    fn wave(x: f64) -> f64 {
        x.sin()
    }

    pub mod deep {
        use diff::prelude::*;

        /// `2 * loss(x) + wave(x)`, calling its parent's functions by path.
        #[differentiable]
        pub fn twice(x: f64) -> f64 {
            2.0 * super::loss(x) + super::wave(x)
        }

        /// `loss(x) + cube(x)`, by absolute paths.
        #[differentiable]
        pub(crate) fn absolute(x: f64) -> f64 {
            crate::model::loss(x) + crate::model::cube(x)
        }
    }

    // A re-export by name.
    pub use deep::twice;
}

mod api {
    // A re-export by name of a re-export, and a glob re-export.
    pub use crate::model::twice as doubled;
    pub use crate::model::*;
}

mod regs {
    use diff::prelude::*;

    /// Never annotated; its derivative is registered (reverse mode only).
    pub fn softplus(x: f64) -> f64 {
        (1.0 + x.exp()).ln()
    }

    #[derivative(of = softplus)]
    pub fn softplus_vjp(x: f64) -> (f64, impl FnOnce(f64) -> f64) {
        let s = 1.0 / (1.0 + (-x).exp());
        (softplus(x), move |dy| dy * s)
    }

    /// Both modes registered, each deliberately scaled (by 2 and 3) to show which is used.
    pub fn bent(x: f64) -> f64 {
        x.sin()
    }

    #[derivative(of = bent)]
    pub fn bent_vjp(x: f64) -> (f64, impl FnOnce(f64) -> f64) {
        (bent(x), move |dy| 2.0 * dy * x.cos())
    }

    #[derivative(of = bent, jvp)]
    pub fn bent_jvp(x: f64) -> (f64, impl FnOnce(f64) -> f64) {
        (bent(x), move |dx| 3.0 * dx * x.cos())
    }
}

use api::doubled;
use model::loss as renamed_loss;
use model::{cube, loss, twice};
use regs::{bent, softplus};

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

#[test]
fn imported_by_name() {
    for x in [-1.5, 0.3, 2.0] {
        let (v, d) = value_with_gradient!(at: x, of: loss);
        assert_close!(v, 3.0 * x * x);
        assert_close!(d, 6.0 * x);
        assert_close!(first_derivative!(at: x, of: loss), 6.0 * x);
        assert_close!(gradient!(at: x, of: renamed_loss), 6.0 * x);
        assert_close!(gradient!(at: x, of: cube::<f64>), 3.0 * x * x);
        let (v, d) = value_with_derivative!(at: x, of: cube);
        assert_close!(v, x * x * x);
        assert_close!(d, 3.0 * x * x);
        let (v, d) = value_with_gradient!(at: x, of: twice);
        assert_close!(v, 6.0 * x * x + x.sin());
        assert_close!(d, 12.0 * x + x.cos());
        assert_close!(gradient!(at: x, of: doubled), 12.0 * x + x.cos());
    }
}

#[test]
fn by_path_and_through_re_exports() {
    for x in [-1.5, 0.3, 2.0] {
        assert_close!(gradient!(at: x, of: model::loss), 6.0 * x);
        assert_close!(gradient!(at: x, of: model::deep::twice), 12.0 * x + x.cos());
        assert_close!(gradient!(at: x, of: api::loss), 6.0 * x);
        // Through a module that re-exports by name (`pub use deep::twice`, renamed too).
        assert_close!(gradient!(at: x, of: model::twice), 12.0 * x + x.cos());
        assert_close!(gradient!(at: x, of: api::doubled), 12.0 * x + x.cos());
        assert_close!(
            first_derivative!(at: x, of: api::doubled),
            12.0 * x + x.cos()
        );
        assert_close!(gradient!(at: x, of: crate::model::cube::<f64>), 3.0 * x * x);
        let (v, d) = value_with_derivative!(at: x, of: model::deep::absolute);
        assert_close!(v, 3.0 * x * x + x * x * x);
        assert_close!(d, 6.0 * x + 3.0 * x * x);
    }
}

/// Calls every form from one body: `loss` imported, renamed, by path, through a re-export.
#[differentiable]
fn every_form(x: f64) -> f64 {
    loss(x) + renamed_loss(x) + model::loss(x) + api::loss(x) + doubled(x) + cube(x)
}

/// Calls through modules that re-export by name.
#[differentiable]
fn through_named_re_exports(x: f64) -> f64 {
    model::twice(x) + api::doubled(x) + crate::api::doubled(x)
}

#[test]
fn named_re_exports_by_path_from_bodies() {
    for x in [-0.7, 1.2] {
        let want = 3.0 * (12.0 * x + x.cos());
        let (v, g) = value_with_gradient!(at: x, of: through_named_re_exports);
        assert_eq!(v, through_named_re_exports(x));
        assert_close!(g, want);
        assert_close!(first_derivative!(at: x, of: through_named_re_exports), want);
    }
}

#[differentiable]
fn registered_by_name(x: f64) -> f64 {
    softplus(x) * 2.0 + bent(x)
}

#[test]
fn calls_from_bodies_in_both_modes() {
    for x in [-1.5, 0.3, 2.0] {
        let d = 4.0 * 6.0 * x + (12.0 * x + x.cos()) + 3.0 * x * x;
        let (v, g) = value_with_gradient!(at: x, of: every_form);
        assert_close!(v, 4.0 * 3.0 * x * x + 6.0 * x * x + x.sin() + x * x * x);
        assert_close!(g, d);
        assert_close!(first_derivative!(at: x, of: every_form), d);
        // The registered reverse mode scales bent's derivative by 2, the forward by 3;
        // softplus's forward mode is derived from its pullback (a scalar result).
        let (v, g) = value_with_gradient!(at: x, of: registered_by_name);
        assert_close!(v, 2.0 * (1.0 + x.exp()).ln() + x.sin());
        assert_close!(g, 2.0 * sigmoid(x) + 2.0 * x.cos());
        assert_close!(
            first_derivative!(at: x, of: registered_by_name),
            2.0 * sigmoid(x) + 3.0 * x.cos()
        );
        let (v, d) = value_with_gradient!(at: x, of: softplus);
        assert_close!(v, (1.0 + x.exp()).ln());
        assert_close!(d, sigmoid(x));
        let (v, d) = value_with_derivative!(at: x, of: bent);
        assert_close!(v, x.sin());
        assert_close!(d, 3.0 * x.cos());
    }
}

#[test]
fn inside_a_function_body() {
    #[derive(Clone, Debug, Differentiable)]
    struct P {
        a: f64,
        b: f64,
    }

    #[differentiable]
    fn energy(p: P) -> f64 {
        p.a * p.b * p.b
    }

    #[differentiable]
    fn along(x: f64) -> f64 {
        energy(P { a: x, b: 2.0 * x }) + loss(x)
    }

    let t = gradient!(at: P { a: 2.0, b: 3.0 }, of: energy);
    assert_close!(t.a, 9.0);
    assert_close!(t.b, 12.0);
    for x in [-1.5, 0.3, 2.0] {
        // 4x^3 + 3x^2.
        let (v, d) = value_with_gradient!(at: x, of: along);
        assert_close!(v, 4.0 * x * x * x + 3.0 * x * x);
        assert_close!(d, 12.0 * x * x + 6.0 * x);
        assert_close!(first_derivative!(at: x, of: along), 12.0 * x * x + 6.0 * x);
    }
}

macro_rules! scaled_square {
    ($name:ident, $k:expr) => {
        /// `k x^2`.
        #[differentiable]
        fn $name(x: f64) -> f64 {
            $k * x * x
        }
    };
}

scaled_square!(five_squared, 5.0);

#[test]
fn from_macro_rules_expansions() {
    scaled_square!(seven_squared, 7.0);

    #[differentiable]
    fn both(x: f64) -> f64 {
        five_squared(x) + seven_squared(x)
    }

    for x in [-1.5, 0.3, 2.0] {
        assert_close!(gradient!(at: x, of: five_squared), 10.0 * x);
        assert_close!(first_derivative!(at: x, of: seven_squared), 14.0 * x);
        let (v, d) = value_with_gradient!(at: x, of: both);
        assert_close!(v, 12.0 * x * x);
        assert_close!(d, 24.0 * x);
    }
}

/// Expressions given to a `macro_rules!` as fragments (`$f:expr`), which the expansion
/// wraps in invisible groups: a closure bound to a name and called, a closure given to
/// `map`, and a sum used as an operand of a product (its grouping kept).
macro_rules! from_fragments {
    ($name:ident, $x:ident, $f:expr, $sum:expr) => {
        #[differentiable]
        fn $name($x: f64, ys: &[f64]) -> f64 {
            let f = $f;
            let mapped: f64 = ys.iter().copied().map($f).sum();
            f($x) * $sum * 2.0 + mapped * $x
        }
    };
}

from_fragments!(fragments, x, |t: f64| t.sin(), x + 1.0);

#[test]
fn expressions_given_to_a_macro_rules_as_fragments() {
    let ys = [0.5, -1.0];
    let m: f64 = ys.iter().map(|t| t.sin()).sum();
    for x in [-0.7, 0.4, 1.5] {
        // sin(x) (x + 1) 2 + m x
        let value = x.sin() * (x + 1.0) * 2.0 + m * x;
        let slope = 2.0 * (x.cos() * (x + 1.0) + x.sin()) + m;
        let (v, (dx, dys)) = value_with_gradient!(at: (x, &ys[..]), of: fragments);
        assert_close!(v, value);
        assert_close!(fragments(x, &ys), value);
        assert_close!(dx, slope);
        for (d, y) in dys.iter().zip(ys) {
            assert_close!(*d, y.cos() * x);
        }
        assert_close!(first_derivative!(at: x, of: |x| fragments(x, &ys)), slope);
    }
}

/// A type whose name is one capital letter is a type, not a scalar parameter.
#[derive(Clone, Debug, Differentiable)]
struct A {
    w: f64,
}

#[differentiable]
fn weigh(a: A, x: f64) -> f64 {
    a.w * x * x
}

#[test]
fn a_type_named_by_one_letter() {
    let (ta, tx) = gradient!(at: (A { w: 2.0 }, 3.0), of: weigh);
    assert_close!(ta.w, 9.0);
    assert_close!(tx, 12.0);
}

/// A body with an item of its own naming `Self` is still a free function.
#[differentiable]
fn with_local_impl(x: f64) -> f64 {
    struct Twice;
    impl Twice {
        fn of(k: f64) -> Self {
            let _ = k;
            Twice
        }
    }
    let _ = Twice::of(1.0);
    x * x * x
}

#[test]
fn a_body_with_a_local_impl() {
    let (v, d) = value_with_gradient!(at: 2.0, of: with_local_impl);
    assert_close!(v, 8.0);
    assert_close!(d, 12.0);
}

/// Marked only under a condition, as a crate with an optional `diff` feature marks its
/// functions (`#[cfg_attr(feature = "diff", differentiable)]`); `all()` always holds.
#[cfg_attr(all(), differentiable)]
fn conditionally_marked(x: f64) -> f64 {
    x * x.sin()
}

/// Registered under a condition.
fn conditionally_registered(x: f64) -> f64 {
    x.exp()
}

#[cfg_attr(all(), derivative(of = conditionally_registered))]
fn conditionally_registered_vjp(x: f64) -> (f64, impl FnOnce(f64) -> f64) {
    let y = x.exp();
    (y, move |s| s * y)
}

/// A struct derived under a condition.
#[cfg_attr(all(), derive(Clone, Differentiable))]
struct Scaled {
    k: f64,
}

#[differentiable]
fn calls_conditionally_marked(s: Scaled, x: f64) -> f64 {
    s.k * conditionally_marked(x) + conditionally_registered(x)
}

#[test]
fn marked_under_cfg_attr() {
    for x in [-1.2, 0.4, 2.5] {
        let (v, (ts, tx)) =
            value_with_gradient!(at: (Scaled { k: 3.0 }, x), of: calls_conditionally_marked);
        assert_close!(v, 3.0 * x * x.sin() + x.exp());
        assert_close!(ts.k, x * x.sin());
        assert_close!(tx, 3.0 * (x.sin() + x * x.cos()) + x.exp());
    }
}

/// Operators called from a `macro_rules!` with the point and the function as `expr`
/// fragments (which arrive in invisible groups).
macro_rules! slope_and_curvature {
    ($f:expr, $x:expr) => {
        (
            gradient!(at: $x, of: $f),
            second_derivative!(at: $x, of: $f),
        )
    };
}

#[test]
fn operators_given_fragments_of_a_macro_rules() {
    let (g, h) = slope_and_curvature!(|t: f64| t * t * t, 2.0);
    assert_eq!((g, h), (12.0, 12.0));
    let k = 0.5;
    let (g, h) = slope_and_curvature!(|t: f64| (k * t).sin(), 1.0);
    assert!((g - k * (k * 1.0f64).cos()).abs() < 1e-12);
    assert!((h + k * k * (k * 1.0f64).sin()).abs() < 1e-12);
}

// A struct defined in a private module and re-exported (`pub use line::Line;`), imported
// by name elsewhere: its dual twin travels with its name (`<Line as Lift<f64>>::Lifted`),
// so second order works with no import of the twin.
mod shapes {
    mod line {
        use diff::prelude::*;

        #[derive(Differentiable, Clone, Debug)]
        pub struct Line {
            pub a: f64,
            pub b: f64,
        }

        impl Line {
            #[differentiable]
            pub fn at(&self, x: f64) -> f64 {
                self.a * x + self.b
            }
        }
    }
    pub use line::Line;

    #[derive(diff::Differentiable, Clone, Debug)]
    pub struct Segment {
        pub from: Line,
        pub rest: Vec<Line>,
    }
}

mod fitting {
    use super::shapes::{Line, Segment};
    use diff::prelude::*;

    #[differentiable]
    pub fn norm2(l: &Line) -> f64 {
        l.a * l.a + l.b * l.b
    }

    /// `(2a + b) a + a^2 + b^2`, through a line built in the body.
    #[differentiable]
    pub fn built(a: f64, b: f64) -> f64 {
        let l = Line { a, b };
        l.at(2.0) * a + norm2(&l)
    }

    #[differentiable]
    pub fn segment_of(a0: f64, a1: f64) -> f64 {
        let s = Segment {
            from: Line { a: a0, b: 2.0 },
            rest: vec![Line { a: a1, b: 1.0 }],
        };
        segment_energy(&s)
    }

    #[differentiable]
    pub fn segment_energy(s: &Segment) -> f64 {
        let mut e = s.from.at(1.0);
        for l in &s.rest {
            e += l.at(2.0) * l.a;
        }
        e
    }
}

#[test]
fn a_struct_imported_by_name_at_second_order() {
    use fitting::{built, norm2, segment_energy};
    use shapes::{Line, Segment};
    // 3a^2 + ab + b^2.
    let h = hessian!(at: vec![1.0, 2.0], of: |v: Vec<f64>| built(v[0], v[1]));
    assert_eq!(h, vec![vec![6.0, 1.0], vec![1.0, 2.0]]);
    assert_eq!(second_derivative!(at: 1.5, of: |a: f64| built(a, 2.0)), 6.0);
    let l = Line { a: 1.0, b: 2.0 };
    let (v, g) = value_with_gradient!(at: &l, of: norm2);
    assert_eq!(v, norm2(&l));
    assert_eq!((g.a, g.b), (2.0, 4.0));
    // Built in an operator's closure: (a^2 + b^2) a, and a captured line's method.
    let h =
        hessian!(at: vec![1.0, 2.0], of: |v: Vec<f64>| norm2(&Line { a: v[0], b: v[1] }) * v[0]);
    assert_eq!(h, vec![vec![6.0, 4.0], vec![4.0, 2.0]]);
    let h = hessian!(at: vec![1.0, 2.0], of: |v: Vec<f64>| l.at(v[0]) * v[1]);
    assert_eq!(h, vec![vec![0.0, 1.0], vec![1.0, 0.0]]);
    // e = a0 + 2 + (2 a1 + 1) a1.
    let s = Segment {
        from: Line { a: 1.0, b: 2.0 },
        rest: vec![Line { a: 0.5, b: 1.0 }],
    };
    assert_eq!(segment_energy(&s), 3.0 + 2.0 * 0.5 * 0.5 + 0.5);
    let h = hessian!(at: vec![1.0, 0.5], of: |v: Vec<f64>| fitting::segment_of(v[0], v[1]));
    assert_eq!(h, vec![vec![0.0, 0.0], vec![0.0, 4.0]]);
}
