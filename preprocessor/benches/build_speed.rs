//! How much the preprocessor adds to building the whole handbook: a cached build (recorded mode,
//! recordings present, nothing to run) against a plain build of the same chapters (the gpulab
//! fences left as code blocks), both in-process (`mdbook-driver`) and, when an `mdbook` binary is on
//! PATH (or in `$MDBOOK`), through `mdbook build` with this crate's binary as the preprocessor.
//! Prints the median of several runs and the ratio (goal: ≤ 1.5×).
//!
//! A second comparison separates the preprocessor's own cost from that of the pages it writes: a
//! plain build of the *same pages* (a copy of the book whose chapters are the preprocessor's
//! output, so mdBook renders and indexes the same tables, charts and code) against the cached build.
//!
//! A third names what mdBook's share costs by kind of content: the same pages built plainly without
//! their charts (`<svg>` and the script after each), without their tables, without their code
//! listings (`<pre>`), and without all three, each against the plain build of the chapters.
//!
//! `cargo bench --bench build_speed` (release profile); `BUILD_SPEED_RUNS=9` for more runs;
//! `BUILD_SPEED_ONLY=plain`, `=gpulab`, `=same` or `=bare` (the same pages without charts, tables
//! and code listings) builds once, one side only (for `perf` or
//! `valgrind --tool=callgrind --toggle-collect='build_speed::build_in_process_at'`, which counts
//! the build alone: this machine's wall times vary by ±30 %).

use mdbook_gpulab::GpuLab;
use mdbook_gpulab::config::Mode;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const GOAL: f64 = 1.5;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn runs() -> usize {
    std::env::var("BUILD_SPEED_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(5)
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn timed(mut f: impl FnMut()) -> Duration {
    f(); // warm-up: file cache, and the first build's output folder
    median(
        (0..runs())
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed()
            })
            .collect(),
    )
}

/// The handbook loaded in-process, with the preprocessor or without it.
fn load(with_gpulab: bool) -> mdbook_driver::MDBook {
    load_at(&repo(), with_gpulab)
}

/// The book at `root` loaded in-process, with the preprocessor or without it.
fn load_at(root: &Path, with_gpulab: bool) -> mdbook_driver::MDBook {
    let mut md = mdbook_driver::MDBook::load(root).expect("loading the handbook");
    if with_gpulab {
        let mut lab = GpuLab::new();
        lab.overrides.mode = Some(Mode::Recorded);
        md.with_preprocessor(lab);
    } else {
        // The book.toml entry (a command) is skipped for the html renderer.
        md.config
            .set("preprocessor.gpulab.renderers", vec!["none"])
            .unwrap();
    }
    md
}

/// One in-process build of the handbook into `out`, with the preprocessor or without it.
fn build_in_process(out: &Path, with_gpulab: bool) {
    build_in_process_at(&repo(), out, with_gpulab)
}

/// One in-process build of the book at `root` into `out`, with the preprocessor or without it.
fn build_in_process_at(root: &Path, out: &Path, with_gpulab: bool) {
    let mut md = load_at(root, with_gpulab);
    md.config
        .set("build.build-dir", out.display().to_string())
        .unwrap();
    md.build().expect("building the handbook");
}

/// A renderer that only names itself `html`, so that `preprocess_book` runs what a build would.
struct HtmlName;

impl mdbook_renderer::Renderer for HtmlName {
    fn name(&self) -> &str {
        "html"
    }
    fn render(&self, _: &mdbook_renderer::RenderContext) -> anyhow::Result<()> {
        Ok(())
    }
}

/// The preprocessors of one in-process build, without the renderer.
fn preprocess_only(with_gpulab: bool) {
    load(with_gpulab)
        .preprocess_book(&HtmlName)
        .expect("preprocessing the handbook");
}

/// A copy of the handbook in `dir` whose chapters are the preprocessor's output (the gpulab
/// section left in `book.toml`, to be switched off like the plain build's).
fn same_pages_copy(dir: &Path) -> PathBuf {
    let (book, _) = load(true)
        .preprocess_book(&HtmlName)
        .expect("preprocessing the handbook");
    let root = dir.join("same-pages");
    copy_tree(&repo().join("book"), &root.join("book"));
    copy_tree(&repo().join("theme"), &root.join("theme"));
    std::fs::copy(repo().join("book.toml"), root.join("book.toml")).unwrap();
    for item in book.iter() {
        if let mdbook_preprocessor::book::BookItem::Chapter(ch) = item
            && let Some(path) = &ch.source_path
        {
            std::fs::write(root.join("book").join(path), &ch.content).unwrap();
        }
    }
    root
}

/// The content kinds the breakdown leaves out, by the element that holds each.
const CONTENT_KINDS: [(&str, &[&str]); 4] = [
    ("charts", &["svg", "script"]),
    ("tables", &["table"]),
    ("code listings", &["pre"]),
    (
        "charts, tables and code listings",
        &["svg", "script", "table", "pre"],
    ),
];

/// `html` without any `<tag …>…</tag>` element (the preprocessor nests none of these in itself).
fn without_elements(html: &str, tag: &str) -> String {
    let (open, close) = (format!("<{tag}"), format!("</{tag}>"));
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(start) = rest.find(&open) {
        let Some(end) = rest[start..].find(&close) else {
            break;
        };
        out.push_str(&rest[..start]);
        rest = &rest[start + end + close.len()..];
        // An element on lines of its own leaves no blank line, which would end the HTML block.
        if out.ends_with('\n') {
            rest = rest.strip_prefix('\n').unwrap_or(rest);
        }
    }
    out.push_str(rest);
    out
}

/// A copy of the same-pages book at `same` whose chapters lack the elements named by `tags`.
fn same_pages_without(same: &Path, dir: &Path, tags: &[&str]) -> PathBuf {
    let root = dir.join(format!("same-without-{}", tags.join("-")));
    copy_tree(same, &root);
    strip_tree(&root.join("book"), tags);
    let page = std::fs::read_to_string(root.join("book/part1/widuch2010.md")).unwrap();
    for tag in tags {
        assert!(
            !page.contains(&format!("<{tag}")),
            "every <{tag}> was left out"
        );
    }
    assert!(
        page.contains("class=\"gpulab-provenance\"") && page.contains("class=\"gpulab-claims\""),
        "the rest of the results (provenance lines, claims) stays"
    );
    root
}

/// Removes the elements named by `tags` from every chapter under `dir`.
fn strip_tree(dir: &Path, tags: &[&str]) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            strip_tree(&path, tags);
        } else if path.extension().is_some_and(|e| e == "md") {
            let text = std::fs::read_to_string(&path).unwrap();
            let stripped = tags.iter().fold(text, |t, tag| without_elements(&t, tag));
            std::fs::write(&path, stripped).unwrap();
        }
    }
}

/// mdBook's cost of the same pages without each kind of content, against the plain build.
fn report_content_kinds(same: &Path, dir: &Path, plain: Duration) {
    println!(
        "  what mdBook's share costs by kind of content (the same pages built plainly without it):"
    );
    for (kind, tags) in CONTENT_KINDS {
        let root = same_pages_without(same, dir, tags);
        let out = dir.join("same-without-out");
        let t = timed(|| build_in_process_at(&root, &out, false));
        println!(
            "    without {kind}: {:.0} ms, {:.2}x the plain build",
            t.as_secs_f64() * 1e3,
            t.as_secs_f64() / plain.as_secs_f64()
        );
    }
}

/// Copies the files under `from` (following symbolic links) to `to`.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let (src, dest) = (entry.path(), to.join(entry.file_name()));
        if src.is_dir() {
            copy_tree(&src, &dest);
        } else {
            std::fs::copy(&src, &dest).unwrap();
        }
    }
}

/// One `mdbook build` of the handbook into `out`.
fn build_with_mdbook(mdbook: &str, out: &Path, with_gpulab: bool) {
    build_with_mdbook_at(mdbook, &repo(), out, with_gpulab)
}

/// One `mdbook build` of the book at `root` into `out`.
fn build_with_mdbook_at(mdbook: &str, root: &Path, out: &Path, with_gpulab: bool) {
    let mut cmd = Command::new(mdbook);
    cmd.arg("build").arg("-d").arg(out).arg(root);
    if with_gpulab {
        cmd.env(
            "MDBOOK_PREPROCESSOR__GPULAB__COMMAND",
            format!("{} --", env!("CARGO_BIN_EXE_mdbook-gpulab")),
        )
        .env("MDBOOK_PREPROCESSOR__GPULAB__MODE", "recorded");
    } else {
        cmd.env("MDBOOK_PREPROCESSOR__GPULAB__RENDERERS", "[\"none\"]");
    }
    let out = cmd.output().expect("running mdbook");
    assert!(
        out.status.success(),
        "mdbook build failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn report(what: &str, plain: Duration, gpulab: Duration) -> f64 {
    let ratio = gpulab.as_secs_f64() / plain.as_secs_f64();
    println!(
        "{what}: plain {:.0} ms, with gpulab (cached) {:.0} ms, ratio {ratio:.2}x (goal <= {GOAL}x){}",
        plain.as_secs_f64() * 1e3,
        gpulab.as_secs_f64() * 1e3,
        if ratio <= GOAL { "" } else { "  ABOVE GOAL" }
    );
    ratio
}

/// The cached build against a plain build of the same pages: what the preprocessor itself adds.
fn report_same_pages(what: &str, same_plain: Duration, gpulab: Duration) {
    let ratio = gpulab.as_secs_f64() / same_plain.as_secs_f64();
    println!(
        "  {what}, against a plain build of the same pages (the preprocessor's output as chapters): {:.0} ms, ratio {ratio:.2}x (goal <= {GOAL}x){}",
        same_plain.as_secs_f64() * 1e3,
        if ratio <= GOAL { "" } else { "  ABOVE GOAL" }
    );
}

fn main() {
    let tmp = tempfile::tempdir().unwrap();
    let (plain_out, lab_out) = (tmp.path().join("plain"), tmp.path().join("gpulab"));
    println!("build speed of the handbook ({} runs each, median)", runs());

    // `BUILD_SPEED_ONLY=plain|gpulab|same|bare`: one side only, e.g. under `perf stat` or `perf record`.
    match std::env::var("BUILD_SPEED_ONLY").as_deref() {
        Ok("plain") => return build_in_process(&plain_out, false),
        Ok("gpulab") => return build_in_process(&lab_out, true),
        Ok("same") => {
            let same = same_pages_copy(tmp.path());
            return build_in_process_at(&same, &tmp.path().join("same-out"), false);
        }
        Ok("bare") => {
            let same = same_pages_copy(tmp.path());
            let (_, tags) = CONTENT_KINDS[CONTENT_KINDS.len() - 1];
            let bare = same_pages_without(&same, tmp.path(), tags);
            return build_in_process_at(&bare, &tmp.path().join("bare-out"), false);
        }
        _ => {}
    }
    let plain = timed(|| build_in_process(&plain_out, false));
    let lab = timed(|| build_in_process(&lab_out, true));
    let html = std::fs::read_to_string(lab_out.join("part1/widuch2010.html")).unwrap();
    assert!(html.contains("class=\"gpulab"), "the preprocessor ran");
    report("in-process (mdbook-driver)", plain, lab);
    let same = same_pages_copy(tmp.path());
    let same_out = tmp.path().join("same-out");
    let same_plain = timed(|| build_in_process_at(&same, &same_out, false));
    let copied = std::fs::read_to_string(same_out.join("part1/widuch2010.html")).unwrap();
    assert_eq!(
        copied.matches("class=\"gpulab").count(),
        html.matches("class=\"gpulab").count(),
        "the copy's pages are the cached build's"
    );
    report_same_pages("in-process (mdbook-driver)", same_plain, lab);
    report_content_kinds(&same, tmp.path(), plain);
    let (pre_plain, pre_lab) = (
        timed(|| preprocess_only(false)),
        timed(|| preprocess_only(true)),
    );
    println!(
        "  of which loading and preprocessing: plain {:.0} ms, with gpulab {:.0} ms; rendering HTML: plain {:.0} ms, with gpulab {:.0} ms",
        pre_plain.as_secs_f64() * 1e3,
        pre_lab.as_secs_f64() * 1e3,
        plain.saturating_sub(pre_plain).as_secs_f64() * 1e3,
        lab.saturating_sub(pre_lab).as_secs_f64() * 1e3,
    );

    let mdbook = std::env::var("MDBOOK").unwrap_or_else(|_| "mdbook".into());
    match Command::new(&mdbook).arg("--version").output() {
        Ok(v) if v.status.success() => {
            let version = String::from_utf8_lossy(&v.stdout).trim().to_string();
            let plain = timed(|| build_with_mdbook(&mdbook, &plain_out, false));
            let lab = timed(|| build_with_mdbook(&mdbook, &lab_out, true));
            report(&format!("`mdbook build` ({version})"), plain, lab);
            let same = tmp.path().join("same-pages");
            let same_out = tmp.path().join("same-out");
            let same_plain = timed(|| build_with_mdbook_at(&mdbook, &same, &same_out, false));
            report_same_pages(&format!("`mdbook build` ({version})"), same_plain, lab);
        }
        _ => println!(
            "`mdbook build`: NOT MEASURED: no `{mdbook}` binary (install mdBook or set MDBOOK=/path/to/mdbook)"
        ),
    }
}
