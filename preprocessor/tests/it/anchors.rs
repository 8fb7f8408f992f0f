//! The ```` ```gpulab-anchors ```` table: a device's library anchors (as
//! scripts/library_anchors.py writes them) beside our best recorded kernel, with the ratio.

use crate::common;

use common::BookCopy;

/// A copy of the fixture book with a SYNTHETIC library anchor (10 GB/s) and an anchors table
/// comparing it with the `scale` experiment at N = 4096, plus `extra` files; built, with the
/// table's HTML and the recording's best rate at N = 4096 (GB/s) from `median - offset_ms`.
fn anchors_table(extra: &[(&str, &str)], offset_ms: f64) -> (String, f64) {
    let book = BookCopy::new("basic");
    book.write(
        "data/test-device/anchors/library.json",
        r#"{"schema": 1, "device": {"name": "Synthetic Test GPU (not a measurement)", "slug": "test-device"},
            "provenance": {"commit": "abc1234", "torch_version": "2.11"},
            "anchors": {"scale": {"label": "Library scale (synthetic)", "value": 10.0, "unit": "GB/s",
                                  "median_ms": 1.0, "verified": true}}}"#,
    );
    for (path, text) in extra {
        book.write(path, text);
    }
    let chapter = book.read("src/chapter.md")
        + "\n```gpulab-anchors\n[[row]]\nanchor = \"scale\"\nexperiment = \"scale\"\nmetric = \"gbps\"\nvariants = [\"naive\", \"grid_stride\"]\nparams = { N = 4096 }\n```\n";
    book.write("src/chapter.md", &chapter);
    let mut md = mdbook_driver::MDBook::load(&book.root).unwrap();
    md.with_preprocessor(mdbook_gpulab::GpuLab::new());
    md.build().unwrap();
    let html = book.read("out/chapter.html");
    let table = html[html.find("gpulab-anchors").expect("the anchors table")..].to_string();
    let rec = book.read("data/test-device/scale.json");
    let rec: serde_json::Value = serde_json::from_str(&rec).unwrap();
    let best = rec["points"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["params"]["N"] == 4096 && p["outcome"] == "ok")
        .map(|p| {
            let ms = p["timing"]["median_ms"].as_f64().unwrap() - offset_ms;
            8.0 * 4096.0 / (ms / 1e3) / 1e9
        })
        .fold(0.0, f64::max);
    (table, best)
}

#[test]
fn anchors_table_shows_library_and_our_best_with_the_ratio() {
    let (table, best) = anchors_table(&[], 0.0);
    assert!(table.contains("Library scale (synthetic)"), "{table}");
    assert!(table.contains("<td>10 GB/s</td>"), "{table}");
    // Ours: the faster of the two variants at N = 4096, and its ratio to the library's 10 GB/s.
    assert!(
        table.contains(&format!("{:.1} %", 100.0 * best / 10.0)),
        "{best}: {table}"
    );
    assert!(table.contains("commit abc1234"), "{table}");
}

/// With an event-overhead calibration on the device, our side of the table is less the overhead
/// (as everywhere on the page) and the provenance line says the library's times are as measured.
#[test]
fn anchors_table_says_which_side_is_less_the_event_overhead() {
    // SYNTHETIC calibration: 0.1 µs.
    let calibration = r#"{"schema": 1, "commit": "abc1234", "date": "2026-11-24T00:00:00Z", "gpu": "Synthetic Test GPU",
        "ncu_version": "synthetic", "events_ms": 0.003, "ncu_ms": 0.0029, "offset_ms": 0.0001}"#;
    let (table, best) = anchors_table(
        &[("data/test-device/checks/event_offset.json", calibration)],
        0.0001,
    );
    assert!(
        table.contains(
            "the library&#x27;s times as measured, ours less the calibrated event overhead (0.10 µs)"
        ) || table.contains(
            "the library's times as measured, ours less the calibrated event overhead (0.10 µs)"
        ),
        "{table}"
    );
    assert!(
        table.contains(&format!("{:.1} %", 100.0 * best / 10.0)),
        "{best}: {table}"
    );
}
