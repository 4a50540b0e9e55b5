//! The program generator, used by `build.rs` (and nothing else): a seed and an index
//! give one program, rendered as a module of the test.

pub mod ast;
pub mod features;
pub mod generate;
pub mod render;
pub mod rng;
pub mod shrink;
