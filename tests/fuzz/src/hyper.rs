//! The second-order oracle: the hyper-dual number `H`, `v + a·ε₁ + b·ε₂ + ab·ε₁ε₂` with
//! `ε₁² = ε₂² = 0`, whose `ab` part is the second derivative along the two seeded
//! directions. Like `D`, it shares nothing with the macro or diff-core; the programs are
//! rendered over it a third time (`mod hyper`, with `H` in place of `D`), so it has
//! exactly `D`'s interface.

use std::cmp::Ordering;
use std::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

/// A hyper-dual number.
#[derive(Clone, Copy, Debug)]
pub struct H {
    /// The value.
    pub v: f64,
    /// The derivative along the first direction.
    pub a: f64,
    /// The derivative along the second direction.
    pub b: f64,
    /// The second derivative along both.
    pub ab: f64,
}

impl H {
    /// A constant.
    pub fn c(v: f64) -> H {
        H {
            v,
            a: 0.0,
            b: 0.0,
            ab: 0.0,
        }
    }
    /// An input seeded with `a` along the first direction and `b` along the second.
    pub fn seeded2(v: f64, a: f64, b: f64) -> H {
        H { v, a, b, ab: 0.0 }
    }
    /// `g(self)` for a function with value `g`, first derivative `g1` and second `g2` at
    /// `self.v`.
    fn chain(self, g: f64, g1: f64, g2: f64) -> H {
        H {
            v: g,
            a: g1 * self.a,
            b: g1 * self.b,
            ab: g2 * self.a * self.b + g1 * self.ab,
        }
    }
    /// `sin`.
    pub fn sin(self) -> H {
        let (s, c) = (self.v.sin(), self.v.cos());
        self.chain(s, c, -s)
    }
    /// `cos`.
    pub fn cos(self) -> H {
        let (s, c) = (self.v.sin(), self.v.cos());
        self.chain(c, -s, -c)
    }
    /// `tanh`.
    pub fn tanh(self) -> H {
        let t = self.v.tanh();
        let d = 1.0 - t * t;
        self.chain(t, d, -2.0 * t * d)
    }
    /// `exp`.
    pub fn exp(self) -> H {
        let e = self.v.exp();
        self.chain(e, e, e)
    }
    /// `sqrt`.
    pub fn sqrt(self) -> H {
        let s = self.v.sqrt();
        self.chain(s, 0.5 / s, -0.25 / (s * self.v))
    }
    /// `powi`.
    pub fn powi(self, n: i32) -> H {
        let nf = f64::from(n);
        let g1 = nf * self.v.powi(n - 1);
        let g2 = nf * (nf - 1.0) * self.v.powi(n - 2);
        self.chain(self.v.powi(n), g1, g2)
    }
}

impl Add for H {
    type Output = H;
    fn add(self, o: H) -> H {
        H {
            v: self.v + o.v,
            a: self.a + o.a,
            b: self.b + o.b,
            ab: self.ab + o.ab,
        }
    }
}

impl Sub for H {
    type Output = H;
    fn sub(self, o: H) -> H {
        H {
            v: self.v - o.v,
            a: self.a - o.a,
            b: self.b - o.b,
            ab: self.ab - o.ab,
        }
    }
}

impl Mul for H {
    type Output = H;
    fn mul(self, o: H) -> H {
        H {
            v: self.v * o.v,
            a: self.a * o.v + self.v * o.a,
            b: self.b * o.v + self.v * o.b,
            ab: self.ab * o.v + self.a * o.b + self.b * o.a + self.v * o.ab,
        }
    }
}

impl Div for H {
    type Output = H;
    fn div(self, o: H) -> H {
        let r = o.chain(1.0 / o.v, -1.0 / (o.v * o.v), 2.0 / (o.v * o.v * o.v));
        H {
            v: self.v / o.v,
            ..self * r
        }
    }
}

impl Neg for H {
    type Output = H;
    fn neg(self) -> H {
        H {
            v: -self.v,
            a: -self.a,
            b: -self.b,
            ab: -self.ab,
        }
    }
}

by_value!(H);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_derivatives_of_known_functions() {
        // d²/dx² of x·sin(x) / (1 + x²) at 0.7, by central differences of the first.
        let f = |x: H| x * x.sin() / (H::c(1.0) + x * x);
        let at = 0.7;
        let h = f(H::seeded2(at, 1.0, 1.0));
        let d1 = |x: f64| f(H::seeded2(x, 1.0, 0.0)).a;
        let fd = (d1(at + 1e-5) - d1(at - 1e-5)) / 2e-5;
        assert!((h.ab - fd).abs() < 1e-8, "{} vs {}", h.ab, fd);
        // Mixed: d²/dxdy of x·y·exp(y) is (1 + y)·exp(y).
        let (x, y) = (H::seeded2(0.3, 1.0, 0.0), H::seeded2(-0.4, 0.0, 1.0));
        let g = x * y * y.exp();
        assert!((g.ab - 0.6 * (-0.4f64).exp()).abs() < 1e-15);
        let s = H::seeded2(2.0, 1.0, 1.0).sqrt().tanh().powi(3).cos();
        assert!(s.ab.is_finite());
    }
}
