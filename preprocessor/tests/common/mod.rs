//! Helpers shared by the integration tests: the fixture books and throwaway copies of them.

#![allow(dead_code)] // each test crate uses a different subset

use std::fs;
use std::path::{Path, PathBuf};

/// The fault-injection fixture's experiment (spec and sources), embedded so that the GPU test
/// executables need no source tree on the GPU machine.
pub(crate) const FAULTS_EXPERIMENT: &[(&str, &str)] = &[
    (
        "kernels/faults/experiment.toml",
        include_str!("../fixtures/faults/kernels/faults/experiment.toml"),
    ),
    (
        "kernels/faults/faults.cu",
        include_str!("../fixtures/faults/kernels/faults/faults.cu"),
    ),
    (
        "kernels/faults/broken.cu",
        include_str!("../fixtures/faults/kernels/faults/broken.cu"),
    ),
];

/// Writes `(path, text)` files under `root`.
pub(crate) fn write_files<'a>(
    root: &Path,
    files: impl IntoIterator<Item = &'a (&'a str, &'a str)>,
) {
    for (rel, text) in files {
        let p = root.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(&p, text).unwrap();
    }
}

/// The binary a GPU test runs: `GPULAB_BIN`, else the one cargo built, else the one next to the
/// test executable's folder (`.device-bin/tests/gpu` → `.device-bin/mdbook-gpulab`).
pub(crate) fn gpu_binary() -> PathBuf {
    if let Ok(p) = std::env::var("GPULAB_BIN") {
        return PathBuf::from(p);
    }
    let built = PathBuf::from(env!("CARGO_BIN_EXE_mdbook-gpulab"));
    if built.exists() {
        return built;
    }
    let me = std::env::current_exe().expect("current_exe");
    me.parent()
        .and_then(Path::parent)
        .map(|d| d.join("mdbook-gpulab"))
        .filter(|p| p.exists())
        .unwrap_or(built)
}

/// Runs the `mdbook-gpulab` cargo built with `args`; fails the test, showing its stderr, unless it
/// succeeds.
pub(crate) fn gpulab_ok<S: AsRef<std::ffi::OsStr>>(
    args: impl IntoIterator<Item = S>,
) -> std::process::Output {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mdbook-gpulab"))
        .args(args)
        .output()
        .expect("running mdbook-gpulab");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// `tests/fixtures/<name>` in the source tree.
pub(crate) fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("fixtures")
        .join(name)
}

/// A fresh copy of fixture `name` in a temporary folder (deleted when the guard drops), without
/// its `expected/` snapshots or any build output, so tests never write into the source tree.
pub(crate) struct BookCopy {
    _tmp: tempfile::TempDir,
    pub root: PathBuf,
}

impl BookCopy {
    pub(crate) fn new(name: &str) -> BookCopy {
        let tmp = tempfile::tempdir().expect("creating a temporary folder");
        let root = tmp.path().join(name);
        copy_dir(&fixture(name), &root);
        BookCopy { _tmp: tmp, root }
    }

    pub(crate) fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    pub(crate) fn read(&self, rel: &str) -> String {
        let p = self.path(rel);
        fs::read_to_string(&p).unwrap_or_else(|e| panic!("reading {}: {e}", p.display()))
    }

    pub(crate) fn write(&self, rel: &str, text: &str) {
        let p = self.path(rel);
        if let Some(dir) = p.parent() {
            fs::create_dir_all(dir).unwrap();
        }
        fs::write(&p, text).unwrap_or_else(|e| panic!("writing {}: {e}", p.display()));
    }

    /// Replaces the single occurrence of `from` in file `rel` with `to`.
    pub(crate) fn edit(&self, rel: &str, from: &str, to: &str) {
        let text = self.read(rel);
        assert_eq!(
            text.matches(from).count(),
            1,
            "`{from}` should occur exactly once in {rel}"
        );
        self.write(rel, &text.replacen(from, to, 1));
    }
}

/// The repository's own handbook: its chapters, kernels and papers, without its recordings.
impl BookCopy {
    pub(crate) fn handbook() -> BookCopy {
        let tmp = tempfile::tempdir().expect("creating a temporary folder");
        let root = tmp.path().join("handbook");
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        fs::create_dir_all(root.join("data")).unwrap();
        // Its `device` names a device of the recordings left behind (an error once others exist).
        let toml = fs::read_to_string(repo.join("book.toml")).unwrap();
        let toml: Vec<&str> = toml
            .lines()
            .filter(|l| !l.starts_with("device = "))
            .collect();
        fs::write(root.join("book.toml"), toml.join("\n") + "\n").unwrap();
        copy_dir(&repo.join("book"), &root.join("book"));
        copy_dir(&repo.join("kernels"), &root.join("kernels"));
        copy_dir(&repo.join("data/papers"), &root.join("data/papers"));
        BookCopy { _tmp: tmp, root }
    }
}

/// Copies a folder (skipping snapshots and build outputs).
pub(crate) fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        if name == "expected" || name == "out" || name == ".cache" {
            continue;
        }
        let dest = to.join(&name);
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &dest);
        } else {
            fs::copy(entry.path(), &dest).unwrap();
        }
    }
}

/// The `<main>…</main>` element of a page mdBook wrote, with trailing spaces trimmed per line
/// (the surrounding theme, asset hashes and indentation are mdBook's business, not ours).
pub(crate) fn main_element(html: &str) -> String {
    let start = html.find("<main>").expect("the page has a <main>");
    let end = html.find("</main>").expect("the page has a </main>") + "</main>".len();
    let mut out: String = html[start..end]
        .lines()
        .map(|l| l.trim_end())
        .collect::<Vec<_>>()
        .join("\n");
    out.push('\n');
    out
}

/// Checks that the text between the lines `begin` and `end` of `path` is `expected` (a block of a
/// document written from the code); with `SNAPSHOTS=overwrite` rewrites the block instead.
pub(crate) fn check_written_block(
    path: &Path,
    begin: &str,
    end: &str,
    expected: &str,
    command: &str,
) {
    let text = fs::read_to_string(path).unwrap();
    let start = text.find(begin).expect("the block's opening marker") + begin.len();
    let stop = start + text[start..].find(end).expect("the block's closing marker");
    if text[start..stop] == *expected {
        return;
    }
    if std::env::var("SNAPSHOTS").as_deref() == Ok("overwrite") {
        fs::write(
            path,
            format!("{}{expected}{}", &text[..start], &text[stop..]),
        )
        .unwrap();
        return;
    }
    panic!(
        "{} is not what the code writes; run `SNAPSHOTS=overwrite {command}`.\nexpected:\n{expected}\nfound:\n{}",
        path.display(),
        &text[start..stop]
    );
}
