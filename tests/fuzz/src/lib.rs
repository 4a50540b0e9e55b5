//! Support for the random-program tester (see `README.md`): the dual-number oracle `D`
//! the generated programs are rendered over a second time, and the comparison of the
//! operators' results with the plain function and with the oracle.
//!
//! `D` is written here on purpose, sharing nothing with the macro or diff-core: its value
//! part performs exactly the f64 operations of the plain program, in the same order, so
//! `D::v` equals the plain function's result bit for bit, and `D::d` is the forward-mode
//! derivative along the seeded input.

/// What an oracle number (`D`, `H`) does by its value `v` alone, as the plain program
/// does, and its compound assignments.
macro_rules! by_value {
    ($t:ident) => {
        impl AddAssign for $t {
            fn add_assign(&mut self, o: $t) {
                *self = *self + o;
            }
        }

        impl SubAssign for $t {
            fn sub_assign(&mut self, o: $t) {
                *self = *self - o;
            }
        }

        impl MulAssign for $t {
            fn mul_assign(&mut self, o: $t) {
                *self = *self * o;
            }
        }

        impl DivAssign for $t {
            fn div_assign(&mut self, o: $t) {
                *self = *self / o;
            }
        }

        /// Comparisons look at the value only, as the plain program does.
        impl PartialEq for $t {
            fn eq(&self, o: &$t) -> bool {
                self.v == o.v
            }
        }

        impl PartialOrd for $t {
            fn partial_cmp(&self, o: &$t) -> Option<Ordering> {
                self.v.partial_cmp(&o.v)
            }
        }

        impl $t {
            /// `f64::max`'s rule in the library: the first operand unless the second is
            /// larger.
            pub fn max(self, o: $t) -> $t {
                if o.v.is_nan() || self.v >= o.v {
                    self
                } else {
                    o
                }
            }
            /// Orders by value, as `f64::total_cmp`.
            pub fn total_cmp(&self, o: &$t) -> Ordering {
                self.v.total_cmp(&o.v)
            }
        }
    };
}

mod hyper;

pub use hyper::H;

use std::cmp::Ordering;
use std::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};
use std::panic;
use std::sync::atomic::{AtomicUsize, Ordering as AtomicOrdering};

/// A dual number `v + d·ε`, `ε² = 0`.
#[derive(Clone, Copy, Debug)]
pub struct D {
    /// The value.
    pub v: f64,
    /// The derivative along the seeded direction.
    pub d: f64,
}

impl D {
    /// A constant.
    pub fn c(v: f64) -> D {
        D { v, d: 0.0 }
    }
    /// An input seeded with derivative `d`.
    pub fn seeded(v: f64, d: f64) -> D {
        D { v, d }
    }
    /// `sin`.
    pub fn sin(self) -> D {
        D {
            v: self.v.sin(),
            d: self.d * self.v.cos(),
        }
    }
    /// `cos`.
    pub fn cos(self) -> D {
        D {
            v: self.v.cos(),
            d: -self.d * self.v.sin(),
        }
    }
    /// `tanh`.
    pub fn tanh(self) -> D {
        let t = self.v.tanh();
        D {
            v: t,
            d: self.d * (1.0 - t * t),
        }
    }
    /// `exp`.
    pub fn exp(self) -> D {
        let e = self.v.exp();
        D {
            v: e,
            d: self.d * e,
        }
    }
    /// `sqrt`.
    pub fn sqrt(self) -> D {
        let s = self.v.sqrt();
        D {
            v: s,
            d: self.d / (2.0 * s),
        }
    }
    /// `powi`.
    pub fn powi(self, n: i32) -> D {
        D {
            v: self.v.powi(n),
            d: self.d * f64::from(n) * self.v.powi(n - 1),
        }
    }
}

impl Add for D {
    type Output = D;
    fn add(self, o: D) -> D {
        D {
            v: self.v + o.v,
            d: self.d + o.d,
        }
    }
}

impl Sub for D {
    type Output = D;
    fn sub(self, o: D) -> D {
        D {
            v: self.v - o.v,
            d: self.d - o.d,
        }
    }
}

impl Mul for D {
    type Output = D;
    fn mul(self, o: D) -> D {
        D {
            v: self.v * o.v,
            d: self.d * o.v + self.v * o.d,
        }
    }
}

impl Div for D {
    type Output = D;
    fn div(self, o: D) -> D {
        D {
            v: self.v / o.v,
            d: (self.d * o.v - self.v * o.d) / (o.v * o.v),
        }
    }
}

impl Neg for D {
    type Output = D;
    fn neg(self) -> D {
        D {
            v: -self.v,
            d: -self.d,
        }
    }
}

by_value!(D);

/// How many points were skipped because the plain value or the oracle was not finite.
pub static SKIPPED_POINTS: AtomicUsize = AtomicUsize::new(0);
/// How many points were checked.
pub static CHECKED_POINTS: AtomicUsize = AtomicUsize::new(0);

/// What the operators returned at one point, to be checked by [`verify`].
pub struct Observed<'a> {
    /// The point.
    pub at: &'a [f64],
    /// The plain function's value there.
    pub want: f64,
    /// The oracle run once per input, seeded along that input.
    pub oracle: &'a [D],
    /// `value_with_gradient!`: the value and the gradient.
    pub reverse: (f64, &'a [f64]),
    /// Forward-mode operators: a name, the input whose unit tangent was given, the value
    /// and the derivative along that input.
    pub forward: &'a [(&'static str, usize, f64, f64)],
}

/// The unit vector `e_j` of dimension `K`.
pub fn unit<const K: usize>(j: usize) -> [f64; K] {
    let mut t = [0.0; K];
    t[j] = 1.0;
    t
}

fn close(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= 1e-9 * (1.0 + a.abs() + b.abs())
}

fn same_bits(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// Compares everything observed at one point; `Err` lists every mismatch.
pub fn verify(o: &Observed) -> Result<(), String> {
    let finite = o.want.is_finite() && o.oracle.iter().all(|d| d.v.is_finite() && d.d.is_finite());
    if !finite {
        SKIPPED_POINTS.fetch_add(1, AtomicOrdering::Relaxed);
        return Ok(());
    }
    CHECKED_POINTS.fetch_add(1, AtomicOrdering::Relaxed);
    let mut errs = Vec::new();
    for (j, d) in o.oracle.iter().enumerate() {
        if !same_bits(d.v, o.want) {
            errs.push(format!(
                "oracle value (input {j}) {:?} != f {:?}: the oracle renderer is wrong",
                d.v, o.want
            ));
        }
    }
    let (rv, rg) = o.reverse;
    if !same_bits(rv, o.want) {
        errs.push(format!(
            "value_with_gradient value {rv:?} != f {:?}",
            o.want
        ));
    }
    for (j, (g, d)) in rg.iter().zip(o.oracle).enumerate() {
        if !close(*g, d.d) {
            errs.push(format!(
                "value_with_gradient d/d(input {j}) {g:?} != oracle {:?}",
                d.d
            ));
        }
    }
    for &(name, j, v, dv) in o.forward {
        let d = o.oracle[j];
        if !same_bits(v, o.want) {
            errs.push(format!("{name} (input {j}) value {v:?} != f {:?}", o.want));
        }
        if !close(dv, d.d) {
            errs.push(format!("{name} d/d(input {j}) {dv:?} != oracle {:?}", d.d));
        }
    }
    if errs.is_empty() {
        Ok(())
    } else {
        Err(format!("at {:?}: {}", o.at, errs.join("; ")))
    }
}

/// How many programs' second order was checked against the hyper-dual oracle.
pub static SECOND_CHECKED: AtomicUsize = AtomicUsize::new(0);
/// How many programs' second order the library declined (its dual companion stopped with
/// "second order ... is not available": a construct it does not lift).
pub static SECOND_DECLINED: AtomicUsize = AtomicUsize::new(0);

/// Runs a second-order operator: `Ok(None)` when the library declines it with its
/// message, `Err` for any other panic.
pub fn second_order(
    run: impl FnOnce() -> Vec<Vec<f64>> + panic::UnwindSafe,
) -> Result<Option<Vec<Vec<f64>>>, String> {
    match panic::catch_unwind(run) {
        Ok(h) => Ok(Some(h)),
        Err(p) => {
            let m = panic_message(&*p);
            if m.starts_with("diff: second order") {
                SECOND_DECLINED.fetch_add(1, AtomicOrdering::Relaxed);
                if std::env::var_os("DIFF_FUZZ_SECOND_REASONS").is_some() {
                    println!("declined: {m}");
                }
                Ok(None)
            } else {
                Err(format!("second order panicked: {m}"))
            }
        }
    }
}

/// Compares a Hessian (or `[[f'']]`) with the hyper-dual oracle's, at a point where the
/// first order was checked (the oracle finite).
pub fn verify_second(
    at: &[f64],
    got: Option<Vec<Vec<f64>>>,
    oracle: &[Vec<H>],
) -> Result<(), String> {
    let Some(got) = got else {
        return Ok(());
    };
    if oracle.iter().flatten().any(|h| !h.ab.is_finite()) {
        return Ok(());
    }
    SECOND_CHECKED.fetch_add(1, AtomicOrdering::Relaxed);
    let mut errs = Vec::new();
    for (i, row) in oracle.iter().enumerate() {
        for (j, h) in row.iter().enumerate() {
            let g = got
                .get(i)
                .and_then(|r| r.get(j))
                .copied()
                .unwrap_or(f64::NAN);
            if !close(g, h.ab) {
                errs.push(format!(
                    "second derivative d/d(input {i}) d/d(input {j}) {g:?} != oracle {:?}",
                    h.ab
                ));
            }
        }
    }
    if errs.is_empty() {
        Ok(())
    } else {
        Err(format!("at {at:?}: {}", errs.join("; ")))
    }
}

/// One generated program: its index, its `check` and its `f64` source.
pub type Program = (usize, fn() -> Result<(), String>, &'static str);

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic".to_string()
    }
}

/// Runs every program's `check` (a panic is a failure too), prints each failure with the
/// seed, index, reason and source, then `random programs: N passed, M failed`, and panics
/// if any failed.
pub fn run_programs(seed: u64, features: &str, left_out: &[usize], programs: &[Program]) {
    let hook = panic::take_hook();
    panic::set_hook(Box::new(|_| {}));
    let mut failed = Vec::new();
    for &(index, check, source) in programs {
        let result = panic::catch_unwind(check)
            .unwrap_or_else(|p| Err(format!("panicked: {}", panic_message(&*p))));
        if let Err(reason) = result {
            failed.push((index, reason, source));
        }
    }
    panic::set_hook(hook);
    for (index, reason, source) in &failed {
        println!("FAIL seed={seed} index={index}: {reason}");
        println!("---- program {index} of seed {seed}:\n{source}----");
    }
    let left_out = if left_out.is_empty() {
        String::new()
    } else {
        format!(", programs left out: {left_out:?}")
    };
    println!(
        "random programs: {} passed, {} failed (seed {seed}, {} points checked, {} skipped as not finite; second order: {} points checked, {} declined{left_out})",
        programs.len() - failed.len(),
        failed.len(),
        CHECKED_POINTS.load(AtomicOrdering::Relaxed),
        SKIPPED_POINTS.load(AtomicOrdering::Relaxed),
        SECOND_CHECKED.load(AtomicOrdering::Relaxed),
        SECOND_DECLINED.load(AtomicOrdering::Relaxed),
    );
    println!("features: {features}");
    assert!(
        failed.is_empty(),
        "{} of {} random programs failed (seed {seed}); reproduce one with \
         DIFF_FUZZ_SEED={seed} DIFF_FUZZ_ONLY=<index>",
        failed.len(),
        programs.len()
    );
}
