//! Tests of `diagnostic`.

use super::*;

const SRC: &str = "```gpulab\nexperiment = \"matmul\"\naxis = { N = [1, 2] }\n```\n";

fn diag(span: Range<usize>) -> Diagnostic {
    Diagnostic::error("unknown field `axis`", "book/ch1.md", SRC, span)
        .with_label("not a directive field")
        .with_help("did you mean `axes`?")
}

/// "experiment `coalescing` could not be loaded … did you mean `coalescing`?" when the spec
/// itself was broken: a suggestion equal to the name is no help.
#[test]
fn did_you_mean_never_suggests_the_name_itself() {
    assert_eq!(did_you_mean("coalescing", ["coalescing", "copy"]), None);
    assert_eq!(
        did_you_mean("coalesing", ["coalescing", "copy"]).as_deref(),
        Some("did you mean `coalescing`?")
    );
}

#[test]
fn line_col_is_one_based() {
    assert_eq!(line_col(SRC, 0), (1, 1));
    assert_eq!(line_col(SRC, 3), (1, 4));
    assert_eq!(line_col(SRC, 10), (2, 1));
    assert_eq!(line_col(SRC, 32), (3, 1));
    assert_eq!(line_col(SRC, 10_000), (5, 1));
    assert_eq!(line_col("", 5), (1, 1));
    // Columns count characters, not bytes.
    assert_eq!(line_col("é = x", 4), (1, 4));
    assert_eq!(line_col("é = x", 1), (1, 1));
}

#[test]
fn render_plain_shows_message_location_caret_label_and_help() {
    let span = SRC.find("axis").unwrap();
    let out = diag(span..span + 4).render(false);
    assert!(out.starts_with("error: unknown field `axis`"), "{out}");
    assert!(out.contains("--> book/ch1.md:3:1"), "{out}");
    assert!(out.contains("axis = { N = [1, 2] }"), "{out}");
    assert!(out.contains("^^^^ not a directive field"), "{out}");
    assert!(out.contains("help: did you mean `axes`?"), "{out}");
    assert!(
        !out.contains('\u{1b}'),
        "plain output has no escapes: {out}"
    );
    assert_eq!(diag(span..span + 4).to_string(), out);
}

#[test]
fn render_color_has_escapes() {
    let out = diag(10..20).render(true);
    assert!(out.contains('\u{1b}'));
    assert!(out.contains("unknown field"));
}

#[test]
fn render_warning_and_no_help() {
    let d = Diagnostic {
        level: Level::Warning,
        ..Diagnostic::error("slow point", "x.md", "a\nbb\n", 2..4).with_label("here")
    };
    let out = d.render(false);
    assert!(out.starts_with("warning: slow point"), "{out}");
    assert!(out.contains("x.md:2:1"), "{out}");
    assert!(!out.contains("help"), "{out}");
}

#[test]
fn odd_spans_do_not_panic() {
    for span in [
        0..0,
        SRC.len()..SRC.len(),
        SRC.len() + 5..SRC.len() + 9,
        Range { start: 30, end: 10 },
        5..1000,
        9..10,
    ] {
        let out = diag(span.clone()).render(false);
        assert!(out.contains("error: unknown field"), "{span:?}: {out}");
    }
    let multi = Diagnostic::error("m", "p", "é\nüx", 1..3).render(false);
    assert!(multi.contains("error: m"));
    let empty = Diagnostic::error("m", "p", "", 0..4).render(false);
    assert!(empty.contains("error: m"), "{empty}");
    let no_newline = Diagnostic::error("m", "p", "abc", 3..3).render(false);
    assert!(no_newline.contains("p:1:4"), "{no_newline}");
}

/// Issue 36: every diagnostic held its own copy of the chapter, so a 190 kB chapter naming
/// 20,000 unknown variants took 7.4 GB. Now they share it, and only 20 are kept.
#[test]
fn twenty_thousand_diagnostics_share_one_source_and_are_capped() {
    let text = SourceText::new("x".repeat(190_000));
    let diags: Vec<Diagnostic> = (0..20_000)
        .map(|i| Diagnostic {
            source: Arc::clone(&text),
            ..Diagnostic::error("unknown variant", "ch.md", "", i..i + 1)
        })
        .collect();
    assert!(
        diags
            .iter()
            .all(|d| Arc::ptr_eq(&d.source, &diags[0].source))
    );
    let shown = cap(diags);
    assert_eq!(shown.len(), MAX_SHOWN + 1);
    assert_eq!(shown[MAX_SHOWN].span, MAX_SHOWN..MAX_SHOWN + 1);
    assert!(
        shown[MAX_SHOWN]
            .message
            .starts_with("and 19980 more problem(s) here"),
        "{}",
        shown[MAX_SHOWN].message
    );
    let few = cap(shown[..3].to_vec());
    assert_eq!(few.len(), 3);
}

/// The rendered excerpt is the span's lines only, numbered as in the whole file.
#[test]
fn a_diagnostic_renders_its_own_lines_with_their_numbers() {
    let src = format!("{}target line\nafter\n", "filler\n".repeat(1000));
    let at = src.find("target").unwrap();
    let out = Diagnostic::error("m", "p", src.as_str(), at..at + 6).render(false);
    assert!(out.contains("p:1001:1"), "{out}");
    assert!(out.contains("1001 | target line"), "{out}");
    assert!(!out.contains("filler") && !out.contains("after"), "{out}");
}

#[test]
fn clamped_span_respects_char_boundaries() {
    let d = Diagnostic::error("m", "p", "aé b", 2..3);
    assert_eq!(d.clamped_span(), 1..3);
    let d = Diagnostic::error("m", "p", "ab", 5..9);
    assert_eq!(d.clamped_span(), 2..2);
    let d = Diagnostic::error("m", "p", "abc", Range { start: 2, end: 1 });
    assert_eq!(d.clamped_span(), 2..2);
    assert_eq!(d.line_col(), (1, 3));
}

#[test]
fn multi_line_span_renders_both_lines() {
    let src = "first line\nsecond line\nthird\n";
    let out = Diagnostic::error("m", "p", src, 6..17)
        .with_label("lbl")
        .render(false);
    assert!(
        out.contains("first line") && out.contains("second line"),
        "{out}"
    );
    assert!(!out.contains("third"), "{out}");
}

#[test]
fn suggestions() {
    let fields = [
        "experiment",
        "variants",
        "axes",
        "zip",
        "title",
        "table",
        "chart",
    ];
    assert_eq!(suggest("axis", fields), Some("axes"));
    assert_eq!(suggest("varaints", fields), Some("variants"));
    assert_eq!(suggest("experimnet", fields), Some("experiment"));
    assert_eq!(suggest("Title", fields), Some("title"));
    assert_eq!(suggest("tabel", fields), Some("table"));
    assert_eq!(suggest("qqqq", fields), None);
    assert_eq!(suggest("", fields), None);
    assert_eq!(suggest("N", ["M", "K"]), None);
    assert_eq!(
        suggest("tme_ms", ["gbps", "time_ms", "gflops"]),
        Some("time_ms")
    );
    assert_eq!(suggest("x", std::iter::empty()), None);
    assert_eq!(
        did_you_mean("axis", fields).as_deref(),
        Some("did you mean `axes`?")
    );
    assert_eq!(did_you_mean("zzzzzz", fields), None);
}
