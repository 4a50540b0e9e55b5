//! The text form of an analyzed body: the IR with, for each value, its activity, for
//! each active statement, what its rule reads, and for each region, what its linear map
//! saves. Golden-file tests compare it (`golden/`, refreshed with
//! `DIFF_BLESS=1 cargo test -p diff-macros golden`); it is also what to read when
//! the macro misbehaves.
use crate::ir::{RegionId, Value};
use crate::linear_map::Saved;
use crate::linearization;
use crate::pipeline::Analyzed;
use std::fmt::Write;

/// The annotated IR of `a`.
pub fn annotated(a: &Analyzed) -> String {
    let mut out = String::new();
    region(a, &mut out, a.func.entry(), 0);
    out
}

fn list(vs: &[Value]) -> String {
    vs.iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// `active`, `varied`, `useful` or nothing, for a value.
fn activity(a: &Analyzed, v: Value) -> &'static str {
    match (a.act.varied.contains(&v), a.act.useful.contains(&v)) {
        (true, true) => "active",
        (true, false) => "varied",
        (false, true) => "useful",
        (false, false) => "",
    }
}

fn saved(s: &Saved) -> String {
    match s {
        Saved::Value(v) => v.to_string(),
        Saved::Callee(v) => format!("linear map of {v}"),
        Saved::Pred(r) => format!("branch taken at r{}", r.0),
        Saved::Tape(r) => format!("tape of r{}", r.0),
        Saved::Stack(r) => format!("stack of the tapes of r{}", r.0),
        Saved::Shape(v) => format!("shape of {v}"),
        Saved::Marker(v) => format!("type of {v}"),
        Saved::Copy(v) => format!("copy of {v}"),
        Saved::Copies(v) => format!("copies of {v}"),
    }
}

fn region(a: &Analyzed, out: &mut String, r: RegionId, depth: usize) {
    let func = &a.func;
    let reg = func.region(r);
    let pad = "  ".repeat(depth);
    let params: Vec<String> = reg
        .params
        .iter()
        .map(|p| match activity(a, *p) {
            "" => p.to_string(),
            act => format!("{p} {act}"),
        })
        .collect();
    let _ = writeln!(out, "{pad}r{}({}):", r.0, params.join(", "));
    for stmt in &reg.stmts {
        let mut notes: Vec<String> = stmt
            .results
            .iter()
            .filter(|v| !activity(a, **v).is_empty())
            .map(|v| format!("{v} {}", activity(a, *v)))
            .collect();
        if stmt.results.iter().any(|v| a.act.is_active(*v)) {
            if let Some(rule) = linearization::rule(stmt) {
                let reads: Vec<String> = rule.reads(func, stmt, &a.act).iter().map(saved).collect();
                if !reads.is_empty() {
                    notes.push(format!("reads {}", reads.join(", ")));
                }
            }
        }
        let notes = if notes.is_empty() {
            String::new()
        } else {
            format!("  ; {}", notes.join("; "))
        };
        let _ = writeln!(
            out,
            "{pad}  {} = {}{notes}",
            list(&stmt.results),
            stmt.inst.describe()
        );
        for sub in stmt.inst.regions() {
            region(a, out, sub, depth + 2);
        }
    }
    let _ = writeln!(out, "{pad}  yield {}", list(&reg.yields));
    let saves: Vec<String> = a.maps.saved(r).iter().map(saved).collect();
    if !saves.is_empty() {
        let _ = writeln!(out, "{pad}  saves {}", saves.join(", "));
    }
    let consts: Vec<String> = a
        .maps
        .rematerialized(r)
        .iter()
        .map(|(v, _)| v.to_string())
        .chain(a.maps.derived(r).iter().map(|(v, _)| v.to_string()))
        .collect();
    if !consts.is_empty() {
        let _ = writeln!(out, "{pad}  recomputes {}", consts.join(", "));
    }
}

#[cfg(test)]
mod golden {
    //! Golden files: each `golden/NAME.rs` holds functions; `golden/NAME.ir` their
    //! annotated IR (or their errors). `DIFF_BLESS=1` rewrites the `.ir` files.
    use crate::errors::Errors;
    use crate::parse::signature::FnSig;
    use crate::pipeline::{self, Body};
    use std::path::Path;

    fn render(source: &str) -> String {
        let file: syn::File = syn::parse_str(source).expect("a golden input parses");
        let mut out = String::new();
        for item in file.items {
            let syn::Item::Fn(f) = item else { continue };
            out.push_str(&format!("fn {}\n", f.sig.ident));
            let mut errors = Errors::default();
            let analyzed = errors
                .take(FnSig::in_context(
                    &f.sig,
                    None,
                    Some(&syn::Generics::default()),
                ))
                .and_then(|sig| pipeline::analyze("golden", Body::of(&sig, &f.block), &mut errors));
            match (analyzed, errors.into_result()) {
                (Some(a), Ok(())) => out.push_str(&super::annotated(&a)),
                (_, Err(e)) => {
                    for e in e {
                        out.push_str(&format!("error: {e}\n"));
                    }
                }
                (None, Ok(())) => out.push_str("refused without an error\n"),
            }
            out.push('\n');
        }
        out
    }

    #[test]
    fn golden() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("golden");
        let bless = std::env::var_os("DIFF_BLESS").is_some();
        let mut inputs: Vec<_> = std::fs::read_dir(&dir)
            .expect("diff-macros/golden exists")
            .map(|e| e.expect("a directory entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "rs"))
            .collect();
        inputs.sort();
        assert!(!inputs.is_empty(), "no golden inputs in {}", dir.display());
        let mut stale = Vec::new();
        for input in inputs {
            let got = render(&std::fs::read_to_string(&input).expect("readable"));
            let expected_path = input.with_extension("ir");
            if bless {
                std::fs::write(&expected_path, &got).expect("writable");
                continue;
            }
            let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
            if got != expected {
                eprintln!("--- {} ---\n{got}", expected_path.display());
                stale.push(expected_path);
            }
        }
        assert!(
            stale.is_empty(),
            "golden files differ (printed above): {stale:?}; if the change is intended, run \
             `DIFF_BLESS=1 cargo test -p diff-macros golden` and read the diff"
        );
    }
}
