//! Analyses over the IR.
pub mod activity;
pub mod integers;
