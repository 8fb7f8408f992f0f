//! Tests of `ncu_check`.

use super::*;

/// A SYNTHETIC check of `points` (JSON objects), with `calibration` (JSON) or none.
fn file(points: &str, calibration: &str) -> NcuCheckFile {
    serde_json::from_str(&format!(
        r#"{{"schema": 1, "commit": "abc", "date": "2026-11-23T18:00:00Z",
           "ncu_version": "Version 2025.3", "gpu": "GPU A", "clock_control": "none",
           "cache_control": {{"cold": "all", "hot": "none"}}, "runs_per_point": 7,
           "targets": {{"long": 0.02, "short": 0.05, "short_below_us": 10}}, "seconds": 42.0,
           "event_offset": {calibration}, "points": [{points}]}}"#
    ))
    .unwrap()
}

/// A cold point of `launches` whose ncu time is 10 µs, with `more` fields.
fn point(launches: usize, more: &str) -> String {
    format!(
        r#"{{"experiment": "copy", "variant": "v", "params": {{"N": 1}}, "mode": "cold",
           "launches": {launches}, "ncu_ms": 0.010, "engine_raw_ms": 0.010{more}}}"#
    )
}

/// Offset 1 µs, ncu's empty kernel 2 µs, the events' 3 µs; a gap of 0.6 µs between launches.
const CAL: &str = r#"{"offset_ms": 0.001, "ncu_ms": 0.002, "events_ms": 0.003,
                      "gap_ms": 0.0006, "commit": "abc", "date": "2026-11-24T02:00:00Z"}"#;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

#[test]
fn a_missing_check_is_none_and_a_present_one_loads() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    std::fs::create_dir_all(dir.join("gpu-a/checks")).unwrap();
    std::fs::create_dir_all(dir.join("gpu-b")).unwrap();
    // The verdicts older checks stored beside what they measured are ignored.
    std::fs::write(
        dir.join("gpu-a/checks/ncu.json"),
        r#"{"schema": 1, "commit": "abc", "date": "2026-11-23T18:00:00Z", "ncu_version": "Version 2025.3",
           "gpu": "GPU A", "clock_control": "none", "cache_control": {"cold": "all", "hot": "none"},
           "runs_per_point": 7, "targets": {"long": 0.02, "short": 0.05, "short_below_us": 10},
           "seconds": 42.0, "points": [{"experiment": "copy", "variant": "v", "params": {"N": 1},
           "mode": "cold", "launches": 1, "ncu_ms": 1.0, "engine_raw_ms": 1.01,
           "engine_ms": 0.5, "ratio": 0.5, "target": 0.02, "within": false, "extra": "ignored"}]}"#,
    )
    .unwrap();
    let checks = device_checks(&DataDir::new(dir)).unwrap();
    assert_eq!(checks.len(), 2);
    let rows = checks[0].file.as_ref().unwrap().rows();
    assert!(close(rows[0].recorded.ratio, 1.01) && rows[0].verdict());
    assert!(checks[1].file.is_none());
    std::fs::write(dir.join("gpu-a/checks/ncu.json"), "{").unwrap();
    assert!(matches!(
        load(dir, "gpu-a"),
        Err(StoreError::Unparsable { .. })
    ));
    // A corrupt check spoils its own device only.
    let checks = device_checks(&DataDir::new(dir)).unwrap();
    assert!(checks[0].file.is_none());
    assert!(
        checks[0]
            .unreadable
            .as_deref()
            .is_some_and(|m| m.contains("cannot be parsed")),
        "{checks:?}"
    );
    assert!(checks[1].unreadable.is_none());
}

/// A same-call point that failed, its failure as the recording holds it (an object) or as the
/// script writes it (a line): both load, and the point is outside its target.
#[test]
fn a_failed_same_call_run_is_outside_with_its_failure() {
    for failure in [
        r#"{"kind": "mismatch", "message": "element 3"}"#,
        r#""mismatch: element 3""#,
    ] {
        let f = file(
            &point(
                1,
                &format!(r#", "same_run": {{"outcome": "failed", "failure": {failure}}}"#),
            ),
            "null",
        );
        let same = f.points[0].same_run.as_ref().unwrap();
        assert_eq!(same.failure_text(), "mismatch: element 3");
        assert_eq!(same.time, None);
        let row = &f.rows()[0];
        assert!(row.recorded.within && !row.verdict());
        assert_eq!(row.verdict_ratio(), None);
    }
}

/// The check subtracts what the book does (`event_offset::correct`): a point whose run timed
/// the empty kernel loses that run's time less the calibration's ncu duration, others (and a
/// run's implausible time, over three times the calibration's) the calibrated offset; and it
/// names the empty kernel only where it used it.
#[test]
fn the_check_subtracts_a_runs_own_empty_kernel_as_the_book_does() {
    let row = |more: &str, cal: &str| file(&point(1, more), cal).rows()[0].recorded.clone();
    let cases = [
        (r#", "empty_kernel_ms": 0.0045"#, 0.0025, Some(0.0045)),
        (
            r#", "empty_kernel_ms": 0.0045, "runs_per_sample": 5"#,
            0.0005,
            Some(0.0045),
        ),
        ("", 0.001, None),
        (r#", "empty_kernel_ms": 0.0095"#, 0.001, None),
        (r#", "empty_kernel_ms": 0.0015"#, 0.001, None),
        // Older checks named the empty kernel only where they used it.
        (r#", "own_empty_kernel_ms": 0.0045"#, 0.0025, Some(0.0045)),
        // The fastest sample would not stay positive: nothing subtracted, none named.
        (r#", "empty_kernel_ms": 0.0045, "min_ms": 0.002"#, 0.0, None),
    ];
    for (more, overhead, named) in cases {
        let v = row(more, CAL);
        assert!(close(v.overhead_ms, overhead), "{more}: {v:?}");
        assert_eq!(v.empty_kernel_ms, named, "{more}");
        assert!(
            close(v.engine_ms, 0.010 - overhead - v.gaps_ms),
            "{more}: {v:?}"
        );
        assert!(close(v.ratio_raw, 1.0) && v.within_raw);
    }
    // An insane calibration (offset larger than the empty kernel's own time), or none: nothing.
    let insane = CAL.replace("\"offset_ms\": 0.001", "\"offset_ms\": 0.004");
    for cal in [insane.as_str(), "null"] {
        let v = row(r#", "empty_kernel_ms": 0.0045"#, cal);
        assert_eq!((v.overhead_ms, v.empty_kernel_ms), (0.0, None), "{cal}");
    }
}

/// The gaps between a point's launches (counted by the engine's events, not by ncu's sum of
/// durations) are subtracted once per launch after a sample's first, per run, and only with a
/// calibrated gap (a negative one counts as none).
#[test]
fn the_check_subtracts_the_calibrated_gap_once_per_extra_launch() {
    let gaps = |launches: usize, more: &str, cal: &str| {
        file(&point(launches, more), cal).rows()[0].recorded.gaps_ms
    };
    assert_eq!(gaps(1, "", CAL), 0.0, "one launch: no gap");
    assert!(close(gaps(3, "", CAL), 0.0012), "three launches: two gaps");
    // Four runs of two launches per sample: seven gaps, 7/4 per run.
    let hot = gaps(2, r#", "runs_per_sample": 4"#, CAL);
    assert!(close(hot, 0.0006 * 7.0 / 4.0), "{hot}");
    let no_gap = CAL.replace("\"gap_ms\": 0.0006,", "");
    let negative = CAL.replace("0.0006", "-0.0001");
    assert_eq!(gaps(3, "", "null"), 0.0);
    assert_eq!(gaps(3, "", &no_gap), 0.0);
    assert_eq!(gaps(3, "", &negative), 0.0);
}

/// Outside against the script's launches, within against ncu on the engine's own launches of it.
#[test]
fn ncu_on_the_engines_own_launches_is_compared_with_the_same_call() {
    let f = file(
        &point(
            1,
            r#", "same_run": {"outcome": "ok", "engine_raw_ms": 0.0110,
                "ncu_engine_launches_ms": 0.0108}"#,
        ),
        "null",
    );
    let row = &f.rows()[0];
    assert!(row.recorded.within && !row.verdict());
    let (ratio, within) = row.engine_launches.unwrap();
    assert!(close(ratio, 0.0110 / 0.0108) && within);
    assert!(close(row.target, 0.02), "10 µs or more: the long target");
}
