//! Placeholder so the manifest parses; the criterion benchmarks are written elsewhere.
fn main() {}
