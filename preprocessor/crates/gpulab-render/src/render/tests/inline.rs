//! Inline values over the SYNTHETIC fixture: shown as its table cells are, with the unit after the
//! number, and "awaiting a GPU run" where a result is not recorded.

use super::fixture::Fixture;
use crate::directive::{Inline, Operand};
use crate::expr::Expr;
use crate::render::inline::inline_value;
use crate::value::{ParamValue, Unit};

fn operand(var: &str, n: i64, device: Option<&str>) -> Operand {
    let (variant, metric) = var.split_once('.').unwrap();
    Operand {
        var: var.into(),
        variant: variant.into(),
        metric: metric.into(),
        params: [("N".to_string(), ParamValue::Int(n))].into(),
        device: device.map(str::to_string),
    }
}

fn shown(fixture: &Fixture, expr: &str, operands: Vec<Operand>, unit: Option<Unit>) -> String {
    let inline = Inline {
        expr: Expr::parse(expr).unwrap(),
        operands,
        unit,
    };
    inline_value(&fixture.view(), &inline, None).html()
}

/// The text a reader sees (tags dropped).
fn text(html: &str) -> String {
    let mut out = String::new();
    let mut tag = false;
    for c in html.chars() {
        match c {
            '<' => tag = true,
            '>' => tag = false,
            c if !tag => out.push(c),
            _ => {}
        }
    }
    out
}

#[test]
fn a_lone_result_shows_its_unit_and_where_it_comes_from() {
    let f = Fixture::new();
    let html = shown(
        &f,
        "shared_2d.time_ms",
        vec![operand("shared_2d.time_ms", 160, None)],
        None,
    );
    assert_eq!(text(&html), "0.500\u{a0}ms");
    assert!(
        html.starts_with("<span class=\"gpulab-value gpulab-num\""),
        "{html}"
    );
    assert!(html.contains("data-value=\"0.5\""), "{html}");
    assert!(
        html.contains(
            "Shared memory, 2D (shared_2d): time at N=160 · Synthetic GPU X1 · CUDA 13.0"
        ),
        "{html}"
    );
}

#[test]
fn an_expression_combines_results_and_keeps_their_staleness() {
    let f = Fixture::new();
    let ops = |n| {
        vec![
            operand("global_2d.time_ms", n, None),
            operand("shared_2d.time_ms", n, None),
        ]
    };
    let ratio = "global_2d.time_ms / shared_2d.time_ms";
    assert_eq!(text(&shown(&f, ratio, ops(160), Some(Unit::Ratio))), "4.0×");
    let pct = "100 * shared_2d.time_ms / global_2d.time_ms";
    assert_eq!(
        text(&shown(&f, pct, ops(160), Some(Unit::Percent))),
        "25.0\u{a0}%"
    );
    let stale = shown(&f, ratio, ops(320), Some(Unit::Ratio));
    assert!(
        stale.contains("gpulab-stale") && text(&stale) == "4.0×†",
        "{stale}"
    );
}

#[test]
fn a_result_not_recorded_or_failed_says_so() {
    let f = Fixture::new();
    let failed = shown(
        &f,
        "shared_2d.time_ms",
        vec![operand("shared_2d.time_ms", 640, None)],
        None,
    );
    assert_eq!(text(&failed), "✗ failed");
    let elsewhere = vec![operand("shared_2d.time_ms", 160, Some("h999"))];
    let missing = shown(&f, "shared_2d.time_ms", elsewhere, None);
    assert_eq!(text(&missing), "awaiting a GPU run");
    assert!(missing.contains("not recorded on h999 yet"), "{missing}");
    let on = vec![operand("shared_2d.time_ms", 160, Some("synthetic"))];
    assert_eq!(
        text(&shown(&f, "shared_2d.time_ms", on, None)),
        "0.500\u{a0}ms",
        "a part of the slug names it"
    );
}

/// A point this GPU cannot run shows what it needs, in a table cell and inline, and is no
/// problem of the build.
#[test]
fn a_point_not_applicable_here_shows_what_it_needs() {
    let mut f = Fixture::new();
    let p = &mut f.points[5];
    p.outcome = crate::record::Outcome::Skipped;
    p.failure = Some(crate::record::Failure {
        kind: crate::record::FailureKind::NotApplicable,
        message: "needs sm_90 (Hopper)".into(),
    });
    let inline = Inline {
        expr: Expr::parse("shared_2d.time_ms").unwrap(),
        operands: vec![operand("shared_2d.time_ms", 640, None)],
        unit: None,
    };
    let value = inline_value(&f.view(), &inline, None);
    assert_eq!(text(&value.html()), "needs sm_90 (Hopper)");
    assert_eq!(value.problem(), Some("not applicable"));
    let html = super::render(&f);
    assert!(
        html.contains(
            "title=\"not applicable on this GPU: needs sm_90 (Hopper)\">needs sm_90 (Hopper)</td>"
        ),
        "{html}"
    );
}

/// `~` after a value would open markdown's strikethrough up to the next `~` of the paragraph.
#[test]
fn the_noise_mark_cannot_start_a_strikethrough() {
    let mut f = Fixture::new();
    f.points[3].timing.as_mut().unwrap().noise = 0.2;
    let html = shown(
        &f,
        "shared_2d.time_ms",
        vec![operand("shared_2d.time_ms", 160, None)],
        None,
    );
    assert!(
        html.contains("<sup class=\"gpulab-q\">&#126;</sup>"),
        "{html}"
    );
    assert!(!text(&html).contains('~'), "{html}");
}
