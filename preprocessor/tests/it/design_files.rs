//! DESIGN.md describes every crate by its modules: under the heading naming a crate's folder, a
//! table with one row per top-level module of that crate. This test fails when a module is added,
//! moved or removed without the table following, and when a source file lacks the `//!` line
//! that says its one job.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Every crate of the workspace: its folder as DESIGN.md names it, and its `src`.
fn crates(root: &Path) -> Vec<(String, PathBuf)> {
    let mut out = vec![("preprocessor/".to_string(), root.join("src"))];
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    dirs.sort();
    for dir in dirs {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        out.push((format!("preprocessor/crates/{name}"), dir.join("src")));
    }
    out
}

/// A crate's top-level modules (`foo.rs` or `foo/`), with `main.rs` but not `lib.rs` or test
/// modules (`foo_tests.rs`).
fn modules(src: &Path) -> BTreeSet<String> {
    std::fs::read_dir(src)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir() || p.extension().is_some_and(|x| x == "rs"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .filter(|m| m != "lib" && !m.ends_with("_tests"))
        .map(|m| if m == "main" { "main.rs".into() } else { m })
        .collect()
}

/// The modules named in the first column of the table under the heading that names `krate`.
fn documented(design: &str, krate: &str) -> BTreeSet<String> {
    let section = design
        .split("\n### ")
        .find(|s| s.starts_with(&format!("`{krate}`")))
        .unwrap_or_else(|| panic!("DESIGN.md has no `### `{krate}`` heading"));
    section
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split('`').next())
        .map(String::from)
        .collect()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn design_describes_every_module_of_every_crate() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let design = std::fs::read_to_string(root.join("../DESIGN.md")).unwrap();
    for (krate, src) in crates(root) {
        assert_eq!(
            documented(&design, &krate),
            modules(&src),
            "DESIGN.md's table for `{krate}` must name exactly its modules"
        );
    }
}

#[test]
fn every_source_file_starts_with_a_line_saying_its_job() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for (_, src) in crates(root) {
        rust_files(&src, &mut files);
    }
    let missing: Vec<String> = files
        .iter()
        .filter(|f| !std::fs::read_to_string(f).unwrap().starts_with("//!"))
        .map(|f| f.display().to_string())
        .collect();
    assert!(missing.is_empty(), "files without a //! line: {missing:?}");
}
