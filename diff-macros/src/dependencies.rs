//! The crate's dependencies whose sources are at hand: those given by `path` in its
//! manifest (`xlib = { path = "../xlib" }`), directly or through the workspace's
//! `[workspace.dependencies]`, and the package's own library (for its tests, examples
//! and binaries).
//!
//! A path through another crate (`xlib::huber`) finds a function's companions in one of
//! two places, depending on how that crate lays the function out (see `emit::names`);
//! reading that crate's source tells which. A dependency from a registry or git is not
//! read (nothing of it is known, and the caller keeps its default).
use std::path::{Path, PathBuf};

/// The `src` folder of the dependency named `krate` in code (`xlib`, `my_lib` for a
/// package `my-lib`, or the name a `package = ..` rename gives), when it is a path
/// dependency of the crate being compiled.
pub fn source_folder(krate: &str) -> Option<PathBuf> {
    package_folder(krate).map(|dir| dir.join("src"))
}

/// The package folder of the path dependency named `krate` in code.
fn package_folder(krate: &str) -> Option<PathBuf> {
    with_dependencies(|all| {
        all.iter()
            .find(|(name, _)| name == krate)
            .map(|(_, dir)| dir.clone())
    })
}

/// The name of the library of the dependency named `krate` in code (its `[lib] name`, or
/// its package's name with `_` for `-`), which a `package = ..` rename does not change:
/// the crate's own name as its sources are compiled (`CARGO_CRATE_NAME`).
pub fn library_name(krate: &str) -> Option<String> {
    let dir = package_folder(krate)?;
    own_library(&std::fs::read_to_string(dir.join("Cargo.toml")).ok()?)
}

/// The `src` folders of every path dependency of the crate being compiled (the
/// package's own library among them).
pub fn source_folders() -> Vec<PathBuf> {
    with_dependencies(|all| all.iter().map(|(_, dir)| dir.join("src")).collect())
}

fn with_dependencies<R>(f: impl FnOnce(&[(String, PathBuf)]) -> R) -> R {
    thread_local! {
        static FOUND: std::cell::RefCell<Option<Vec<(String, PathBuf)>>> =
            const { std::cell::RefCell::new(None) };
    }
    FOUND.with(|found| f(found.borrow_mut().get_or_insert_with(path_dependencies)))
}

/// Every path dependency of the crate being compiled: its name in code and its folder.
fn path_dependencies() -> Vec<(String, PathBuf)> {
    let Ok(dir) = std::env::var("CARGO_MANIFEST_DIR") else {
        return Vec::new();
    };
    let dir = PathBuf::from(dir);
    let Ok(text) = std::fs::read_to_string(dir.join("Cargo.toml")) else {
        return Vec::new();
    };
    let workspace = workspace_root(&dir).and_then(|root| {
        let text = std::fs::read_to_string(root.join("Cargo.toml")).ok()?;
        Some((root, text))
    });
    // The package's own library, which its tests, examples and binaries use as a
    // dependency.
    let mut out: Vec<(String, PathBuf)> = own_library(&text)
        .map(|name| (name, dir.clone()))
        .into_iter()
        .collect();
    for entry in entries(&text) {
        let name = entry.name.replace('-', "_");
        if let Some(path) = &entry.path {
            out.push((name, dir.join(path)));
        } else if entry.workspace {
            let Some((root, text)) = &workspace else {
                continue;
            };
            let key = entry.package.as_deref().unwrap_or(&entry.key);
            if let Some(path) = entries(text)
                .into_iter()
                .find(|e| e.in_workspace && e.key == key)
                .and_then(|e| e.path)
            {
                out.push((name, root.join(path)));
            }
        }
    }
    out
}

/// The name in code of the library a manifest's package has (`[lib] name`, or the
/// package's name with `_` for `-`).
fn own_library(manifest: &str) -> Option<String> {
    let mut table = "";
    let (mut package, mut lib) = (None, None);
    for line in manifest.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.starts_with('[') {
            table = line;
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        if key.trim() == "name" {
            match table {
                "[package]" => package = Some(unquote(value)),
                "[lib]" => lib = Some(unquote(value)),
                _ => {}
            }
        }
    }
    lib.or(package).map(|n| n.replace('-', "_"))
}

/// The nearest folder above `dir` whose manifest has a `[workspace]` table.
fn workspace_root(dir: &Path) -> Option<PathBuf> {
    dir.ancestors().skip(1).find_map(|d| {
        let text = std::fs::read_to_string(d.join("Cargo.toml")).ok()?;
        text.lines()
            .any(|l| l.trim() == "[workspace]")
            .then(|| d.to_path_buf())
    })
}

/// One dependency as a manifest declares it.
#[derive(Default)]
struct Entry {
    /// The key it is declared under.
    key: String,
    /// The name code uses: the key (a `package = ..` names the package, not this).
    name: String,
    package: Option<String>,
    path: Option<String>,
    /// `workspace = true`.
    workspace: bool,
    /// Declared in `[workspace.dependencies]`.
    in_workspace: bool,
}

/// The dependencies a manifest declares, read line by line: `key = { path = ".." }`,
/// `key.path = ".."`, and `[dependencies.key]` tables, in every dependency table.
fn entries(manifest: &str) -> Vec<Entry> {
    let mut out: Vec<Entry> = Vec::new();
    // The table the lines are in: a dependency table, and the key a
    // `[dependencies.key]` table names.
    let mut table: Option<(bool, Option<String>)> = None;
    for line in manifest.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        if let Some(header) = line.strip_prefix('[') {
            let header = header.trim_matches(|c| c == '[' || c == ']').trim();
            let in_workspace = header.starts_with("workspace.");
            let (head, key) = match header.rsplit_once("dependencies") {
                Some((head, rest)) => (head, rest.trim_start_matches('.')),
                None => {
                    table = None;
                    continue;
                }
            };
            let plain = head.is_empty()
                || head.ends_with('.')
                || head.ends_with("dev-")
                || head.ends_with("build-");
            table = plain.then(|| (in_workspace, (!key.is_empty()).then(|| unquote(key))));
            if let Some((_, Some(key))) = &table {
                out.push(Entry {
                    key: key.clone(),
                    name: key.clone(),
                    in_workspace,
                    ..Entry::default()
                });
            }
            continue;
        }
        let Some((in_workspace, named)) = &table else {
            continue;
        };
        let Some((left, right)) = line.split_once('=') else {
            continue;
        };
        let (left, right) = (left.trim(), right.trim());
        if named.is_some() {
            // A line of `[dependencies.key]`.
            if let Some(last) = out.last_mut() {
                set(last, left, right);
            }
            continue;
        }
        let (key, field) = match left.split_once('.') {
            Some((key, field)) => (unquote(key), Some(field.trim())),
            None => (unquote(left), None),
        };
        let mut entry = Entry {
            key: key.clone(),
            name: key,
            in_workspace: *in_workspace,
            ..Entry::default()
        };
        match field {
            Some(field) => set(&mut entry, field, right),
            None => {
                let inline = right.trim_start_matches('{').trim_end_matches('}');
                for pair in inline.split(',') {
                    if let Some((k, v)) = pair.split_once('=') {
                        set(&mut entry, k.trim(), v.trim());
                    }
                }
            }
        }
        out.push(entry);
    }
    out
}

fn set(entry: &mut Entry, field: &str, value: &str) {
    match field {
        "path" => entry.path = Some(unquote(value)),
        "package" => entry.package = Some(unquote(value)),
        "workspace" => entry.workspace = value == "true",
        _ => {}
    }
}

fn unquote(s: &str) -> String {
    s.trim().trim_matches('"').trim_matches('\'').to_string()
}

#[cfg(test)]
mod tests {
    use super::entries;

    #[test]
    fn reads_the_ways_a_manifest_declares_a_path_dependency() {
        let manifest = r#"
[package]
name = "user"
path = "not/a/dependency"

[dependencies]
diff-ad = { path = "/work/main" }
xlib = { version = "0.1", path = "../xlib" } # a comment
serde = "1"
other.path = "../other"
shared = { workspace = true }
alias = { package = "real-name", path = "../real" }

[dev-dependencies.tested]
version = "0.2"
path = "crates/tested"

[target.'cfg(unix)'.dependencies]
unixy = { path = "u" }

[workspace.dependencies]
shared = { path = "crates/shared" }
"#;
        assert_eq!(super::own_library(manifest).as_deref(), Some("user"));
        let lib = "[package]\nname = \"diff-ad\"\n[lib]\nname = \"diff\"\n";
        assert_eq!(super::own_library(lib).as_deref(), Some("diff"));
        let found: Vec<_> = entries(manifest)
            .into_iter()
            .map(|e| (e.name, e.path, e.workspace, e.in_workspace))
            .collect();
        let want = |n: &str, p: Option<&str>, w: bool, iw: bool| {
            (n.to_string(), p.map(str::to_string), w, iw)
        };
        assert_eq!(
            found,
            vec![
                want("diff-ad", Some("/work/main"), false, false),
                want("xlib", Some("../xlib"), false, false),
                want("serde", None, false, false),
                want("other", Some("../other"), false, false),
                want("shared", None, true, false),
                want("alias", Some("../real"), false, false),
                want("tested", Some("crates/tested"), false, false),
                want("unixy", Some("u"), false, false),
                want("shared", Some("crates/shared"), false, true),
            ]
        );
    }
}
