//! The render cache (`.cache/gpulab/render/`): a build that runs no kernels reuses a block's
//! rendering while its inputs are unchanged, and renders it again when any of them changes. A
//! marker written into every stored rendering shows which blocks came from the cache.

use crate::common;

use common::{BookCopy, main_element};
use std::path::PathBuf;
use std::process::Command;

const MARK: &str = "<!-- served from the render cache -->";

/// Builds `book` in-process and returns its chapter's `<main>`.
fn build(book: &BookCopy) -> String {
    let mut md = mdbook_driver::MDBook::load(&book.root).expect("loading the fixture book");
    md.with_preprocessor(mdbook_gpulab::GpuLab::new());
    md.build().expect("building the fixture book");
    main_element(&book.read("out/chapter.html"))
}

fn slots(book: &BookCopy) -> Vec<PathBuf> {
    let dir = book.path(".cache/gpulab/render");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort();
    files
}

/// Prefixes every stored rendering with [`MARK`]; returns how many there are.
fn mark_stored(book: &BookCopy) -> usize {
    let files = slots(book);
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let mut stored: serde_json::Value = serde_json::from_str(&text).unwrap();
        let html = stored["rendered"]["html"].as_str().unwrap().to_string();
        stored["rendered"]["html"] = format!("{MARK}\n{html}").into();
        std::fs::write(file, stored.to_string()).unwrap();
    }
    files.len()
}

/// A built fixture whose every stored rendering is marked.
fn built_and_marked() -> BookCopy {
    let book = BookCopy::new("basic");
    build(&book);
    // The chapter's four directives (the status page's table is built from every directive's row
    // at each build, and is not stored).
    assert_eq!(mark_stored(&book), 4, "one slot per directive");
    book
}

#[test]
fn a_cached_build_is_the_same_as_a_fresh_one() {
    let book = BookCopy::new("basic");
    let fresh = build(&book);
    let cached = build(&book);
    assert_eq!(fresh, cached);
    assert!(
        fresh.contains("class=\"gpulab"),
        "the directives were rendered"
    );
}

#[test]
fn an_unchanged_book_is_served_from_the_cache() {
    let book = built_and_marked();
    assert_eq!(build(&book).matches(MARK).count(), 4);
}

#[test]
fn editing_prose_keeps_the_cache() {
    let book = built_and_marked();
    let chapter = book.read("src/chapter.md");
    book.write(
        "src/chapter.md",
        &format!("A new first paragraph.\n\n{chapter}\nA new last paragraph.\n"),
    );
    let html = build(&book);
    assert!(html.contains("A new last paragraph."));
    assert_eq!(html.matches(MARK).count(), 4);
}

/// Appends `text` to file `rel` of a built and marked fixture; how many blocks the next build
/// serves from the cache.
fn cached_after_appending(rel: &str, text: &str) -> usize {
    let book = built_and_marked();
    let old = book.read(rel);
    book.write(rel, &format!("{old}{text}"));
    build(&book).matches(MARK).count()
}

#[test]
fn a_changed_recording_renders_every_block_again() {
    assert_eq!(
        cached_after_appending("data/test-device/scale.json", "\n"),
        0
    );
}

#[test]
fn a_changed_kernel_renders_every_block_again() {
    assert_eq!(
        cached_after_appending("kernels/copy/experiment.toml", "\n# a comment\n"),
        0
    );
}

#[test]
fn a_changed_book_toml_renders_every_block_again() {
    assert_eq!(cached_after_appending("book.toml", "\n# a comment\n"), 0);
}

#[test]
fn a_changed_directive_renders_that_directive_again() {
    let book = built_and_marked();
    book.edit(
        "src/chapter.md",
        "title = \"Scale: time and bandwidth\"",
        "title = \"Scale: time and bandwidth, again\"",
    );
    let html = build(&book);
    assert!(html.contains("Scale: time and bandwidth, again"));
    assert_eq!(
        html.matches(MARK).count(),
        3,
        "the other three still come from the cache"
    );
}

#[test]
fn an_unreadable_slot_is_rendered_again() {
    let book = BookCopy::new("basic");
    let fresh = build(&book);
    for file in slots(&book) {
        std::fs::write(&file, "{ not json").unwrap();
    }
    assert_eq!(build(&book), fresh);
    // … and stored again.
    assert_eq!(mark_stored(&book), 4);
}

#[test]
fn a_cached_build_reports_what_a_fresh_one_does() {
    let book = BookCopy::new("basic");
    let run = || {
        let out = common::gpulab_ok([std::ffi::OsStr::new("build"), book.root.as_os_str()]);
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let fresh = run();
    assert!(
        !slots(&book).is_empty(),
        "the first build stored its blocks"
    );
    let cached = run();
    assert!(
        fresh.contains("stale"),
        "the fixture's stale point is reported:\n{fresh}"
    );
    assert!(
        fresh.contains("awaits a GPU run"),
        "and its pending experiment:\n{fresh}"
    );
    assert_eq!(fresh, cached);
}

#[test]
fn a_strict_build_fails_from_the_cache_as_it_does_fresh() {
    let book = BookCopy::new("basic");
    let strict = || {
        Command::new(env!("CARGO_BIN_EXE_mdbook-gpulab"))
            .args(["build", "--strict"])
            .arg(&book.root)
            .output()
            .unwrap()
    };
    let (fresh, cached) = (strict(), strict());
    assert!(
        !fresh.status.success(),
        "the fixture's stale point fails --strict"
    );
    assert!(
        !slots(&book).is_empty(),
        "the strict build stored its blocks"
    );
    assert_eq!(fresh.status.code(), cached.status.code());
    assert_eq!(fresh.stderr, cached.stderr);
}

#[test]
fn the_cache_folder_is_ignored_by_git() {
    let book = BookCopy::new("basic");
    build(&book);
    assert_eq!(
        book.read(".cache/gpulab/.gitignore").lines().last(),
        Some("*")
    );
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(&book.root)
            .output()
    };
    match git(&["init", "-q"]) {
        Ok(out) if out.status.success() => {
            let status = git(&["status", "--porcelain", "--untracked-files=all"]).unwrap();
            let listed = String::from_utf8_lossy(&status.stdout);
            assert!(
                listed.contains("src/chapter.md"),
                "git lists the book:\n{listed}"
            );
            assert!(!listed.contains(".cache"), "but not the cache:\n{listed}");
        }
        _ => {
            eprintln!("SKIPPED: the git check of the_cache_folder_is_ignored_by_git (no git here)")
        }
    }
}

/// A folder linked to its parent inside `data/` made the cache's walk revisit the tree, once per
/// level: with six such links, 6^8 folders (each pass through a link is two levels of the 16),
/// minutes, against a fraction of a second.
#[cfg(unix)]
#[test]
fn links_to_a_parent_folder_do_not_loop_the_cache() {
    let book = BookCopy::new("basic");
    for name in ["a", "b", "c", "d", "e", "f"] {
        std::os::unix::fs::symlink("..", book.path(&format!("data/test-device/{name}"))).unwrap();
    }
    let root = book.root.clone();
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut md = mdbook_driver::MDBook::load(&root).expect("loading the fixture book");
        md.with_preprocessor(mdbook_gpulab::GpuLab::new());
        let _ = done.send(md.build().is_ok());
    });
    let built = finished.recv_timeout(std::time::Duration::from_secs(10));
    assert_eq!(built, Ok(true), "the build finishes, and quickly");
    assert_eq!(mark_stored(&book), 4);
    assert_eq!(
        build(&book).matches(MARK).count(),
        4,
        "the second build is served from the cache"
    );
    // The links' target is still walked once: a change there renders every block again.
    let rec = book.read("data/test-device/scale.json");
    book.write("data/test-device/scale.json", &format!("{rec}\n"));
    assert_eq!(build(&book).matches(MARK).count(), 0);
}
