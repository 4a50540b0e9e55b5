//! Generates the random programs of this run into `$OUT_DIR` (see README.md):
//! `p_NNNNN.rs`, one module per program, and `index.rs`, which declares them and lists
//! their `check` functions for `tests/random_programs.rs`.
//!
//! Environment:
//! - `DIFF_FUZZ_SEED`: the run's seed (decimal or 0x hex; default below);
//! - `DIFF_FUZZ_COUNT`: how many programs (default below: the CI budget);
//! - `DIFF_FUZZ_ONLY`: only program i of the seed (reproduction);
//! - `DIFF_FUZZ_SKIP`: a comma list of program indices to leave out (ones that do not
//!   compile, so the others of the batch can run);
//! - `DIFF_FUZZ_FEATURES`: a comma list such as `-struct,-swap,+retloop`;
//! - `DIFF_FUZZ_DROP`, `DIFF_FUZZ_UNWRAP`, `DIFF_FUZZ_SIMPLIFY`: statement numbers to
//!   delete, unwrap or simplify in the `DIFF_FUZZ_ONLY` program, `DIFF_FUZZ_DROP_FNS`:
//!   helpers to leave out (`S`: the struct) (used by shrink.sh).

#[path = "gen/mod.rs"]
mod gen;

use std::env;
use std::fs;
use std::path::Path;

const DEFAULT_SEED: u64 = 20_250_601;
const DEFAULT_COUNT: usize = 500;
/// The programs are compiled as this many test crates (`tests/random_programs*.rs`), which
/// cargo compiles in parallel: rustc's front end, most of the time, is serial.
const SHARDS: usize = 2;

const VARS: [&str; 9] = [
    "DIFF_FUZZ_SEED",
    "DIFF_FUZZ_COUNT",
    "DIFF_FUZZ_ONLY",
    "DIFF_FUZZ_SKIP",
    "DIFF_FUZZ_FEATURES",
    "DIFF_FUZZ_DROP",
    "DIFF_FUZZ_UNWRAP",
    "DIFF_FUZZ_DROP_FNS",
    "DIFF_FUZZ_SIMPLIFY",
];

fn var(name: &str) -> Option<String> {
    env::var(name).ok().filter(|v| !v.trim().is_empty())
}

fn number(name: &str, v: &str) -> u64 {
    let v = v.trim();
    let parsed = match v.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16),
        None => v.parse(),
    };
    parsed.unwrap_or_else(|_| panic!("{name}={v}: not a number"))
}

fn list(name: &str) -> Vec<usize> {
    var(name)
        .map(|v| {
            v.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(|s| number(name, s) as usize)
                .collect()
        })
        .unwrap_or_default()
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=gen");
    for v in VARS {
        println!("cargo:rerun-if-env-changed={v}");
    }
    let seed = var("DIFF_FUZZ_SEED").map_or(DEFAULT_SEED, |v| number("DIFF_FUZZ_SEED", &v));
    let count =
        var("DIFF_FUZZ_COUNT").map_or(DEFAULT_COUNT, |v| number("DIFF_FUZZ_COUNT", &v) as usize);
    let only = var("DIFF_FUZZ_ONLY").map(|v| number("DIFF_FUZZ_ONLY", &v) as usize);
    let skip = list("DIFF_FUZZ_SKIP");
    let drop = list("DIFF_FUZZ_DROP");
    let unwrap = list("DIFF_FUZZ_UNWRAP");
    let simplify = list("DIFF_FUZZ_SIMPLIFY");
    let drop_fns: Vec<String> = var("DIFF_FUZZ_DROP_FNS")
        .map(|v| v.split(',').map(|s| s.trim().to_string()).collect())
        .unwrap_or_default();
    let spec = var("DIFF_FUZZ_FEATURES").unwrap_or_default();
    let feats =
        gen::features::Features::parse(&spec).unwrap_or_else(|e| panic!("DIFF_FUZZ_FEATURES: {e}"));
    let described = feats.describe();

    let out = env::var("OUT_DIR").expect("OUT_DIR");
    let out = Path::new(&out);
    for entry in fs::read_dir(out).expect("OUT_DIR is readable").flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with("p_") && name.ends_with(".rs") {
            let _ = fs::remove_file(entry.path());
        }
    }

    let indices: Vec<usize> = match only {
        Some(i) => vec![i],
        None => (0..count).filter(|i| !skip.contains(i)).collect(),
    };
    let header = format!(
        "/// The seed of this run.\npub const SEED: u64 = {seed};\n\
         /// The features of the generated programs.\npub const FEATURES: &str = {described:?};\n\
         /// Left out of this run (`DIFF_FUZZ_SKIP`).\npub const SKIPPED: &[usize] = &{skip:?};\n\n"
    );
    let mut mods = vec![String::new(); SHARDS];
    let mut lists = vec![String::new(); SHARDS];
    for (n, &i) in indices.iter().enumerate() {
        let mut program = gen::generate::program(seed, i, &feats);
        if only.is_some() {
            let (compound, simple) = gen::shrink::kinds(&program);
            let ids = |v: Vec<usize>| {
                v.iter()
                    .map(|i| i.to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            };
            println!(
                "cargo:warning=program {i} of seed {seed}: compound {}; simple {}",
                ids(compound),
                ids(simple)
            );
            let edit = gen::shrink::Edit {
                drop: &drop,
                unwrap: &unwrap,
                simplify: &simplify,
                drop_fns: &drop_fns,
            };
            gen::shrink::apply(&mut program, &edit);
            let helpers: Vec<&str> = program
                .fns
                .iter()
                .map(|f| f.name.as_str())
                .filter(|n| *n != "f")
                .chain(program.has_struct.then_some("S"))
                .collect();
            println!(
                "cargo:warning=program {i} of seed {seed}: {} statements; helpers {}",
                gen::shrink::count(&program),
                helpers.join(",")
            );
        }
        let file = out.join(format!("p_{i:05}.rs"));
        fs::write(&file, gen::render::program_file(&program, &described)).expect("write a program");
        let shard = n % SHARDS;
        mods[shard].push_str(&format!(
            "#[path = {:?}]\nmod p_{i:05};\n",
            file.display().to_string()
        ));
        lists[shard].push_str(&format!("    ({i}, p_{i:05}::check, p_{i:05}::SOURCE),\n"));
    }
    for shard in 0..SHARDS {
        let index = format!(
            "{header}{}\n/// `(index, check, source)` of every program of this shard.\n\
             pub static PROGRAMS: &[diff_fuzz::Program] = &[\n{}];\n",
            mods[shard], lists[shard]
        );
        fs::write(out.join(format!("index_{shard}.rs")), index).expect("write an index");
    }
}
