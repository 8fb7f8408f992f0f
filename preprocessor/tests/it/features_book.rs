//! The features fixture book (`tests/fixtures/features-book`): one experiment per feature of
//! issues 14 and 35, the worked examples of book/adding-an-experiment.md. Without a GPU it passes `check`
//! (every kernel compiled with NVRTC and checked against its PTX; that step is skipped, loudly,
//! where libnvrtc is missing, and required under `GPULAB_REQUIRE_NVRTC` as in CI), builds with
//! `--strict` while its experiments await a GPU run, and shows the code beside every result. On a
//! GPU, `STEPS=features scripts/gpu-suite.sh` records it; every point must verify.

use crate::common;

use common::BookCopy;
use std::process::{Command, Output};

const BOOK: &str = "features-book";

/// Every directive of the book: (chapter, experiment, a line of its kernel source).
const DIRECTIVES: &[(&str, &str, &str)] = &[
    (
        "references",
        "stencil",
        "stencil_shared(const float* x, float* y, float c, int n)",
    ),
    (
        "references",
        "stencil_2d",
        "laplace(const int* x, int* y, int w, int h)",
    ),
    (
        "references",
        "scan",
        "segment_scan(const int* x, int* y, int n, int exclusive)",
    ),
    (
        "references",
        "rows_cols",
        "col_max(const int* x, int* out, int rows, int cols)",
    ),
    (
        "sequences",
        "prefix_sum",
        "scan_sums(unsigned* sums, int tiles)",
    ),
];

fn run(book: &BookCopy, args: &[&str]) -> (Output, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mdbook-gpulab"))
        .args(args)
        .arg(&book.root)
        .env_remove("GPULAB_REQUIRE_NVRTC")
        .output()
        .expect("running mdbook-gpulab");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out, stderr)
}

fn nvrtc() -> bool {
    let present = mdbook_gpulab::gpu::nvrtc_library_present();
    if !present {
        assert!(
            std::env::var_os("GPULAB_REQUIRE_NVRTC").is_none(),
            "GPULAB_REQUIRE_NVRTC is set but libnvrtc is missing"
        );
        eprintln!(
            "\n*** SKIPPED: compiling the features book's kernels and checking their PTX: libnvrtc.so.13 \
             is not loadable (`source scripts/ci/nvrtc.sh` installs it in .venv-ci/) ***\n"
        );
    }
    present
}

#[test]
fn every_experiment_passes_check_with_its_kernels_checked_against_their_ptx() {
    let book = BookCopy::new(BOOK);
    let (out, stderr) = run(&book, &["check"]);
    assert!(out.status.success(), "check failed:\n{stderr}");
    let experiments: std::collections::BTreeSet<&str> =
        DIRECTIVES.iter().map(|(_, e, _)| *e).collect();
    assert!(
        stderr.contains(&format!(
            "checked {} directive(s), {} experiment spec(s)",
            DIRECTIVES.len(),
            experiments.len()
        )),
        "{stderr}"
    );
    if nvrtc() {
        assert!(
            stderr.contains("all 7 kernel build(s) compiled"),
            "{stderr}"
        );
        assert!(
            stderr.contains("checked 8 kernel variant(s) against their PTX (kernel name, arguments, block, shared memory): 0 problem(s)"),
            "{stderr}"
        );
    }
}

/// Issue 35: `check` compiled every kernel build of the book each time (1 to 4 minutes for the
/// handbook). It compiles those of the experiments or chapter asked for, and a build again only
/// when it changed (the engine's compile cache, in the book's cache folder).
#[test]
fn check_compiles_what_it_is_asked_for_and_then_only_what_changed() {
    let book = BookCopy::new(BOOK);
    // "compiling N kernel build(s) with NVRTC …", or "SKIPPED: compiling N kernel build(s) …".
    let builds = |args: &[&str]| {
        let (out, stderr) = run(&book, args);
        assert!(out.status.success(), "{stderr}");
        let n = stderr
            .split("compiling ")
            .nth(1)
            .and_then(|t| t.split(' ').next());
        n.and_then(|n| n.parse::<usize>().ok())
            .unwrap_or_else(|| panic!("{stderr}"))
    };
    assert_eq!(builds(&["check", "--experiment", "stencil"]), 2);
    assert_eq!(builds(&["check", "--experiment", "stencil,rows_cols"]), 4);
    assert_eq!(builds(&["check", "--chapter", "references.md"]), 6);
    let (out, stderr) = run(&book, &["check", "--experiment", "stencl"]);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains("`stencl`: no directive of the book shows this experiment"),
        "{stderr}"
    );
    if nvrtc() {
        let entries = || {
            let dir = std::fs::read_dir(book.path(".cache/gpulab")).unwrap();
            dir.flatten()
                .filter(|e| e.path().extension().is_some_and(|x| x == "bin"))
                .count()
        };
        // Every module compiled once first: the filtered checks above leave some chapters' out.
        builds(&["check"]);
        let before = entries();
        let cu = "kernels/stencil/stencil.cu";
        book.write(cu, &(book.read(cu) + "// changed\n"));
        builds(&["check"]);
        assert_eq!(entries(), before + 1, "one module changed, one compiled");
        builds(&["check"]);
        assert_eq!(entries(), before + 1, "nothing changed, nothing compiled");
    }
}

#[test]
fn builds_strict_without_a_gpu_every_directive_awaiting_a_run_with_its_code_beside() {
    let book = BookCopy::new(BOOK);
    let recorded = std::fs::read_dir(book.path("data"))
        .unwrap()
        .flatten()
        .any(|e| e.file_name() != "papers");
    let (out, stderr) = run(&book, &["build", "--strict", "--mode", "recorded"]);
    assert!(out.status.success(), "build --strict failed:\n{stderr}");
    for (n, (chapter, experiment, kernel_line)) in DIRECTIVES.iter().enumerate() {
        let html = book.read(&format!("out/{chapter}.html"));
        let anchor = format!("gpulab-{experiment}-");
        assert!(html.contains(&anchor), "no directive for {experiment}");
        // The spec and the kernel source are on the page, beside the result.
        assert!(
            html.contains("The code behind this result") && html.contains(kernel_line),
            "{experiment}: the code is not beside the result"
        );
        if !recorded {
            assert!(
                html.contains(&format!(
                    "awaiting a GPU run</span> Experiment <code>{experiment}</code>"
                )),
                "{experiment} (directive {}) should await a GPU run",
                n + 1
            );
            assert!(html.contains(&format!("mdbook-gpulab run {chapter}.md#")));
        }
    }
}

/// The tutorial's example of an unknown key: a typo is an error at its line, with a did-you-mean.
#[test]
fn a_misspelled_key_in_a_spec_is_an_error_with_did_you_mean() {
    let book = BookCopy::new(BOOK);
    book.edit(
        "kernels/stencil/experiment.toml",
        "output = true",
        "ouptut = true",
    );
    let (out, stderr) = run(&book, &["check", "--no-compile"]);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains("unknown field `ouptut`") && stderr.contains("did you mean `output`?"),
        "{stderr}"
    );
    assert!(
        stderr.contains("kernels/stencil/experiment.toml:20"),
        "{stderr}"
    );
}

/// The files the tutorial of book/adding-an-experiment.md writes: each "`path`:" line followed by
/// a fenced block, as (path, contents).
fn tutorial_files(doc: &str) -> Vec<(String, String)> {
    let lines: Vec<&str> = doc.lines().collect();
    let mut out = Vec::new();
    for (n, line) in lines.iter().enumerate() {
        let Some(path) = line
            .strip_prefix('`')
            .and_then(|l| l.strip_suffix("`:"))
            .filter(|p| !p.contains(' '))
        else {
            continue;
        };
        let Some(open) = lines[n + 1..].iter().position(|l| l.starts_with("```")) else {
            continue;
        };
        let fence: String = lines[n + 1 + open]
            .chars()
            .take_while(|c| *c == '`')
            .collect();
        let body: Vec<&str> = lines[n + 2 + open..]
            .iter()
            .take_while(|l| l.trim_end() != fence)
            .copied()
            .collect();
        out.push((path.to_string(), body.join("\n") + "\n"));
    }
    out
}

fn doc() -> String {
    std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../book/adding-an-experiment.md"),
    )
    .unwrap()
}

/// The tutorial's book, written from the chapter's own code blocks into an empty folder, installs,
/// passes `check` (its kernel against its PTX where NVRTC is present) and builds with `--strict`
/// while it awaits a GPU run.
#[test]
fn the_tutorial_from_an_empty_folder_checks_and_builds() {
    let files = tutorial_files(&doc());
    let paths: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        paths,
        [
            "kernels/saxpy/saxpy.cu",
            "kernels/saxpy/experiment.toml",
            "src/saxpy.md"
        ]
    );
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("mylab");
    let write = |rel: &str, text: &str| {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    // Step 1, as the chapter's shell commands write it.
    write(
        "book.toml",
        "[book]\ntitle = \"My GPU lab\"\nsrc = \"src\"\n",
    );
    write("src/SUMMARY.md", "# Summary\n\n- [SAXPY](saxpy.md)\n");
    let bin = env!("CARGO_BIN_EXE_mdbook-gpulab");
    let run = |args: &[&str]| {
        let out = Command::new(bin)
            .args(args)
            .arg(&root)
            .env_remove("GPULAB_REQUIRE_NVRTC")
            .output()
            .unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (ok, stderr) = run(&["install"]);
    assert!(ok, "{stderr}");
    for (path, text) in &files {
        write(path, text);
    }
    let (ok, stderr) = run(&["check"]);
    assert!(ok, "the tutorial's experiment fails check:\n{stderr}");
    if nvrtc() {
        assert!(stderr.contains("0 problem(s)"), "{stderr}");
    }
    let (ok, stderr) = run(&["build", "--strict"]);
    assert!(ok, "{stderr}");
    assert!(
        stderr.contains("experiment `saxpy` awaits a GPU run"),
        "{stderr}"
    );
    let html = std::fs::read_to_string(root.join("book/saxpy.html")).unwrap();
    assert!(html.contains("mdbook-gpulab run saxpy.md#1"), "{html}");
}

/// Every reference formula, metric override, precondition and launch the worked examples quote
/// is a line of the features book, so what the chapter shows is what the test and the GPU run
/// check.
#[test]
fn the_worked_examples_quote_the_features_book() {
    let doc = doc();
    let section = doc
        .split("\n## ")
        .find(|s| s.starts_with("Worked examples"))
        .expect("a `## Worked examples` section");
    let mut specs = String::new();
    for (_, experiment, _) in DIRECTIVES {
        specs += &std::fs::read_to_string(
            common::fixture(BOOK).join(format!("kernels/{experiment}/experiment.toml")),
        )
        .unwrap();
    }
    let squash = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let specs = squash(&specs);
    let mut quoted = 0;
    for line in section.lines() {
        let code = line.split(" # ").next().unwrap().trim();
        let quotes = [
            "formula",
            "verify",
            "metrics =",
            "expr",
            "kernel",
            "args",
            "shared",
        ];
        if quotes.iter().any(|q| code.starts_with(q)) {
            assert!(
                specs.contains(&squash(code)),
                "not in the features book: {code}"
            );
            quoted += 1;
        }
    }
    assert!(quoted >= 19, "{quoted} lines quoted");
}
