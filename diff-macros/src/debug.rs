//! Development aid: `DIFF_DEBUG_EXPAND=/path/file` appends every expansion to that file.
use proc_macro2::TokenStream;
use std::io::Write;

/// Appends `tokens` to the file named by `DIFF_DEBUG_EXPAND`, when it is set.
pub fn dump(tokens: &TokenStream) {
    if let Some(path) = std::env::var_os("DIFF_DEBUG_EXPAND") {
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
        {
            let _ = writeln!(f, "<<<DIFF\n{tokens}\nDIFF>>>");
        }
    }
}
