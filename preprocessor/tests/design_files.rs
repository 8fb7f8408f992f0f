//! DESIGN.md's "Every source file" table is written from the code: one row per file under
//! `preprocessor/src`, with the file's `//!` line (its one job). This test fails when a file is
//! added, moved, removed or re-described without the table following;
//! `SNAPSHOTS=overwrite cargo test --test design_files` rewrites it.

mod common;

use std::path::{Path, PathBuf};

const BEGIN: &str = "<!-- files: written from each file's //! line by tests/design_files.rs -->\n";
const END: &str = "<!-- files: end -->\n";

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The first `//!` line of a file, without the marker.
fn job(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let first = text
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("//!"))
        .unwrap_or_else(|| panic!("{} does not start with a //! line", path.display()));
    first.trim().replace('|', "\\|")
}

fn expected_table(src: &Path) -> String {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut out = String::from("| file | its job (the first `//!` line) |\n|---|---|\n");
    for f in files {
        let rel = f.strip_prefix(src).unwrap().display().to_string();
        out.push_str(&format!("| `{rel}` | {} |\n", job(&f)));
    }
    out
}

#[test]
fn design_lists_every_source_file_with_its_job() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    common::check_written_block(
        &root.join("../DESIGN.md"),
        BEGIN,
        END,
        &expected_table(&root.join("src")),
        "cargo test --test design_files",
    );
}
