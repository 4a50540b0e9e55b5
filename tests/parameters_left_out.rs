//! Parameters whose type is not Differentiable (an enum, a configuration struct) need no
//! `wrt` when no derivative flows from them: they are left out of the derivative, as
//! Swift leaves out non-Differentiable parameters.
mod common;
use common::{assert_close, fd};
use diff::prelude::*;

#[derive(Clone, Copy, Debug)]
enum Act {
    Relu,
    Tanh,
    Leaky,
}

/// Matched on.
#[differentiable]
fn activate(x: f64, act: Act) -> f64 {
    match act {
        Act::Relu => x.max(0.0),
        Act::Tanh => x.tanh(),
        Act::Leaky => {
            if x > 0.0 {
                x
            } else {
                0.01 * x
            }
        }
    }
}

/// Counts, flags and strings: no derivative flows from them.
struct Config {
    steps: usize,
    damped: bool,
    name: String,
}

#[differentiable]
fn iterate(x: f64, cfg: &Config) -> f64 {
    let mut y = x;
    for _ in 0..cfg.steps {
        y = (1.5 * y).sin();
        if cfg.damped {
            y *= 0.9;
        }
    }
    if cfg.name.len() > 3 {
        y
    } else {
        2.0 * y
    }
}

#[derive(Clone, Debug, Differentiable)]
struct Layer {
    w: Vec<f64>,
}

impl Layer {
    /// A method with an enum parameter.
    #[differentiable]
    fn forward(&self, x: f64, act: Act) -> f64 {
        let mut s = 0.0;
        for w in &self.w {
            s += w * x;
        }
        match act {
            Act::Tanh => s.tanh(),
            _ => s.max(0.0),
        }
    }

    /// Passing the enum on to another function counts as using it (the macro cannot see
    /// whether the callee differentiates it): `wrt` leaves it out.
    #[differentiable(wrt = (self, x))]
    fn forward_through(&self, x: f64, act: Act) -> f64 {
        let mut s = 0.0;
        for w in &self.w {
            s += w * x;
        }
        activate(s, act)
    }
}

#[test]
fn an_enum_matched_on() {
    for (act, x) in [
        (Act::Relu, 0.7),
        (Act::Relu, -0.3),
        (Act::Tanh, 0.4),
        (Act::Leaky, -1.1),
    ] {
        let (v, g) = value_with_gradient!(at: x, of: |x| activate(x, act));
        assert_eq!(v, activate(x, act));
        assert_close(g, fd(|x| activate(x, act), x), 1e-6, "reverse");
        let (v, d) = value_with_derivative!(at: x, of: |x| activate(x, act));
        assert_eq!(v, activate(x, act));
        assert_close(d, fd(|x| activate(x, act), x), 1e-6, "forward");
    }
}

#[test]
fn a_configuration_of_counts_flags_and_strings() {
    for cfg in [
        Config {
            steps: 3,
            damped: true,
            name: "long name".into(),
        },
        Config {
            steps: 5,
            damped: false,
            name: "ab".into(),
        },
    ] {
        let x = 0.3;
        let (v, g) = value_with_gradient!(at: x, of: |x| iterate(x, &cfg));
        assert_eq!(v, iterate(x, &cfg));
        assert_close(g, fd(|x| iterate(x, &cfg), x), 1e-6, "reverse");
        let d = first_derivative!(at: x, of: |x| iterate(x, &cfg));
        assert_close(d, g, 1e-12, "forward against reverse");
    }
}

#[test]
fn a_method_with_an_enum_parameter() {
    let layer = Layer {
        w: vec![0.5, -0.25, 1.0],
    };
    let x = 0.8;
    let (v, g) = value_with_gradient!(at: x, of: |x| layer.forward(x, Act::Tanh));
    assert_eq!(v, layer.forward(x, Act::Tanh));
    // tanh(1.25 x)
    let slope = 1.0 - (1.25 * x).tanh().powi(2);
    assert_close(g, 1.25 * slope, 1e-12, "d/dx");
    let (dl, dx) = gradient!(at: (layer.clone(), x), of: |l, x| l.forward(x, Act::Tanh));
    assert_close(dx, 1.25 * slope, 1e-12, "d/dx with the layer");
    for dw in &dl.w {
        assert_close(*dw, x * slope, 1e-12, "d/dw");
    }
    let g = gradient!(at: x, of: |x| layer.forward_through(x, Act::Tanh));
    assert_close(g, 1.25 * slope, 1e-12, "d/dx through activate");
}

/// A configuration with float fields, not Differentiable: its definition says so, so it
/// is left out of the derivative though a derivative would flow from `gain`.
struct Scales {
    gain: f64,
    offset: f64,
    rounds: usize,
}

#[differentiable]
fn scaled_energy(x: &[f64], s: &Scales) -> f64 {
    let mut e = s.offset;
    for _ in 0..s.rounds {
        for v in x.iter() {
            e += s.gain * v * v;
        }
    }
    e
}

/// A model that is neither Differentiable nor `Clone`, its method's receiver left out.
struct Spring {
    k: f64,
}

impl Spring {
    #[differentiable]
    fn energy(&self, x: f64) -> f64 {
        0.5 * self.k * x * x + self.k.sqrt() * x.sin()
    }
}

#[test]
fn a_configuration_with_float_fields() {
    let s = Scales {
        gain: 1.5,
        offset: 0.25,
        rounds: 2,
    };
    let x = vec![0.5, -1.0, 2.0];
    let (v, g) = value_with_gradient!(at: &x, of: |p: &[f64]| scaled_energy(p, &s));
    assert_eq!(v, scaled_energy(&x, &s));
    for (i, gi) in g.iter().enumerate() {
        // d/dx_i: rounds * gain * 2 x_i
        assert_close(*gi, 2.0 * 1.5 * 2.0 * x[i], 1e-12, "reverse");
    }
    let df = differential!(at: &x, of: |p: &[f64]| scaled_energy(p, &s));
    assert_close(
        df(vec![1.0, 0.0, 1.0]),
        g[0] + g[2],
        1e-12,
        "forward against reverse",
    );
}

#[test]
fn a_receiver_that_is_not_differentiable() {
    let spring = Spring { k: 4.0 };
    let x = 0.3;
    let (v, g) = value_with_gradient!(at: x, of: |x| spring.energy(x));
    assert_eq!(v, spring.energy(x));
    assert_close(g, 4.0 * x + 2.0 * x.cos(), 1e-12, "reverse");
    let d = first_derivative!(at: x, of: |x| spring.energy(x));
    assert_close(d, g, 1e-12, "forward against reverse");
}

#[derive(Differentiable, Clone, Copy, Debug, PartialEq)]
struct Complex {
    re: f64,
    im: f64,
}

impl Complex {
    #[differentiable]
    fn mul(self, o: Complex) -> Complex {
        Complex {
            re: self.re * o.re - self.im * o.im,
            im: self.re * o.im + self.im * o.re,
        }
    }
    #[differentiable]
    fn abs2(self) -> f64 {
        self.re * self.re + self.im * self.im
    }
    /// Named like the float method: the call on a `Complex` is this one.
    #[differentiable]
    fn powi(self, n: usize) -> Self {
        let mut r = Complex { re: 1.0, im: 0.0 };
        for _ in 0..n {
            r = r.mul(self);
        }
        r
    }
}

#[test]
fn closure_inputs_typed_as_integers_are_left_out() {
    // |c|^(2n): d/d re = 2n |c|^(2n-2) re.
    let c = Complex { re: 0.3, im: 0.4 };
    let (v, g) = value_with_gradient!(at: (c, 3), of: |c: Complex, n: usize| c.powi(n).abs2());
    assert!((v - 0.25f64.powi(3)).abs() < 1e-15);
    assert!((g.re - 6.0 * 0.25f64.powi(2) * 0.3).abs() < 1e-12, "{g:?}");
    assert!((g.im - 6.0 * 0.25f64.powi(2) * 0.4).abs() < 1e-12, "{g:?}");
    let (_, df) = value_with_differential!(at: (c, 3), of: |c: Complex, n: usize| c.powi(n).abs2());
    assert!((df(ComplexTangent { re: 1.0, im: 0.0 }) - g.re).abs() < 1e-12);

    // An integer between two floats, and an integer literal given to it.
    let (v, (gx, gy)) =
        value_with_gradient!(at: (2.0, 3, 1.5), of: |x: f64, n: i32, y: f64| x.powi(n) * y);
    assert_eq!((v, gx, gy), (12.0, 18.0, 8.0));
    let (_, df) =
        value_with_differential!(at: (2.0, 3, 1.5), of: |x: f64, n: i32, y: f64| x.powi(n) * y);
    assert_eq!(df((1.0, 0.0)), 18.0);
    assert_eq!(df((0.0, 1.0)), 8.0);
}

/// A Differentiable struct of the crate stays differentiated where no derivative flows
/// from it: its callers, which cannot see the body, pass its tangent.
#[derive(Differentiable, Clone, Copy, Debug)]
struct Point {
    x: f64,
    y: f64,
}

#[differentiable]
fn ignores_point(_p: Point, a: f64) -> f64 {
    a * 2.0
}

#[differentiable]
fn calls_with_point(x: f64, y: f64) -> f64 {
    let p = Point { x, y };
    ignores_point(p, x) * y + p.x
}

#[test]
fn an_unused_differentiable_struct_parameter_stays() {
    let (x, y) = (0.7, 1.3);
    let (v, (gx, gy)) = value_with_gradient!(at: (x, y), of: calls_with_point);
    assert_eq!(v, calls_with_point(x, y));
    assert_close(gx, fd(|x| calls_with_point(x, y), x), 1e-6, "d x");
    assert_close(gy, fd(|y| calls_with_point(x, y), y), 1e-6, "d y");
    let (gp, ga) = gradient!(at: (Point { x, y }, x), of: ignores_point);
    assert_eq!((gp.x, gp.y, ga), (0.0, 0.0, 2.0));
    let df = differential!(at: (x, y), of: calls_with_point);
    assert_close(df((1.0, 0.0)), gx, 1e-12, "forward d x");
}

mod standard_library_types {
    //! Parameters of the standard library's types with no tangent space (`Duration`, a
    //! `HashMap`), which the crate does not define, are left out too; a map's
    //! `get(&key)` and `get("key")` are read as the map's, not as a slice's element.
    use super::assert_close;
    use diff::prelude::*;
    use std::collections::HashMap;
    use std::time::Duration;

    #[differentiable]
    fn decay(x: f64, dt: Duration) -> f64 {
        x * (-dt.as_secs_f64()).exp()
    }

    #[differentiable]
    fn scaled(x: f64, rates: &HashMap<String, f64>, key: &str) -> f64 {
        let a = rates.get("a").copied().unwrap_or(1.0);
        let b = *rates.get(&key.to_string()).unwrap_or(&0.0);
        a * x * x + b * x
    }

    #[differentiable]
    fn calls_both(x: f64) -> f64 {
        let mut rates = HashMap::new();
        rates.insert("a".to_string(), 2.0);
        decay(x, Duration::from_millis(500)) + scaled(x, &rates, "a")
    }

    #[test]
    fn left_out_and_read() {
        let x: f64 = 1.5;
        let g = gradient!(at: x, of: |x| decay(x, Duration::from_secs(1)));
        assert_close(g, (-1.0f64).exp(), 1e-15, "decay");
        let mut rates = HashMap::new();
        rates.insert("a".to_string(), 2.0);
        rates.insert("b".to_string(), 3.0);
        let (v, g) = value_with_gradient!(at: x, of: |x| scaled(x, &rates, "b"));
        assert_eq!(v, scaled(x, &rates, "b"));
        assert_close(g, 4.0 * x + 3.0, 1e-15, "map");
        let want = (-0.5f64).exp() + 4.0 * x + 2.0;
        assert_close(gradient!(at: x, of: calls_both), want, 1e-12, "reverse");
        assert_close(
            first_derivative!(at: x, of: calls_both),
            want,
            1e-12,
            "forward",
        );
        let d2 = second_derivative!(at: x, of: |x| decay(x, Duration::from_secs(1)));
        assert_close(d2, 0.0, 1e-15, "second");
    }
}

/// A parameter of an `impl Trait` type (a callback whose value is used without a
/// derivative): the companions name the type, as a type parameter of their own.
#[differentiable]
fn with_callback(x: f64, penalty: impl Fn(f64) -> f64, scale: &impl Fn() -> f64) -> f64 {
    x * x * scale() + no_derivative(penalty(2.0))
}

#[test]
fn parameters_of_impl_trait_types() {
    let k = 3.0;
    for x in [-1.0, 0.5, 2.0] {
        let (v, g) = value_with_gradient!(at: x, of: |x: f64| with_callback(x, |t| t * k, &|| k));
        assert_close(v, with_callback(x, |t| t * k, &|| k), 1e-12, "value");
        assert_close(v, x * x * k + 2.0 * k, 1e-12, "value by formula");
        assert_close(g, 2.0 * x * k, 1e-12, "d/dx");
        let d = first_derivative!(at: x, of: |x: f64| with_callback(x, |t| t * k, &|| k));
        assert_close(
            d,
            fd(|x| with_callback(x, |t| t * k, &|| k), x),
            1e-6,
            "forward",
        );
    }
}

/// A callee whose `wrt` leaves `k` out, given for `k` a constant or a value whose
/// derivative is cut: both orders compile and cut it (an active value there is refused,
/// ui `active_argument_left_out_by_wrt`).
#[differentiable(wrt = x)]
fn scaled_by(x: f64, k: f64) -> f64 {
    x * k
}

#[differentiable]
fn scaled_twice(a: f64) -> f64 {
    scaled_by(a, 2.0) + scaled_by(a * a, no_derivative(a))
}

#[test]
fn a_callee_leaving_a_parameter_out_by_wrt() {
    let a = 1.5;
    // 2a + a^2 c with c = a held constant: 2 + 2ac, then 2c.
    let (v, g) = value_with_gradient!(at: a, of: scaled_twice);
    assert_eq!(v, scaled_twice(a));
    assert_close(g, 2.0 + 2.0 * a * a, 1e-12, "first");
    assert_close(
        first_derivative!(at: a, of: scaled_twice),
        g,
        1e-12,
        "forward",
    );
    assert_close(
        second_derivative!(at: a, of: scaled_twice),
        2.0 * a,
        1e-12,
        "second",
    );
}

/// An enum's payload read in arithmetic (`Loss::Huber(d) => d * ..`): in a crate that
/// implements no arithmetic of its own, it is a float, and second order goes through.
#[derive(Clone, Copy, Debug)]
enum Penalty {
    Square,
    Huber(f64),
}

#[differentiable]
fn penalty(kind: Penalty, x: f64) -> f64 {
    let r = 2.0 * x;
    match kind {
        Penalty::Square => r * r,
        Penalty::Huber(d) => {
            if r.abs() < d {
                0.5 * r * r
            } else {
                d * (r.abs() - 0.5 * d)
            }
        }
    }
}

#[test]
fn second_order_through_an_enum_payload() {
    for (kind, x, h) in [
        (Penalty::Square, 0.3, 8.0),
        (Penalty::Huber(1.0), 0.3, 4.0),
        (Penalty::Huber(1.0), 0.8, 0.0),
    ] {
        let g = gradient!(at: x, of: |x: f64| penalty(kind, x));
        assert_close(g, fd(|x| penalty(kind, x), x), 1e-6, "first");
        let s = second_derivative!(at: x, of: |x: f64| penalty(kind, x));
        assert_close(s, h, 1e-12, "second");
    }
}

/// Containers of a type that is not Differentiable (`&[Sphere]`, `Vec<Sphere>`, `&[Sphere;
/// 2]`, `Option<Sphere>`) are not Differentiable either, and are left out as the type is.
mod containers {
    use diff::prelude::*;

    pub struct Sphere {
        pub radius: f64,
    }

    #[differentiable]
    fn over_a_slice(spheres: &[Sphere], x: f64) -> f64 {
        let mut total = 0.0;
        for s in spheres {
            total += s.radius * x * x;
        }
        total
    }

    #[differentiable]
    #[allow(clippy::ptr_arg)] // `&Vec<T>` on purpose
    fn over_vec_array_and_option(
        x: f64,
        owned: &Vec<Sphere>,
        pair: &[Sphere; 2],
        extra: Option<Sphere>,
    ) -> f64 {
        let r = match extra {
            Some(s) => s.radius,
            None => 0.0,
        };
        x * (owned[0].radius + pair[1].radius + r)
    }

    #[test]
    fn containers_of_a_type_that_is_not_differentiable() {
        let spheres = vec![Sphere { radius: 1.0 }, Sphere { radius: 2.0 }];
        // 2 x (1 + 2) at x = 2.
        assert_eq!(
            gradient!(at: 2.0, of: |x: f64| over_a_slice(&spheres, x)),
            12.0
        );
        assert_eq!(
            first_derivative!(at: 2.0, of: |x: f64| over_a_slice(&spheres, x)),
            12.0
        );
        let (v, _) = value_with_gradient!(at: 2.0, of: |x: f64| over_a_slice(&spheres, x));
        assert_eq!(v, over_a_slice(&spheres, 2.0));
        let pair = [Sphere { radius: 3.0 }, Sphere { radius: 4.0 }];
        let d = gradient!(at: 1.5, of: |x: f64| {
            over_vec_array_and_option(x, &spheres, &pair, Some(Sphere { radius: 0.5 }))
        });
        assert_eq!(d, 1.0 + 4.0 + 0.5);
    }
}

/// A closure's parameter typed with a struct the crate does not make Differentiable, or
/// an enum, is left out as a function's is: `at: (x, &cfg)` differentiates `x` alone.
#[test]
fn closure_parameters_of_types_that_are_not_differentiable() {
    let cfg = Config {
        steps: 4,
        damped: true,
        name: "long name".into(),
    };
    let x = 0.3;
    let expected = fd(|x| iterate(x, &cfg), x);
    let (v, g) = value_with_gradient!(at: (x, &cfg), of: |t: f64, c: &Config| iterate(t, c));
    assert_eq!(v, iterate(x, &cfg));
    assert_close(g, expected, 1e-6, "reverse");
    let g = gradient!(at: (x, &cfg), of: iterate);
    assert_close(g, expected, 1e-6, "the function itself");
    let g = gradient!(at: (0.4, Act::Tanh), of: |t: f64, a: Act| activate(t, a) * t);
    assert_close(g, fd(|t| activate(t, Act::Tanh) * t, 0.4), 1e-6, "an enum");
}
