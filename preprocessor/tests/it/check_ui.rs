//! `check` diagnostics as UI tests, one case per diagnostic (like rustc's UI tests): each
//! `tests/ui/<case>.toml` edits a copy of a fixture book and runs the binary; its stderr must
//! equal `tests/ui/<case>.stderr` (the book's temporary root is written `$BOOK`, NVRTC's version
//! `$NVRTC`). Update the expected files with `SNAPSHOTS=overwrite cargo test --test it check_ui`.
//! A case with `nvrtc = true` compiles kernels: where libnvrtc is missing it is skipped, loudly
//! (and fails under `GPULAB_REQUIRE_NVRTC`, as in CI).

use crate::common;

use common::BookCopy;
use serde::Deserialize;
use std::path::Path;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    /// The fixture book to copy (`basic`).
    fixture: String,
    /// The command line after the binary; the book's root is appended.
    args: Vec<String>,
    /// The exit code expected (1: errors found).
    code: i32,
    #[serde(default, rename = "edit")]
    edits: Vec<Edit>,
    /// Files written whole into the copy (a new kernel, a new chapter).
    #[serde(default, rename = "write")]
    writes: Vec<Write>,
    /// Files replaced by symbolic links (a spec that resolves outside the book).
    #[serde(default, rename = "symlink")]
    symlinks: Vec<Symlink>,
    /// The case compiles kernels with NVRTC (checks against PTX).
    #[serde(default)]
    nvrtc: bool,
    /// Environment variables of the command (`GPULAB_HIDE_LIBS = "nvrtc"`: as if NVRTC were missing).
    #[serde(default)]
    env: std::collections::BTreeMap<String, String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Edit {
    file: String,
    from: String,
    to: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Write {
    file: String,
    text: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Symlink {
    /// The link, relative to the book's root (an existing file there is removed first).
    file: String,
    /// What it points at, as written into the link (relative to the link's folder).
    target: String,
}

fn run_case(case_path: &Path) -> Result<(), String> {
    let case: Case = toml::from_str(&std::fs::read_to_string(case_path).unwrap())
        .map_err(|e| format!("{}: {e}", case_path.display()))?;
    if case.nvrtc && !mdbook_gpulab::gpu::nvrtc_library_present() {
        if std::env::var_os("GPULAB_REQUIRE_NVRTC").is_some() {
            return Err(format!(
                "{}: needs NVRTC, and GPULAB_REQUIRE_NVRTC is set but libnvrtc is missing",
                case_path.display()
            ));
        }
        eprintln!(
            "\n*** SKIPPED {}: needs NVRTC (`source scripts/ci/nvrtc.sh` installs it in .venv-ci/) ***\n",
            case_path.display()
        );
        return Ok(());
    }
    let book = BookCopy::new(&case.fixture);
    for w in &case.writes {
        book.write(&w.file, &w.text);
    }
    for e in &case.edits {
        book.edit(&e.file, &e.from, &e.to);
    }
    for l in &case.symlinks {
        let link = book.path(&l.file);
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&l.target, &link).unwrap();
    }
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mdbook-gpulab"))
        .args(&case.args)
        .arg(&book.root)
        .env_remove("GPULAB_REQUIRE_NVRTC")
        .envs(&case.env)
        .output()
        .expect("running mdbook-gpulab");
    let stderr =
        String::from_utf8_lossy(&out.stderr).replace(&book.root.display().to_string(), "$BOOK");
    let stderr = match mdbook_gpulab::gpu::nvrtc_version() {
        Ok((major, minor)) if case.nvrtc => {
            stderr.replace(&format!("NVRTC {major}.{minor} "), "NVRTC $NVRTC ")
        }
        _ => stderr,
    };
    let expected_path = case_path.with_extension("stderr");
    if std::env::var("SNAPSHOTS").as_deref() == Ok("overwrite") {
        std::fs::write(&expected_path, &stderr).unwrap();
    }
    let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
    let mut problems = Vec::new();
    if out.status.code() != Some(case.code) {
        problems.push(format!(
            "exit code {:?}, expected {}",
            out.status.code(),
            case.code
        ));
    }
    if stderr != expected {
        problems.push(format!(
            "stderr differs from {}:\n--- expected\n{expected}\n--- actual\n{stderr}",
            expected_path.display()
        ));
    }
    if stderr.contains("panicked") {
        problems.push("panicked".into());
    }
    match problems.is_empty() {
        true => Ok(()),
        false => Err(format!("{}: {}", case_path.display(), problems.join("\n"))),
    }
}

#[test]
fn every_check_diagnostic_matches_its_expected_stderr() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ui");
    let mut cases: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    cases.sort();
    assert!(!cases.is_empty(), "no cases in {}", dir.display());
    let failures: Vec<String> = cases.iter().filter_map(|c| run_case(c).err()).collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
}
