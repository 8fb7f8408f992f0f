//! Tests of `results`.

use super::*;
use chrono::TimeZone;

#[test]
fn a_point_is_made_by_a_commit_whatever_the_length_of_its_short_hash() {
    let p = |c: Option<&str>| Point::new("v", &BTreeMap::new(), "k", c.map(String::from));
    assert!(made_by(&p(Some("185bbb2")), "185bbb2"));
    assert!(made_by(&p(Some("185bbb2")), "185bbb2c9d"));
    assert!(made_by(&p(Some("185bbb2c9d")), "185bbb2"));
    assert!(!made_by(&p(Some("16e018a")), "185bbb2"));
    assert!(
        !made_by(&p(None), "185bbb2"),
        "a point naming no commit is another's"
    );
    assert!(
        !made_by(&p(Some("185bbb2+dirty")), "185bbb2"),
        "a dirty tree is not the commit"
    );
    assert!(!made_by(&p(Some("")), ""));
}

fn point(day: u32, commit: Option<&str>) -> Point {
    let mut p = Point::new("v", &BTreeMap::new(), "k", commit.map(String::from));
    p.recorded_at = chrono::Utc
        .with_ymd_and_hms(2026, 11, day, 12, 0, 0)
        .unwrap();
    p
}

/// Widuch's Table 4 claims name the CPU of Table 2: the directive shows Table 4 and merges it
/// with Table 2 for the self-check, and Table 4 alone would repeat each claim as "no data".
#[test]
fn self_check_leaves_out_the_shown_table_when_a_set_merges_it() {
    let table = |id: &str| PaperTable {
        id: id.into(),
        info_columns: Vec::new(),
        ..PaperTable::default()
    };
    let (t4, t2, t9) = (table("w/table4"), table("w/table2"), table("w/table9"));
    let ids = |sets: Vec<Vec<&PaperTable>>| -> Vec<Vec<String>> {
        sets.iter()
            .map(|s| s.iter().map(|t| t.id.clone()).collect())
            .collect()
    };
    assert_eq!(
        ids(self_check_sets(Some(&t4), vec![vec![&t4, &t2]])),
        [["w/table4", "w/table2"]]
    );
    assert_eq!(
        ids(self_check_sets(Some(&t4), vec![vec![&t9]])),
        [vec!["w/table4"], vec!["w/table9"]]
    );
    assert!(self_check_sets(None, Vec::new()).is_empty());
}

/// A claim naming `copy_bulk` on a GPU older than Hopper read "not evaluated: no results",
/// as if a recording were missing.
#[test]
fn a_claim_on_a_variant_this_gpu_cannot_run_is_not_applicable() {
    let ok = point(21, None);
    let mut na = Point::new("b", &BTreeMap::new(), "k", None);
    na.outcome = Outcome::Skipped;
    na.failure = Some(crate::record::Failure {
        kind: crate::record::FailureKind::NotApplicable,
        message: "needs sm_90 (Hopper)".into(),
    });
    let dev = crate::record::fixture::device();
    fn cell<'a>(variant: &str, p: &'a Point, device: &'a crate::record::DeviceRecord) -> Cell<'a> {
        Cell {
            variant: variant.into(),
            axes: BTreeMap::new(),
            point: Some(p),
            stale: false,
            relative: BTreeMap::new(),
            calibration: None,
            device,
        }
    }
    let claim = Claim::parse("b.time_ms < v.time_ms").unwrap();
    let cells = [cell("v", &ok, &dev), cell("b", &na, &dev)];
    let view = not_applicable(&claim, &cells).expect("not applicable");
    assert_eq!(view.status, ClaimStatus::NotEvaluated);
    assert_eq!(
        view.detail,
        "not applicable on this GPU: `b` needs sm_90 (Hopper)"
    );
    let measured = [
        cell("v", &ok, &dev),
        cell("b", &na, &dev),
        cell("b", &ok, &dev),
    ];
    assert!(
        not_applicable(&claim, &measured).is_none(),
        "measured somewhere: evaluated"
    );
}

#[test]
fn distinct_values_are_sorted_and_deduplicated() {
    let v = [Some("b"), None, Some("a"), Some("b")];
    assert_eq!(distinct(v.into_iter()).as_deref(), Some("a, b"));
    assert_eq!(distinct([None, None].into_iter()), None);
}

/// A table mixing points from two sessions showed only the newest point's date and commit,
/// as if the whole table came from that run.
#[test]
fn the_event_overhead_shown_is_per_launch_and_spans_the_runs() {
    // SYNTHETIC: events 2.82 µs, ncu 1.48 µs (offset 1.34 µs).
    let cal = EventOffset {
        commit: None,
        date: "2026-11-24T01:55:46Z".into(),
        gpu: String::new(),
        ncu_version: String::new(),
        events_ms: 0.00282,
        ncu_ms: 0.00148,
        offset_ms: 0.00134,
        gap_ms: None,
    };
    let with = |empty_kernel_ms: Option<f64>, runs: usize, mode: TimingMode| {
        let mut p = point(21, None);
        p.timing = Some(crate::record::Timing {
            median_ms: 1.0,
            min_ms: 1.0,
            runs_per_sample: runs,
            empty_kernel_ms,
            mode,
            ..Default::default()
        });
        p
    };
    let (one_run, hot, other_run, none) = (
        with(None, 1, TimingMode::Cold),
        with(None, 4, TimingMode::Hot),
        with(Some(0.00455), 1, TimingMode::Cold),
        with(None, 1, TimingMode::Host),
    );
    let range = |ps: &[&Point]| {
        event_offset_range(ps, Some(&cal)).map(|(a, b)| ((a * 100.0).round(), (b * 100.0).round()))
    };
    assert_eq!(
        range(&[&one_run, &hot]),
        Some((134.0, 134.0)),
        "a hot sample's share is per launch"
    );
    assert_eq!(range(&[&one_run, &other_run, &none]), Some((134.0, 307.0)));
    assert_eq!(range(&[&none]), None);
}

#[test]
fn provenance_of_mixed_points_names_every_day_and_commit() {
    let (a, b, c) = (point(19, None), point(21, Some("e46faa4")), point(21, None));
    assert_eq!(date_range(&[&a, &b]), "2026-11-19 – 2026-11-21");
    assert_eq!(date_range(&[&b, &c]), "2026-11-21");
    assert_eq!(date_range(&[]), "");
    assert_eq!(
        commits(&[&a, &b]).as_deref(),
        Some("e46faa4 (some points name none)")
    );
    assert_eq!(commits(&[&b]).as_deref(), Some("e46faa4"));
    assert_eq!(commits(&[&a, &c]), None);
    let d = point(22, Some("0abc123"));
    assert_eq!(commits(&[&b, &d]).as_deref(), Some("0abc123, e46faa4"));
}
