//! Tests of `compare`.

use super::*;

#[test]
fn speedup_direction_by_unit() {
    let time = compare(0.5, Some(0.1), Unit::Millis, true);
    assert!((time.speedup.unwrap() - 5.0).abs() < 1e-12);
    let bw = compare(100.0, Some(250.0), Unit::GigabytesPerSec, true);
    assert!((bw.speedup.unwrap() - 2.5).abs() < 1e-12);
    assert_eq!(compare(1.0, None, Unit::Millis, true).speedup, None);
    assert_eq!(compare(1.0, Some(0.0), Unit::Millis, true).speedup, None);
}

/// "Speed-up vs paper" was printed for register counts and CGMA, where a ratio means nothing.
#[test]
fn no_speedup_vs_paper_for_quantities_that_are_not_speeds() {
    for unit in [
        Unit::Count,
        Unit::Percent,
        Unit::Bytes,
        Unit::Ratio,
        Unit::FlopPerByte,
    ] {
        assert_eq!(
            compare(16.0, Some(32.0), unit, true).speedup,
            None,
            "{unit:?}"
        );
    }
    assert!(
        compare(16.0, Some(32.0), Unit::Gips, true)
            .speedup
            .is_some()
    );
    let mut paper = PaperTable::default();
    assert!(caption_html(&paper, Unit::Count, 3).contains("no speed-up is shown"));
    // A table whose size is unknown: times, but no speed-up either.
    assert_eq!(compare(2.0, Some(1.0), Unit::Millis, false).speedup, None);
    paper
        .meta
        .insert("no-speed-up".into(), "the lab states no N".into());
    assert!(
        caption_html(&paper, Unit::Millis, 3).contains("no speed-up is shown: the lab states no N")
    );
}

#[test]
fn caption_shortens_gpu() {
    // Synthetic paper metadata.
    let mut paper = PaperTable {
        id: "p2020/t1".into(),
        info_columns: Vec::new(),
        ..Default::default()
    };
    paper
        .meta
        .insert("gpu".into(), "Synthetic GPU 9 (4 SMs, 1 GB)".into());
    paper
        .meta
        .insert("source".into(), "A. Author (2020), Table 1".into());
    let html = caption_html(&paper, Unit::Millis, 3);
    assert!(html.contains("title=\"Synthetic GPU 9 (4 SMs, 1 GB) · A. Author (2020), Table 1\">paper: Synthetic GPU 9 (p2020, t1)</span>"));
    assert!(html.contains("paper ÷ ours"));
    assert!(caption_html(&paper, Unit::GigabytesPerSec, 3).contains("ours ÷ paper"));
    assert!(caption_html(&paper, Unit::Millis, 0).contains("no value of the paper matches"));
    // Regression (session 10): a table of a metric the paper has no column for (Szczepański's
    // whole-GPU GIPS) read "no value of the paper matches these cells".
    let none = no_column_html(&paper, "gips", "GIPS, whole GPU");
    assert!(
        none.contains("the paper's table gives no number for GIPS, whole GPU"),
        "{none}"
    );
    assert!(!none.contains("matches"), "{none}");
    paper.info_columns = vec!["limiter".into()];
    let words = no_column_html(&paper, "limiter", "occupancy limited by");
    assert!(
        words.contains("the paper's table gives in words, not as a number, occupancy limited by"),
        "{words}"
    );
}

#[test]
fn converts_seconds() {
    assert_eq!(convert(2.0, Unit::Seconds, Unit::Millis), Some(2000.0));
    assert_eq!(convert(2.0, Unit::Percent, Unit::Millis), None);
}
