//! The book's list of built-in metrics is written from the registry (`metrics::BUILTINS`): this
//! test fails when `book/adding-an-experiment.md` disagrees with it, and
//! `SNAPSHOTS=overwrite cargo test --test it metric_docs` rewrites the list. Adding a metric is one
//! row in `metrics/registry.rs` (then the overwrite).

use crate::common;

use mdbook_gpulab::metrics::counters::GROUPS;
use mdbook_gpulab::metrics::{BUILTINS, STAT_SUFFIXES, Source};

const DOC: &str = "../book/adding-an-experiment.md";
const BEGIN: &str = "<!-- metrics: written from metrics::BUILTINS by tests/it/metric_docs.rs -->\n";
const END: &str = "<!-- metrics: end -->\n";

fn how(source: Source) -> String {
    match source {
        Source::Timing => format!(
            "the median of the timed samples (other statistics: {})",
            STAT_SUFFIXES
                .iter()
                .map(|s| format!("`.{s}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Source::Derived => {
            "derived when the book renders, from the spec's `bytes` / `flops` formula".into()
        }
        Source::Attribute(_) => "a kernel attribute, read after compiling".into(),
        Source::Text => "text, not a number".into(),
        Source::Counters(group) => {
            let name = GROUPS
                .iter()
                .find(|(_, g, _)| *g == group)
                .map(|(name, _, _)| *name)
                .expect("every counter group is listed in GROUPS");
            format!("hardware counters, group `{name}` (`record --counters`)")
        }
    }
}

fn expected_list() -> String {
    let mut out =
        String::from("| metric | label | unit | how it is obtained |\n|---|---|---|---|\n");
    for b in BUILTINS {
        let unit = match b.unit.symbol() {
            "" => "—",
            s => s,
        };
        out.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            b.name,
            b.label,
            unit,
            how(b.source)
        ));
    }
    out
}

#[test]
fn the_docs_list_every_builtin_metric_as_the_registry_defines_it() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(DOC);
    common::check_written_block(
        &path,
        BEGIN,
        END,
        &expected_list(),
        "cargo test --test it metric_docs",
    );
}

/// New-user audit (session 13): the directive reference, copied verbatim into a chapter, failed
/// `check` (`zip` named axes the directive did not have, the chart showed `gflops` of an
/// experiment without a `flops` formula). It is now a directive of the handbook that passes.
#[test]
fn the_directive_reference_passes_check_as_written() {
    let doc = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(DOC))
        .unwrap();
    let after = doc
        .split_once("## Directive reference")
        .expect("the doc has a directive reference")
        .1;
    let body = after
        .split_once("```toml\n")
        .and_then(|(_, rest)| rest.split_once("\n```"))
        .expect("the reference is a ```toml block")
        .0;
    let book = common::BookCopy::handbook();
    book.write(
        "book/reference.md",
        &format!("# Reference\n\n```gpulab\n{body}\n```\n"),
    );
    let summary = book.read("book/SUMMARY.md");
    book.write(
        "book/SUMMARY.md",
        &format!("{summary}\n- [Reference](reference.md)\n"),
    );
    let out = common::gpulab_ok(["check", "--no-compile", book.root.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("error"), "{stderr}");
    assert!(!stderr.contains("reference.md"), "{stderr}");
}
