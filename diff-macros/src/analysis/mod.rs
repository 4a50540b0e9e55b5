//! Analyses over the IR.
pub mod activity;
