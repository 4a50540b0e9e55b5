//! Black-Scholes greeks of a European call. First order (delta, vega, rho) come from one
//! `gradient!` of the price with respect to (spot, volatility, rate); second order (gamma,
//! vanna, volga) from one `hessian!` of the same function, which is generic over its
//! scalar so that it can also run on dual numbers. Both are checked against the closed
//! forms.
//!
//! Run: `cargo run --release --example option_greeks`
use diff::prelude::*;

/// The standard normal distribution function, by the rational approximation 26.2.17 of
/// Abramowitz and Stegun (absolute error below 7.5e-8).
#[differentiable]
fn normal_cdf<T: Float>(x: T) -> T {
    let c = |v: f64| T::from(v).unwrap();
    let z = x.abs();
    let t = T::one() / (T::one() + c(0.231_641_9) * z);
    let poly = t
        * (c(0.319_381_530)
            + t * (c(-0.356_563_782)
                + t * (c(1.781_477_937) + t * (c(-1.821_255_978) + t * c(1.330_274_429)))));
    let tail = (-(z * z) / c(2.0)).exp() / c((2.0 * std::f64::consts::PI).sqrt()) * poly;
    if x >= T::zero() {
        T::one() - tail
    } else {
        tail
    }
}

/// The price of a call struck at 100 expiring in one year, at `p = [spot, volatility, rate]`.
#[differentiable]
fn call_price<T: Float>(p: &[T; 3]) -> T {
    let [spot, vol, rate] = *p;
    let (strike, expiry) = (T::from(100.0).unwrap(), T::one());
    let sd = vol * expiry.sqrt();
    let d1 = ((spot / strike).ln() + (rate + vol * vol / T::from(2.0).unwrap()) * expiry) / sd;
    let d2 = d1 - sd;
    spot * normal_cdf(d1) - strike * (-rate * expiry).exp() * normal_cdf(d2)
}

fn pdf(x: f64) -> f64 {
    (-x * x / 2.0).exp() / (2.0 * std::f64::consts::PI).sqrt()
}

pub fn main() {
    let (spot, vol, rate) = (105.0, 0.2, 0.03);
    let p = [spot, vol, rate];
    let (price, [delta, vega, rho]) = value_with_gradient!(at: &p, of: call_price);
    let h = hessian!(at: &p, of: call_price);
    let (gamma, vanna, volga) = (h[0][0], h[0][1], h[1][1]);
    println!("price {price:.4}");
    println!("delta {delta:.6}  vega {vega:.4}  rho {rho:.4}");
    println!("gamma {gamma:.6}  vanna {vanna:.6}  volga {volga:.4}");

    // The closed forms. The derivatives are exact for the approximation of N, whose own
    // derivatives approach the normal density less closely the higher the order.
    let d1 = ((spot / 100.0f64).ln() + rate + vol * vol / 2.0) / vol;
    let d2 = d1 - vol;
    let close = |a: f64, b: f64, tol: f64, what: &str| {
        assert!((a - b).abs() < tol * (1.0 + b.abs()), "{what}: {a} vs {b}")
    };
    close(delta, normal_cdf(d1), 2e-5, "delta");
    close(vega, spot * pdf(d1), 2e-5, "vega");
    close(rho, 100.0 * (-rate).exp() * normal_cdf(d2), 2e-5, "rho");
    close(gamma, pdf(d1) / (spot * vol), 1e-3, "gamma");
    close(vanna, -pdf(d1) * d2 / vol, 1e-3, "vanna");
    close(volga, spot * pdf(d1) * d1 * d2 / vol, 1e-3, "volga");
    assert!(
        (h[1][0] - h[0][1]).abs() < 1e-12,
        "the Hessian is symmetric"
    );
}
