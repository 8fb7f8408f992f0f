//! Builds the fixture book `tests/fixtures/basic` in-process (mdBook + the preprocessor as a
//! library) from a synthetic recording, and compares the rendered chapter with a snapshot.
//!
//! Update the snapshot with `SNAPSHOTS=overwrite cargo test -p mdbook-gpulab --test it fixture_books`
//! and read the diff: the direct assertions below must keep passing either way.

use crate::common;

use common::{BookCopy, fixture, main_element};

/// Builds a copy of the fixture with `GpuLab` registered in-process; returns the copy.
fn build_basic() -> BookCopy {
    let book = BookCopy::new("basic");
    let mut md = mdbook_driver::MDBook::load(&book.root).expect("loading the fixture book");
    md.with_preprocessor(mdbook_gpulab::GpuLab::new());
    md.build().expect("building the fixture book");
    book
}

#[test]
fn basic_chapter_matches_snapshot() {
    let book = build_basic();
    let actual = main_element(&book.read("out/chapter.html"));
    snapbox::assert_data_eq!(
        actual,
        snapbox::Data::read_from(&fixture("basic/expected/chapter.html"), None)
    );
}

#[test]
fn basic_chapter_shows_results_failures_staleness_and_provenance() {
    let book = build_basic();
    let html = main_element(&book.read("out/chapter.html"));
    let has = |needle: &str| {
        assert!(
            html.contains(needle),
            "chapter.html should contain {needle:?}:\n{html}"
        )
    };

    // Every directive was replaced; no fence survives.
    assert!(!html.contains("```gpulab"), "{html}");
    assert!(!html.contains("language-gpulab"), "{html}");
    assert_eq!(html.matches(r#"data-experiment="scale""#).count(), 3);
    assert_eq!(html.matches(r#"data-experiment="copy""#).count(), 1);

    // Directive 1: table with units, variant labels, paper values and ratios.
    has("Scale: time and bandwidth");
    has("time (ms)");
    has("One thread per element");
    has("Grid-stride loop");
    has(">0.0100<");
    has(">0.0125<");
    has("paper 0.0200");
    has("paper 0.0400");
    has(r#"title="speed-up vs paper">2.0×"#);
    has("paper: Imaginary GPU (demo, Table 1)");

    // The failed point is shown as failed, with its reason, never as a time.
    has(r#"class="gpulab-cell gpulab-failed""#);
    has("✗ failed");
    has("wrong result: y[17] = 0.5");
    has("first bad index 17");
    has("1 failed point (not drawn)");

    // Charts are inline SVG (line chart of bandwidth, bar chart of time, bar chart of speed-ups).
    assert_eq!(html.matches("<svg").count(), 3, "three charts expected");
    has("bandwidth by N");
    has("time by N");

    // Claims: one holds, one does not, each with its detail.
    has("gpulab-claim-holds");
    has("<code>naive.time_ms &lt; 1</code>");
    has("holds (2 points checked)");
    has("gpulab-claim-fails");
    has("does not hold at 1 of 1 point: at N=1024: 0.0125 &lt; 0.01 is false");

    // Provenance names the synthetic device (three times: directives 1, 2 and 4).
    assert_eq!(
        html.matches(
            "Synthetic Test GPU (not a measurement) · CUDA 13.0 · driver 0.0.synthetic · 2026-01-02"
        )
        .count(),
        3,
        "{html}"
    );

    // Directive 2: exactly one stale badge and one stale cell; directive 1 is not stale.
    assert_eq!(html.matches("gpulab-stale-badge").count(), 1, "{html}");
    has("1 of 2 points was recorded with an older kernel/spec");
    assert_eq!(html.matches("gpulab-stale-mark").count(), 1, "{html}");
    let first = &html[..html.find(r#"id="gpulab-scale-2""#).unwrap()];
    assert!(!first.contains("stale"), "directive 1 must not be stale");

    // Directive 3: no recording, awaiting a GPU run.
    has(
        "awaiting a GPU run</span> Experiment <code>copy</code> has no recording on any device yet.",
    );
    has("<code>mdbook-gpulab run chapter.md#3</code>");
}

#[test]
fn relative_metrics_compare_each_cell_with_its_baseline() {
    let book = build_basic();
    let html = main_element(&book.read("out/chapter.html"));
    let at = html.find(r#"id="gpulab-scale-4""#).expect("directive 4");
    let fourth = &html[at..];
    let has = |needle: &str| {
        assert!(
            fourth.contains(needle),
            "directive 4 should contain {needle:?}:\n{fourth}"
        )
    };
    // speedup:naive = naive time / this time (0.01 / 0.0125 ms at N = 1024); the failed point
    // stays failed.
    has("speed-up over One thread per element (×)</th>");
    // Each cell keeps its point's sample summary and marks (the synthetic noise, 1 %, leaves the median less certain than the target).
    has(
        r#"noise 1.00 % (target 0.5 %); ~ median known to ±0.78 % (95 %), less well than the 0.5 % noise target">0.80×<sup class="gpulab-q">~</sup></td>"#,
    );
    has("download=\"scale-speedup-naive.csv\"");
    has("N,naive,grid_stride%0A1024,1,0.7999999999999999%0A4096,1,failed%0A");
    // pct_of:grid_stride: the baseline failed at N = 4096, so naive has no value there.
    has("of Grid-stride loop (%)</th>");
    has("less well than the 0.5 % noise target\">125\u{a0}%<sup class=\"gpulab-q\">~</sup></td>");
    has("1024,125,100%0A4096,,failed%0A");
    // speedup:previous: naive is first (no value), grid_stride failed at 4096.
    has("speed-up over the previous variant by N");
    has("1 failed point (marked ✗) and 2 missing points (not drawn).");
}

#[test]
fn status_page_lists_every_reproduces_id_with_its_state() {
    let book = build_basic();
    let html = main_element(&book.read("out/status.html"));
    assert!(!html.contains("```gpulab-status"), "{html}");
    for id in ["demo:table1", "demo:bar", "demo:copy"] {
        assert!(html.contains(id), "status page should list {id}:\n{html}");
    }
    let row = |id: &str| {
        let at = html.find(id).unwrap();
        let end = html[at..].find("</tr>").map_or(html.len(), |e| at + e);
        html[at..end].to_string()
    };
    assert!(
        row("demo:table1").contains("failed"),
        "a point of directive 1 failed verification: {}",
        row("demo:table1")
    );
    assert!(
        row("demo:table1").contains("1 of 2 hold"),
        "{}",
        row("demo:table1")
    );
    assert!(row("demo:bar").contains("stale"), "{}", row("demo:bar"));
    assert!(row("demo:copy").contains("pending"), "{}", row("demo:copy"));
}

/// A claim marked `ours:` in a directive that reproduces a paper's item is the handbook's
/// expectation: the status table counted it as the paper's.
#[test]
fn an_ours_claim_is_not_counted_as_the_paper_s() {
    let book = BookCopy::new("basic");
    book.edit(
        "src/chapter.md",
        "expect = [\"naive.time_ms < 1\",",
        "expect = [\"ours: naive.time_ms < 1\",",
    );
    let mut md = mdbook_driver::MDBook::load(&book.root).expect("loading the fixture book");
    md.with_preprocessor(mdbook_gpulab::GpuLab::new());
    md.build().expect("building the fixture book");
    let status = main_element(&book.read("out/status.html"));
    let at = status.find("demo:table1").unwrap();
    let row = &status[at..at + status[at..].find("</tr>").unwrap()];
    assert!(
        row.contains("0 of 1 hold"),
        "only the paper's claim is counted: {row}"
    );
    let chapter = main_element(&book.read("out/chapter.html"));
    assert!(
        chapter.contains("our expectation, not a statement of the paper"),
        "{chapter}"
    );
}

#[test]
fn the_fixture_recording_is_labelled_synthetic() {
    let text = std::fs::read_to_string(fixture("basic/data/test-device/scale.json")).unwrap();
    let rec: mdbook_gpulab::record::Recording = serde_json::from_str(&text).unwrap();
    assert_eq!(rec.device.slug, "test-device");
    assert_eq!(rec.device.name, "Synthetic Test GPU (not a measurement)");
}

/// The fixture's keys are those the current code computes, except the one point that is stale on
/// purpose; if this fails after a change to the key, refresh the keys in
/// `tests/fixtures/basic/data/test-device/scale.json` (the printed list has them).
#[test]
fn fixture_keys_are_current_except_the_deliberately_stale_point() {
    let book = BookCopy::new("basic");
    let md = mdbook_driver::MDBook::load(&book.root).unwrap();
    let config = mdbook_gpulab::config::Config::from_mdbook(&md.config, &md.root).unwrap();
    let ws = mdbook_gpulab::workspace::Workspace::new(&book.root, &md.config.book.src, config);
    let rec = ws.data().load("test-device", "scale").unwrap().unwrap();
    let mut planned = Vec::new();
    for f in mdbook_gpulab::preprocess::scan_book(&ws, &md.book) {
        if let Ok((d, exp)) = &f.parsed
            && exp.name == "scale"
        {
            planned.extend(mdbook_gpulab::plan::plan(d, exp, &ws.sources).unwrap());
        }
    }
    assert_eq!(planned.len(), 10);
    let listing: Vec<String> = planned
        .iter()
        .map(|p| format!("{} {:?} {}", p.variant, p.params, p.key.on("test-device")))
        .collect();
    for p in &planned {
        let recorded = mdbook_gpulab::results::point_index::PointIndex::new(&rec)
            .find(p)
            .unwrap_or_else(|| panic!("no recorded point for {} {:?}", p.variant, p.params));
        let stale_on_purpose =
            p.variant == "grid_stride" && p.axes.values().any(|v| v.to_string() == "16384");
        assert_eq!(
            recorded.key != p.key.on("test-device"),
            stale_on_purpose,
            "{} {:?}: recorded key {} vs current; current keys:\n{}",
            p.variant,
            p.params,
            recorded.key,
            listing.join("\n")
        );
    }
}

/// Szczepański's chapter listed the same two kernel files 46 times: a page lists each file once,
/// at the first result that uses it, and later results link to that listing.
#[test]
fn a_kernel_file_is_listed_once_per_page_and_later_results_link_to_it() {
    let book = build_basic();
    let html = main_element(&book.read("out/chapter.html"));
    let scale_listings = html
        .matches("<div class=\"gpulab-code-name\">kernels/scale/scale.cu</div>\n<pre>")
        .count()
        + html
            .matches("<div class=\"gpulab-code-name\">kernels/scale/scale.cu</div><pre>")
            .count();
    assert_eq!(scale_listings, 1, "{html}");
    assert_eq!(
        html.matches("id=\"gpulab-scale-1-code\"").count(),
        1,
        "{html}"
    );
    assert!(
        html.matches("<a href=\"#gpulab-scale-1-code-2\">").count() >= 2,
        "the later scale results link to the first listing of scale.cu: {html}"
    );
    assert_eq!(
        html.matches("id=\"gpulab-scale-1-code-2\"").count(),
        1,
        "{html}"
    );
}
