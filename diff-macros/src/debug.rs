//! Development aids: `DIFF_DEBUG_EXPAND=/path/file` appends every expansion to that file,
//! `DIFF_DEBUG_IR=/path/file` the annotated IR of every differentiated body
//! (`print.rs`).
use proc_macro2::TokenStream;
use std::io::Write;

/// Appends `tokens` to the file named by `DIFF_DEBUG_EXPAND`, when it is set.
pub fn dump(tokens: &TokenStream) {
    append("DIFF_DEBUG_EXPAND", &tokens.to_string());
}

/// Appends the annotated IR of `a` to the file named by `DIFF_DEBUG_IR`, when it is set.
pub fn dump_ir(name: &str, a: &crate::pipeline::Analyzed) {
    if std::env::var_os("DIFF_DEBUG_IR").is_some() {
        append(
            "DIFF_DEBUG_IR",
            &format!("fn {name}\n{}", crate::print::annotated(a)),
        );
    }
}

fn append(var: &str, text: &str) {
    if let Some(path) = std::env::var_os(var) {
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
        {
            let _ = writeln!(f, "<<<DIFF\n{text}\nDIFF>>>");
        }
    }
}
