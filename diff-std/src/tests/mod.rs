//! Tests of the rule table: every rule against central finite differences of its primal,
//! the reverse mode against the forward mode, and the conventions at special points.
//!
//! Each rule runs for `f64` and `f32`. The finite differences are always taken of the `f64`
//! primal (at the point rounded to the tested type), so that for `f32` they measure the
//! rule, not the noise of `f32` differencing.

mod analytic;
mod harness;
mod special;
mod table;
