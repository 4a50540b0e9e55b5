//! The extension traits [`FloatVjp`] and [`FloatJvp`], built by `table.rs` from the rule
//! table of diff-core (`diff_core::float_rules!`), which `Dual` and diff-macros read too.

use diff_core::float_rules::{cast, rem_quotient};
use num_traits::Float;

diff_core::float_rules!(rules);
