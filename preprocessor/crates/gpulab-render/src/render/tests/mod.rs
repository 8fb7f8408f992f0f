//! Renderer tests over SYNTHETIC data (see `fixture.rs`: nothing here was measured or published).

mod fixture;
mod inline;

use super::status::{DeviceClaims, DirectiveStatus, StatusState, StatusTable};
use super::table::TableModel;
use super::table_html::table_html;
use super::*;
use crate::directive::{ChartKind, ChartSpec, TableSpec};
use crate::render::csv::table_csv;
use crate::render::format::THOUSANDS_SEP;
use fixture::{Fixture, line_chart};
use pulldown_cmark::{Event, Parser, Tag, TagEnd};

/// The HTML must survive CommonMark as one HTML block: no blank line, no indented line.
fn assert_one_html_block(html: &str) {
    assert!(!html.contains("\n\n"), "blank line");
    assert!(
        html.lines()
            .all(|l| !l.starts_with(' ') && !l.starts_with('\t')),
        "indented line"
    );
    let markdown = format!("Before.\n\n{html}\n\nAfter.\n");
    let events: Vec<Event<'_>> = Parser::new(&markdown).collect();
    let blocks = events
        .iter()
        .filter(|e| matches!(e, Event::Start(Tag::HtmlBlock)))
        .count();
    assert_eq!(blocks, 1, "exactly one HTML block");
    let mut inside = false;
    for event in &events {
        match event {
            Event::Start(Tag::HtmlBlock) => inside = true,
            Event::End(TagEnd::HtmlBlock) => inside = false,
            Event::Start(Tag::Paragraph) | Event::End(TagEnd::Paragraph) | Event::Text(_) => {}
            Event::Html(_) if inside => {}
            other => panic!("unexpected markdown event {other:?}"),
        }
    }
}

fn render(fixture: &Fixture) -> String {
    let templates = Templates::builtin().unwrap();
    render_directive_html(&fixture.view(), &templates).unwrap()
}

#[test]
fn full_directive_snapshot() {
    let fixture = Fixture::new();
    let html = render(&fixture);
    assert_one_html_block(&html);
    let expect = [
        // wrapper and title
        "<figure class=\"gpulab\" id=\"gpulab-synth_matmul-1\" data-experiment=\"synth_matmul\">",
        "<figcaption class=\"gpulab-title\">Synthetic shared-memory product</figcaption>",
        // table: metric header with unit, variant labels, sorted rows
        "<th colspan=\"2\" scope=\"colgroup\" class=\"gpulab-metric\">time (ms)</th>",
        "<th scope=\"col\" title=\"global_2d\">Global memory, 2D</th><th scope=\"col\" title=\"shared_2d\">Shared memory, 2D</th>",
        // best per row, with the paper's value and the speed-up vs paper (2.0 / 0.5 = 4×)
        // the tooltip gives the sample count and spread (quality: see render::quality)
        "<td class=\"gpulab-cell gpulab-num gpulab-best\" title=\"median of 10 samples · IQR 0.475–0.525 ms · noise 0.40 % (target 0.5 %)\">0.500<span class=\"gpulab-paper\">paper 2.00 · <span class=\"gpulab-ratio\" title=\"speed-up vs paper\">4.0×</span></span></td>",
        // the failed point shows as failed, with the reason, never as a time
        "<td class=\"gpulab-cell gpulab-failed\" title=\"wrong result: max error 3 (first bad index 17)\">✗ failed</td>",
        // stale cell marked
        "<td class=\"gpulab-cell gpulab-num gpulab-stale\" title=\"median of 10 samples · IQR 15.2–16.8 ms · noise 0.40 % (target 0.5 %); recorded with an older kernel or spec\">16.0<sup class=\"gpulab-stale-mark\">†</sup>",
        // paper caption row
        "\">paper: Synthetic Paper GPU (synth2020, Table 1)</span>",
        "speed-up vs paper (paper ÷ ours; &gt; 1: ours better)",
        // CSV download
        "<a class=\"gpulab-csv\" download=\"synth_matmul.csv\" href=\"data:text/csv;charset=utf-8,N,global_2d,global_2d%20paper,shared_2d,shared_2d%20paper%0A160,2,,0.5,2%0A",
        // chart
        "<figure class=\"gpulab-chart\">\n<svg class=\"gpulab-chart-svg\"",
        ">Shared memory, 2D</text>",
        "<span class=\"gpulab-chart-note\">1 failed point (not drawn).</span>",
        // claims
        "<li class=\"gpulab-claim gpulab-claim-holds\"><span class=\"gpulab-claim-mark\" aria-hidden=\"true\">✓</span> <code>shared_2d.time_ms &lt; global_2d.time_ms</code>",
        // stale badge and provenance
        "<span class=\"gpulab-badge\">stale</span> 1 of 6 points was recorded with an older kernel/spec",
        "<p class=\"gpulab-provenance\" title=\"recorded with mdbook-gpulab 0.1.0\">Synthetic GPU X1 · CUDA 13.0 · driver 999.1 · 2026-01-02 · commit abc1234</p>",
    ];
    for fragment in expect {
        assert!(
            html.contains(fragment),
            "missing fragment:\n{fragment}\n\nin:\n{html}"
        );
    }
    assert!(html.contains("640,128,,failed,"), "CSV marks the failure");
    // rows 160 and 320 have a best cell; row 640 has one value only (shared failed)
    assert_eq!(html.matches("gpulab-best").count(), 2);
}

/// Every chart's hover tips were `<title>` text, which mdBook's search indexed: a search for
/// "samples" or "noise" matched every chart, and their numbers made the index a quarter larger. They
/// are attributes now, and the script right after the chart makes them titles in the browser.
#[test]
fn chart_tips_are_attributes_made_titles_by_the_script_after_the_chart() {
    let html = render(&Fixture::new());
    let svg_start = html.find("<svg class=\"gpulab-chart-svg\"").unwrap();
    let svg_end = svg_start + html[svg_start..].find("</svg>").unwrap();
    let svg = &html[svg_start..svg_end];
    assert!(
        svg.contains(" data-tip=\"10 samples · IQR 1.9–2.1 ms"),
        "{svg}"
    );
    assert!(!svg.contains("<title>"), "no tip is page text: {svg}");
    assert!(
        html[svg_end..].starts_with(&format!(
            "</svg>\n{}\n<figcaption>",
            super::chart::TIPS_SCRIPT
        )),
        "{}",
        &html[svg_end..]
    );
    assert_eq!(html.matches("<script>").count(), 1, "one script per chart");
}

#[test]
fn rendering_is_deterministic() {
    let fixture = Fixture::new();
    assert_eq!(render(&fixture), render(&fixture));
}

#[test]
fn failed_point_never_shows_a_time() {
    let fixture = Fixture::new();
    let view = fixture.view();
    let model = TableModel::build(&view, &view.devices[0], &fixture.directive.tables[0]);
    let row_640 = model
        .rows
        .iter()
        .find(|r| r.keys[0].raw_text() == "640")
        .unwrap();
    assert!(matches!(
        row_640.cells[1].state,
        outcome::CellState::Failed(_)
    ));
    assert!(!row_640.cells[1].best);
    assert!(!row_640.cells[0].best, "a single value is not highlighted");
    let csv = table_csv(&model);
    assert_eq!(csv.lines().nth(3), Some("640,128,,failed,"));
}

#[test]
fn transposed_table_and_default_rows() {
    let fixture = Fixture::new();
    let view = fixture.view();
    let spec = TableSpec {
        rows: "variant".into(),
        columns: "N".into(),
        value: "gflops".into(),
        title: Some("t".into()),
        key: Vec::new(),
    };
    let model = TableModel::build(&view, &view.devices[0], &spec);
    assert_eq!(model.row_fields, vec!["variant".to_string()]);
    let html = table_html(&model, None, "x.csv");
    assert!(html.contains("<caption>t</caption>"));
    assert!(html.contains("throughput (GFLOP/s)"));
    assert!(html.contains(">N = 160</th>"));
    assert!(html.contains("<th scope=\"row\" title=\"shared_2d\">Shared memory, 2D</th>"));
    // gflops: higher is better; shared 160 = 2*160^3/0.5/1e6 = 16.384
    assert!(html.contains("16.4"));
    let default_rows = TableModel::build(&view, &view.devices[0], &TableSpec::default());
    assert_eq!(default_rows.row_fields, vec!["N".to_string()]);
    assert_eq!(default_rows.rows.len(), 3);
}

#[test]
fn skipped_and_missing_cells() {
    let mut fixture = Fixture::new();
    fixture.points.retain(|p| {
        !(p.variant == "global_2d" && p.params["N"] == crate::value::ParamValue::Int(640))
    });
    let skipped = fixture
        .points
        .iter_mut()
        .find(|p| p.variant == "shared_2d" && p.outcome == crate::record::Outcome::Failed)
        .unwrap();
    skipped.outcome = crate::record::Outcome::Skipped;
    skipped.failure = Some(crate::record::Failure {
        kind: crate::record::FailureKind::Budget,
        message: "predicted 90 s".into(),
    });
    let html = render(&fixture);
    assert!(html.contains("<td class=\"gpulab-cell gpulab-skipped\" title=\"not run: budget\">skipped (budget)</td>"), "{html}");
    assert!(
        html.contains("<td class=\"gpulab-cell gpulab-pending\" title=\"not recorded yet: awaiting a GPU run\">pending</td>"),
        "{html}"
    );
    assert!(
        html.contains(
            "1 of 6 points not recorded on this device yet (pending: awaiting a GPU run)"
        )
    );
}

#[test]
fn heatmap_and_bar_charts_in_a_directive() {
    let mut fixture = Fixture::new();
    fixture.with_paper = false;
    fixture.directive.charts = vec![
        ChartSpec {
            kind: ChartKind::Heatmap,
            x: "N".into(),
            y: "variant".into(),
            series: None,
            value: Some("gflops".into()),
            log_x: false,
            log_y: false,
            title: None,
        },
        ChartSpec {
            kind: ChartKind::Bar,
            x: "N".into(),
            y: "time_ms".into(),
            series: None,
            value: None,
            log_x: false,
            log_y: true,
            title: Some("Bars".into()),
        },
    ];
    let html = render(&fixture);
    assert_one_html_block(&html);
    assert_eq!(html.matches("<svg class=\"gpulab-chart-svg\"").count(), 2);
    assert!(html.contains("<figcaption>throughput by N and variant"));
    assert!(html.contains("<figcaption>Bars"));
    assert!(!html.contains("gpulab-paper-label"), "no paper, no caption");
}

#[test]
fn empty_chart_data_gives_a_note() {
    let mut fixture = Fixture::new();
    fixture.directive.charts = vec![ChartSpec {
        y: "pct_bw".into(),
        ..line_chart()
    }];
    let html = render(&fixture);
    assert!(
        html.contains(
            "<p class=\"gpulab-note\">of peak bandwidth by N: no values to chart yet.</p>"
        ),
        "{html}"
    );
}

/// `devices = "all"` showed one table and one chart per GPU: the GPUs are now side by side in one
/// table (a row each where the columns vary, else a column each) and one chart, each GPU keeping
/// its claims and provenance.
#[test]
fn devices_all_side_by_side() {
    let fixture = Fixture::new();
    let second = crate::record::DeviceRecord {
        slug: "second-gpu".into(),
        name: "Second synthetic GPU".into(),
        ..fixture.device.clone()
    };
    let mut view = fixture.view();
    let mut other = view.devices[0].clone();
    other.device = &second;
    for c in &mut other.cells {
        c.device = &second;
    }
    other.provenance.device_name = second.name.clone();
    view.devices.push(other);
    let html = render_directive_html(&view, &Templates::builtin().unwrap()).unwrap();
    assert_one_html_block(&html);
    assert!(html.contains("gpulab-devices gpulab-devices-multi"));
    assert_eq!(
        html.matches("<table class=\"gpulab-table\">").count(),
        1,
        "{html}"
    );
    assert_eq!(
        html.matches("<svg class=\"gpulab-chart-svg\"").count(),
        1,
        "{html}"
    );
    for name in ["Synthetic GPU X1", "Second synthetic GPU"] {
        assert_eq!(
            html.matches(&format!("<div class=\"gpulab-device-name\">{name}</div>"))
                .count(),
            1
        );
        assert!(
            html.contains(&format!("Global memory, 2D, {name}")),
            "a series per GPU: {html}"
        );
    }
    assert!(html.contains("<th scope=\"row\" title=\"second-gpu\">Second synthetic GPU</th>"));
    assert!(html.contains("download=\"synth_matmul.csv\""));
    // Where the columns field has one value (one size), the GPUs are the columns.
    for d in &mut view.devices {
        d.cells
            .retain(|c| c.axes["N"] == crate::value::ParamValue::Int(160));
    }
    let mut by_size = fixture.directive.clone();
    by_size.tables[0].rows = "variant".into();
    by_size.tables[0].columns = "N".into();
    view.directive = &by_size;
    let html = render_directive_html(&view, &Templates::builtin().unwrap()).unwrap();
    assert!(
        html.contains("<th scope=\"col\" title=\"second-gpu\">Second synthetic GPU</th>"),
        "{html}"
    );
}

#[test]
fn missing_box_says_awaiting_a_gpu_run_with_the_command_and_unevaluated_claims() {
    let fixture = Fixture::new();
    let mut view = fixture.view();
    view.devices.clear();
    let html = render_directive_html(&view, &Templates::builtin().unwrap()).unwrap();
    assert_one_html_block(&html);
    assert!(html.contains("awaiting a GPU run</span> Experiment <code>synth_matmul</code> has no recording on any device yet."), "{html}");
    assert!(
        html.contains("run <code>mdbook-gpulab run part1/synth.md#1</code>"),
        "{html}"
    );
    assert!(
        html.contains("<code>shared_2d.time_ms &lt; global_2d.time_ms</code> <span class=\"gpulab-claim-status\">not evaluated</span>"),
        "{html}"
    );
    assert!(html.contains(
        "<code>global_2d (Global memory, 2D)</code>, <code>shared_2d (Shared memory, 2D)</code>"
    ));
    assert!(
        html.contains("<li><code>N &#x3D; 160, 320, 640</code></li>")
            || html.contains("<li><code>N = 160, 320, 640</code></li>"),
        "{html}"
    );
    assert!(html.contains("6 points to measure"));
}

fn synthetic_directive(
    ids: &[&str],
    chapter: &str,
    anchor: &str,
    state: StatusState,
    claims: &[(&str, usize, usize)],
) -> DirectiveStatus {
    DirectiveStatus {
        ids: ids.iter().map(|s| s.to_string()).collect(),
        chapter_title: format!("Chapter {chapter}"),
        chapter_path: chapter.into(),
        anchor: anchor.into(),
        line: 1,
        title: "Synthetic table".into(),
        state,
        claims: claims
            .iter()
            .map(|(d, h, t)| DeviceClaims {
                device: d.to_string(),
                holding: *h,
                total: *t,
            })
            .collect(),
    }
}

/// A synthetic inventory of two papers (nothing here was published).
fn synthetic_inventory() -> crate::inventory::Inventory {
    let dir = tempfile::tempdir().unwrap();
    let write = |key: &str, text: &str| {
        let d = dir.path().join("papers").join(key);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("items.toml"), text).unwrap();
    };
    write(
        "synth2020",
        r#"paper = "Synth (2020)"
[[item]]
id = "table1"
kind = "table"
title = "Table 1: times"
state = "re-run"
[[item]]
id = "listing1"
kind = "listing"
title = "Listing 1"
state = "re-run"
same_as = "table1"
[[item]]
id = "fig2"
kind = "figure"
title = "Fig. 2: a diagram"
state = "prose"
why = "a diagram"
where = "part1/synth.md#the-experiment"
[[item]]
id = "gips"
kind = "table"
title = "Table 3: GIPS"
state = "not-reproduced"
why = "needs <counters>"
"#,
    );
    crate::inventory::Inventory::load(dir.path()).unwrap()
}

#[test]
fn status_table_has_one_row_per_inventory_item() {
    let directives = vec![
        synthetic_directive(
            &["synth2020:table1"],
            "part1/synth.md",
            "gpulab-synth-1",
            StatusState::Recorded,
            &[("GPU A", 2, 2), ("GPU B", 1, 2)],
        ),
        synthetic_directive(
            &["synth2020:table1"],
            "part1/synth.md",
            "gpulab-synth-3",
            StatusState::Pending,
            &[],
        ),
        synthetic_directive(
            &["other2021:fig2"],
            "other.md",
            "gpulab-other-1",
            StatusState::Stale,
            &[("GPU A", 0, 1)],
        ),
    ];
    let table = StatusTable::build(&synthetic_inventory(), &directives);
    let ids: Vec<String> = table.rows.iter().map(|r| r.full_id()).collect();
    assert_eq!(
        ids,
        [
            "synth2020:table1",
            "synth2020:listing1",
            "synth2020:fig2",
            "synth2020:gips",
            "other2021:fig2"
        ]
    );
    assert_eq!(table.devices, ["GPU A", "GPU B"]);
    assert_eq!(table.rows[0].recording, Some(StatusState::Partial));
    assert_eq!(table.rows[0].claims, [Some((2, 2)), Some((1, 2))]);
    assert_eq!(table.rows[1].claims, table.rows[0].claims);
    assert_eq!(table.rows[3].claims, [None, None]);

    let templates = Templates::builtin().unwrap();
    let html = templates.render_status(&table).unwrap();
    assert_one_html_block(&html);
    // a heading row per paper, one row per item, linked to the exact tables
    assert!(html.contains("<details class=\"gpulab-status-paper\"><summary>Synth (2020) <span class=\"gpulab-status-count\">(4 items:"), "{html}");
    assert!(
        html.starts_with(
            "<div class=\"gpulab gpulab-status\">\n<p class=\"gpulab-status-summary\">5 items:"
        ),
        "summary first: {html}"
    );
    assert_eq!(html.matches("<tr class=\"gpulab-item ").count(), 5);
    assert!(html.contains("<a href=\"part1/synth.html#gpulab-synth-1\" title=\"Synthetic table\">Chapter part1/synth.md</a>, <a href=\"part1/synth.html#gpulab-synth-3\" title=\"Synthetic table\">2</a>"), "{html}");
    assert!(html.contains(
        "re-run</span> · <span class=\"gpulab-state gpulab-state-partial\">partial</span>"
    ));
    assert!(html.contains("<th scope=\"col\" class=\"gpulab-status-device\">claims on GPU A</th>"));
    assert!(
        html.contains(
            "<td class=\"gpulab-claims-ok\">2 of 2 hold</td><td class=\"\">1 of 2 hold</td>"
        ),
        "{html}"
    );
    // not re-run: why, escaped; prose links to its chapter heading
    assert!(
        html.contains(
            "not reproduced</span><div class=\"gpulab-item-why\">needs &lt;counters&gt;</div>"
        ),
        "{html}"
    );
    assert!(html.contains("href=\"part1/synth.html#the-experiment\""));
    assert!(html.contains("5 items: 3 re-run (0 recorded with the current kernels), 0 paper numbers only, 1 prose only, 1 not reproduced"), "{html}");
    // listing1 shares table1's directives: its claims are not counted twice
    assert!(
        html.contains("claims holding on GPU A: 2 of 3; claims holding on GPU B: 1 of 2"),
        "{html}"
    );
    let nested = templates
        .render_status_from(&table, std::path::Path::new("a/status.md"))
        .unwrap();
    assert!(nested.contains("href=\"../part1/synth.html#gpulab-synth-1\""));
    let empty = templates.render_status(&StatusTable::default()).unwrap();
    assert!(empty.contains("No paper inventory"));
}

#[test]
fn error_box_keeps_multiline_message_in_one_block() {
    let templates = Templates::builtin().unwrap();
    let message = "error: unknown axis `Q`\n  --> part1/synth.md:12:9\n   |\n12 |     axes = { Q = 1 }\n   |              ^ did you mean `N`?\n";
    let html = templates
        .render_error("directive 1 in part1/synth.md", message)
        .unwrap();
    assert_one_html_block(&html);
    assert!(html.contains("<div class=\"gpulab gpulab-box gpulab-error\" role=\"alert\">"));
    assert!(
        html.contains("&#10;   |              ^ did you mean `N`?"),
        "{html}"
    );
    assert!(html.contains("gpulab: directive 1 in part1/synth.md"));
}

#[test]
fn theme_overrides_replace_templates() {
    let dir = tempfile::tempdir().unwrap();
    let gpulab = dir.path().join("gpulab");
    std::fs::create_dir_all(&gpulab).unwrap();
    std::fs::write(
        gpulab.join("error.hbs"),
        "<div class=\"mine\">\n\n    {{title}}\n</div>\n",
    )
    .unwrap();
    let templates = Templates::load(Some(dir.path())).unwrap();
    assert_eq!(
        templates.render_error("t<1>", "m").unwrap(),
        "<div class=\"mine\">\nt&lt;1&gt;\n</div>"
    );
    // other templates keep their built-in text
    assert!(
        templates
            .render_status(&StatusTable::default())
            .unwrap()
            .contains("gpulab-status-summary")
    );
    std::fs::write(gpulab.join("status.hbs"), "{{#each rows}}").unwrap();
    let err = Templates::load(Some(dir.path())).unwrap_err();
    assert!(matches!(err, RenderError::TemplateSyntax { .. }), "{err}");
    assert!(err.to_string().contains("status.hbs"));
}

#[test]
fn css_covers_classes_and_theme_variables() {
    for class in [
        ".gpulab-best",
        ".gpulab-failed",
        ".gpulab-stale-badge",
        ".gpulab-paper",
        ".gpulab-claim-fails",
        ".gpulab-devices-multi",
    ] {
        assert!(CSS.contains(class), "{class}");
    }
    for var in [
        "var(--table-border-color)",
        "var(--quote-bg)",
        "var(--links)",
        "var(--fg)",
        ".coal .gpulab",
    ] {
        assert!(CSS.contains(var), "{var}");
    }
}

#[test]
fn thousands_in_cells() {
    let mut fixture = Fixture::new();
    fixture.points[2] = fixture::point("global_2d", 640, 1234.5);
    let html = render(&fixture);
    assert!(html.contains(&format!(">1{THOUSANDS_SEP}235<")), "{html}");
}

/// The fixture's directive showing `value` in its table (and the same in a bar chart), with its
/// cells' relative metrics filled in.
fn relative_fixture(value: &str) -> Fixture {
    let mut fixture = Fixture::new();
    fixture.with_paper = false;
    fixture.directive.tables[0].value = value.into();
    fixture.directive.charts = vec![ChartSpec {
        kind: ChartKind::Bar,
        x: "N".into(),
        y: value.into(),
        series: Some("variant".into()),
        value: None,
        log_x: false,
        log_y: false,
        title: None,
    }];
    fixture
}

/// The states of a table's cells, by (N, column index).
fn table_states(fixture: &Fixture) -> Vec<(String, Vec<outcome::CellState>)> {
    let view = fixture.view();
    let model = TableModel::build(&view, &view.devices[0], &fixture.directive.tables[0]);
    model
        .rows
        .iter()
        .map(|r| {
            (
                r.keys[0].raw_text(),
                r.cells.iter().map(|c| c.state.clone()).collect(),
            )
        })
        .collect()
}

#[test]
fn speedup_over_a_variant() {
    use outcome::CellState::{Failed, Value};
    // global_2d 2, 16, 128 ms; shared_2d 0.5, 4 ms, failed at 640
    let fixture = relative_fixture("speedup:global_2d");
    let states = table_states(&fixture);
    assert_eq!(states[0], ("160".into(), vec![Value(1.0), Value(4.0)]));
    assert_eq!(states[1], ("320".into(), vec![Value(1.0), Value(4.0)]));
    assert_eq!(states[2].1[0], Value(1.0));
    assert!(matches!(&states[2].1[1], Failed(r) if r.contains("max error 3")));

    let html = render(&fixture);
    assert_one_html_block(&html);
    assert!(
        html.contains("class=\"gpulab-metric\">speed-up over Global memory, 2D (×)</th>"),
        "{html}"
    );
    assert!(html.contains(
        "<td class=\"gpulab-cell gpulab-num gpulab-best\" title=\"median of 10 samples · IQR 0.475–0.525 ms · noise 0.40 % (target 0.5 %)\">4.0×</td>"
    ), "{html}");
    // the CSV has full precision and marks the failure
    assert!(html.contains("N,global_2d,shared_2d%0A160,1,4%0A320,1,4%0A640,1,failed%0A"));
    // the chart draws the ratios (axis label with the unit) and notes the failed point
    assert!(
        html.contains("speed-up over Global memory, 2D (×)</text>"),
        "{html}"
    );
    assert!(html.contains("1 failed point (marked ✗)."), "{html}");
}

#[test]
fn percent_of_a_variant() {
    use outcome::CellState::{NoValue, Value};
    let fixture = relative_fixture("pct_of:shared_2d");
    let states = table_states(&fixture);
    assert_eq!(states[0].1, vec![Value(25.0), Value(100.0)]);
    // the baseline failed at 640: no number for global_2d, never an invented one
    assert_eq!(states[2].1[0], NoValue);
    let html = render(&fixture);
    assert!(html.contains("class=\"gpulab-metric\">of Shared memory, 2D (%)</th>"));
    assert!(html.contains(">25.0\u{a0}%</td>"), "{html}");
    assert!(html.contains("640,,failed%0A"), "{html}");
}

#[test]
fn speedup_over_the_previous_variant_follows_the_directive_order() {
    use outcome::CellState::{NoValue, Value};
    let fixture = relative_fixture("speedup:previous");
    let states = table_states(&fixture);
    // global_2d is first: no previous variant
    assert_eq!(states[0].1, vec![NoValue, Value(4.0)]);
    let html = render(&fixture);
    assert!(html.contains(">speed-up over the previous variant (×)</th>"));

    let mut reversed = relative_fixture("speedup:previous");
    reversed.directive.variants.reverse();
    let states = table_states(&reversed);
    // columns stay in the fixture's label order (global_2d, shared_2d)
    assert_eq!(states[0].1, vec![Value(0.25), NoValue]);
    assert_eq!(states[2].1[0], NoValue, "the previous variant failed");
}

#[test]
fn relative_metric_without_a_usable_baseline_shows_no_value() {
    use crate::record::{Failure, FailureKind, Outcome};
    use outcome::CellState::{Failed, Missing, NoValue, Skipped, Value};
    let mut fixture = relative_fixture("speedup:global_2d");
    // the baseline global_2d: skipped at 160, missing at 320, failed at 640;
    // shared_2d: ok at 160 and 320, failed at 640
    let mut skipped = fixture::point("global_2d", 160, 2.0);
    skipped.outcome = Outcome::Skipped;
    skipped.timing = None;
    skipped.metrics.clear();
    skipped.failure = Some(Failure {
        kind: FailureKind::Budget,
        message: "predicted 90 s".into(),
    });
    fixture.points.retain(|p| p.variant != "global_2d");
    fixture.points.push(skipped);
    fixture.points.push(fixture::failed("global_2d", 640));
    let states = table_states(&fixture);
    assert!(matches!(states[0].1[0], Skipped(_)), "{states:?}");
    assert_eq!(states[0].1[1], NoValue);
    assert_eq!(states[1].1, vec![Missing, NoValue]);
    assert!(matches!(states[2].1[0], Failed(_)));
    assert!(matches!(states[2].1[1], Failed(_)), "this point failed");
    assert!(
        !states
            .iter()
            .flat_map(|s| &s.1)
            .any(|s| matches!(s, Value(_)))
    );
}

#[test]
fn relative_metrics_in_the_terminal_table() {
    let fixture = relative_fixture("speedup:global_2d");
    let view = fixture.view();
    let text = super::text::text_table(
        &fixture.directive.tables[0],
        &view.devices[0],
        &view.metrics,
    );
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0].split_whitespace().collect::<Vec<_>>(),
        [
            "N",
            "\\",
            "speedup:global_2d",
            "(×)",
            "global_2d",
            "shared_2d"
        ]
    );
    assert_eq!(
        lines[1].split_whitespace().collect::<Vec<_>>(),
        ["160", "1.0×", "4.0×"]
    );
    assert_eq!(
        lines[3].split_whitespace().collect::<Vec<_>>(),
        ["640", "1.0×", "FAILED"]
    );
}

#[test]
fn plain_metrics_ignore_relative_values() {
    // Relative values are computed only for names the directive shows, and never change the
    // plain metrics' cells.
    let fixture = Fixture::new();
    let view = fixture.view();
    assert!(view.devices[0].cells.iter().all(|c| c.relative.is_empty()));
    let mut with = relative_fixture("speedup:global_2d");
    with.with_paper = true;
    let view_with = with.view();
    let spec = TableSpec {
        value: "time_ms".into(),
        ..fixture.directive.tables[0].clone()
    };
    assert_eq!(
        TableModel::build(&view, &view.devices[0], &spec),
        TableModel::build(&view_with, &view_with.devices[0], &spec)
    );
}

#[test]
fn cells_outside_the_sweep_are_not_labelled_not_recorded() {
    // Regression: a (row, column) that no point of the sweep has (zipped axes, a parameter only some
    // variants use) was shown as "not recorded".
    let fixture = Fixture::new();
    let mut view = fixture.view();
    view.devices[0].cells.retain(|c| {
        !(c.variant == "shared_2d" && c.axes["N"] == crate::value::ParamValue::Int(640))
    });
    let model = TableModel::build(&view, &view.devices[0], &TableSpec::default());
    let html = table_html(&model, None, "x.csv");
    assert!(
        html.contains(
            "<td class=\"gpulab-cell gpulab-outside\" title=\"not part of this sweep\"></td>"
        ),
        "{html}"
    );
    assert!(!html.contains("not recorded"), "{html}");
}

#[test]
fn relative_values_say_when_they_pair_points_of_different_runs() {
    let mut fixture = relative_fixture("speedup:global_2d");
    for p in &mut fixture.points {
        p.run = Some("20261123T140000Z-1".into());
    }
    let html = render(&fixture);
    assert!(!html.contains("recording runs"), "one run: no note");
    // The baseline at one size comes from another run: the one cell compared with it says so.
    let other = fixture
        .points
        .iter_mut()
        .find(|p| p.variant == "global_2d")
        .unwrap();
    other.run = Some("20261124T090000Z-2".into());
    let html = render(&fixture);
    assert!(
        html.contains("relative values pair points of different (or unrecorded) recording runs at 1 of 5 cells"),
        "{html}"
    );
}

/// A directive that declares counters: a point with counters of its own key shows its GIPS, one
/// without (or with counters of older code) says it awaits a GPU run, never a number.
#[test]
fn counter_metrics_render_like_any_metric_and_say_when_they_await_a_gpu_run() {
    use crate::metrics::counters::{self, Group};
    let mut fixture = Fixture::new();
    fixture.directive.counters = vec![Group::Instructions];
    fixture.directive.tables[0].value = "gips".into();
    fixture.directive.charts.clear();
    fixture.with_paper = false;
    // SYNTHETIC counters: 2·10⁹ warp instructions at global_2d N=160 (median 2 ms) → 1000 GIPS.
    let values = std::collections::BTreeMap::from([
        (counters::INST_EXECUTED.to_string(), 2e9),
        (counters::INST_EXECUTED_SM_MAX.to_string(), 2e7),
    ]);
    let counted = |key: &str, at| crate::record::Counters {
        key: key.into(),
        recorded_at: at,
        commit: None,
        profiler: "Version 2025.3 (synthetic)".into(),
        settings: String::new(),
        launches: 1,
        values: values.clone(),
    };
    for p in &mut fixture.points {
        if p.variant == "global_2d" && p.params["N"] == crate::value::ParamValue::Int(160) {
            p.counters = Some(counted(&p.key, p.recorded_at));
            let cx = counters::Context {
                time_ms: p.timing.as_ref().map(|t| t.median_ms),
                flops: None,
            };
            p.metrics.extend(counters::derive(&values, cx));
        }
        if p.variant == "shared_2d" && p.params["N"] == crate::value::ParamValue::Int(160) {
            p.counters = Some(counted("older code", p.recorded_at));
        }
    }
    let mut view = fixture.view();
    view.metrics.insert(
        "gips".into(),
        crate::metrics::MetricInfo {
            label: "warp instructions per second, whole GPU".into(),
            unit: crate::value::Unit::Gips,
            uses_time: true,
            better: crate::value::Unit::Gips.better(),
        },
    );
    let templates = Templates::builtin().unwrap();
    let html = render_directive_html(&view, &templates).unwrap();
    assert!(
        html.contains(&format!(">1{THOUSANDS_SEP}000</td>")),
        "{html}"
    );
    assert!(
        html.contains(
            "title=\"hardware counters not recorded yet: awaiting a GPU run (mdbook-gpulab record --counters)\">awaiting counters</td>"
        ),
        "{html}"
    );
    // global_2d@320 is stale (not counted), shared_2d@640 failed: 3 of 6 await counters.
    assert!(
        html.contains("hardware counters of 3 of 6 points not recorded yet (awaiting a GPU run)"),
        "{html}"
    );
}

/// Szczepański's register counts, blocks per SM and CGMA showed "32~" (noise above the target):
/// a value not computed from the time carries no timing marks, in cells or the provenance line.
#[test]
fn values_not_computed_from_the_time_carry_no_timing_marks() {
    let mut fixture = Fixture::new();
    for p in &mut fixture.points {
        if let Some(t) = p.timing.as_mut() {
            t.noise = 0.05; // ten times the target
        }
    }
    let spec = TableSpec {
        rows: "variant".into(),
        columns: "N".into(),
        value: "gflops".into(),
        title: None,
        key: Vec::new(),
    };
    let marked = |view: &DirectiveView<'_>| {
        TableModel::build(view, &view.devices[0], &spec)
            .rows
            .iter()
            .flat_map(|r| &r.cells)
            .filter(|c| !c.concerns.is_empty())
            .count()
    };
    let view = fixture.view();
    assert!(marked(&view) > 0, "a rate computed from the time is marked");
    let mut view = fixture.view();
    view.metrics.get_mut("gflops").unwrap().uses_time = false;
    assert_eq!(marked(&view), 0);
}

#[test]
fn which_builtin_metrics_are_computed_from_the_time() {
    let uses = |name: &str| {
        crate::metrics::BUILTINS
            .iter()
            .find(|b| b.name == name)
            .unwrap()
            .uses_time()
    };
    for timed in ["time_ms", "gbps", "pct_fp32", "gips", "dram_gbs"] {
        assert!(uses(timed), "{timed}");
    }
    for untimed in [
        "registers",
        "blocks_per_sm",
        "local_bytes",
        "instructions",
        "cgma_dram",
        "limiter",
    ] {
        assert!(!uses(untimed), "{untimed}");
    }
}

/// Regression (session 10): lab 3's Tables 3.1 and 3.2 state no N, so their one time per variant
/// stood beside every N row, as if the lab had measured it at each size. Now a paper row that does
/// not name an axis the table varies is shown once, in the first cell it matches, and the caption
/// says why.
#[test]
fn a_paper_value_without_the_row_axis_is_shown_once_per_column() {
    let mut fixture = Fixture::new();
    fixture.paper = crate::papers::PaperTable::parse(
        "synth2020/table1",
        std::path::Path::new("synthetic.csv"),
        "# paper: synth2020\n# gpu: Synthetic Paper GPU\n# units: time_ms=ms\nvariant,time_ms\nshared_2d,9.0\n",
    )
    .unwrap();
    let view = fixture.view();
    let model = TableModel::build(&view, &view.devices[0], &fixture.directive.tables[0]);
    let shared: Vec<Option<f64>> = model
        .rows
        .iter()
        .map(|r| r.cells[1].paper.map(|p| p.value))
        .collect();
    assert_eq!(shared[0], Some(9.0), "{shared:?}");
    assert!(shared[1..].iter().all(Option::is_none), "{shared:?}");
    assert!(model.paper_repeats >= 1);
    assert_eq!(model.paper_unnamed, vec!["N".to_string()]);
    let html = table_html(&model, Some(&fixture.paper), "x.csv");
    assert!(
        html.contains(
            "each of the paper's values is shown once, in the first cell it matches: its table does not state N"
        ),
        "{html}"
    );
    // The same with N as the columns: shown once in its row, not in every column.
    let spec = TableSpec {
        rows: "variant".into(),
        columns: "N".into(),
        value: "time_ms".into(),
        title: None,
        key: Vec::new(),
    };
    let across = TableModel::build(&view, &view.devices[0], &spec);
    let shown = across
        .rows
        .iter()
        .flat_map(|r| &r.cells)
        .filter(|c| c.paper.is_some())
        .count();
    assert_eq!(shown, 1, "{across:?}");
}
