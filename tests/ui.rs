//! Compile-fail cases: each `tests/ui/*.rs` must fail to compile with the error in its
//! `.stderr` beside it. Regenerate after a deliberate message change with
//! `TRYBUILD=overwrite cargo test --test ui`, then read every changed `.stderr`.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
