//! Runs the generated programs of shard 1 (see build.rs and README.md): every failure is
//! printed with its seed, index, reason and source, and the test fails if any failed.

include!(concat!(env!("OUT_DIR"), "/index_1.rs"));

#[test]
fn random_programs() {
    diff_fuzz::run_programs(SEED, FEATURES, SKIPPED, PROGRAMS);
}
