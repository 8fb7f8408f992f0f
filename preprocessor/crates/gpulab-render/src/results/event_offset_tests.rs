//! The event-overhead correction: which timings it changes, by how much, and never the stored one.
//! SYNTHETIC timings and calibrations: nothing here was measured.

use super::*;

fn cal(offset_ms: f64) -> EventOffset {
    EventOffset {
        commit: Some("abc1234".into()),
        date: "2026-11-24T02:00:00Z".into(),
        gpu: "Synthetic GPU X1".into(),
        ncu_version: "Version 2025.3.1.0".into(),
        events_ms: 0.003,
        ncu_ms: 0.003 - offset_ms,
        offset_ms,
        gap_ms: None,
    }
}

fn timing(median_ms: f64, mode: TimingMode) -> Timing {
    Timing {
        median_ms,
        min_ms: median_ms * 0.9,
        max_ms: median_ms * 1.2,
        q1_ms: median_ms * 0.95,
        q3_ms: median_ms * 1.05,
        samples: 10,
        mode,
        ..Timing::default()
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

/// The overhead `cal` subtracts from a verified `t` (`None`: nothing).
fn overhead(t: &Timing, cal: &EventOffset) -> Option<f64> {
    correct(t, Outcome::Ok, Some(cal)).overhead_ms
}

#[test]
fn a_cold_event_timed_point_loses_the_offset_on_every_statistic() {
    let raw = timing(0.010, TimingMode::Cold);
    let s = correct(&raw, Outcome::Ok, Some(&cal(0.001)));
    let t = &s.timing;
    assert!(close(t.median_ms, 0.009), "{}", t.median_ms);
    assert!(close(t.min_ms, 0.009 - 0.001));
    assert!(close(t.q1_ms, 0.0095 - 0.001));
    assert!(close(t.q3_ms, 0.0105 - 0.001));
    assert!(close(t.max_ms, 0.012 - 0.001));
    assert_eq!(s.overhead_ms, Some(0.001));
    assert_eq!(t.samples, raw.samples);
}

#[test]
fn a_hot_batch_of_r_runs_loses_the_offset_divided_by_r() {
    let mut t = timing(0.010, TimingMode::Hot);
    t.runs_per_sample = 4;
    let s = correct(&t, Outcome::Ok, Some(&cal(0.001)));
    assert!(close(s.timing.median_ms, 0.010 - 0.00025));
    assert_eq!(s.overhead_ms, Some(0.00025));
}

#[test]
fn cpu_baselines_failed_points_and_uncalibrated_devices_are_shown_as_stored() {
    let c = cal(0.001);
    for (t, outcome, cal) in [
        (timing(5.0, TimingMode::Host), Outcome::Ok, Some(&c)),
        (timing(0.010, TimingMode::Cold), Outcome::Failed, Some(&c)),
        (timing(0.010, TimingMode::Cold), Outcome::Ok, None),
    ] {
        let s = correct(&t, outcome, cal);
        assert_eq!((s.timing, s.overhead_ms), (t, None));
    }
}

/// The point itself keeps its raw times however often it is shown.
#[test]
fn showing_a_point_leaves_its_stored_timing_alone() {
    let mut p = Point::new("v", &Default::default(), "k", None);
    p.timing = Some(timing(0.010, TimingMode::Cold));
    let before = p.clone();
    let c = cal(0.001);
    assert!(close(metric(&p, Some(&c), "time_ms").unwrap(), 0.009));
    assert!(close(metric(&p, Some(&c), "time_ms").unwrap(), 0.009));
    assert!(close(metric(&p, Some(&c), "time_ms.min").unwrap(), 0.008));
    assert!(close(metric(&p, None, "time_ms").unwrap(), 0.010));
    assert_eq!(p, before);
    p.outcome = Outcome::Failed;
    assert_eq!(metric(&p, Some(&c), "time_ms"), None);
}

#[test]
fn a_point_the_offset_would_take_to_zero_is_left_alone() {
    assert_eq!(
        overhead(&timing(0.0011, TimingMode::Cold), &cal(0.001)),
        None
    );
    let mut fastest = timing(0.010, TimingMode::Cold);
    fastest.min_ms = 0.0009;
    assert_eq!(overhead(&fastest, &cal(0.001)), None);
}

#[test]
fn an_insane_calibration_changes_nothing() {
    let t = timing(0.010, TimingMode::Cold);
    let mut bad = cal(0.001);
    bad.offset_ms = f64::NAN;
    assert_eq!(overhead(&t, &bad), None);
    let mut bigger = cal(0.001);
    bigger.offset_ms = 0.004; // more than the empty kernel's own event time
    assert_eq!(overhead(&t, &bigger), None);
}

#[test]
fn the_script_s_file_loads_and_a_missing_one_is_none() {
    let dir = tempfile::tempdir().unwrap();
    let data = DataDir::new(dir.path());
    assert_eq!(load(&data, "synthetic-gpu").unwrap(), None);
    let checks = dir.path().join("synthetic-gpu").join("checks");
    std::fs::create_dir_all(&checks).unwrap();
    // The fields scripts/event_offset.py writes (SYNTHETIC values), extra ones ignored.
    std::fs::write(
        checks.join("event_offset.json"),
        r#"{"schema": 1, "tool": "scripts/event_offset.py", "commit": "abc1234",
            "date": "2026-11-24T02:00:00Z", "gpu": "Synthetic GPU X1", "slug": "synthetic-gpu",
            "kernel": "gpulab_null", "ncu_version": "Version 2025.3.1.0",
            "metric": "gpu__time_duration.sum", "clock_control": "none", "cache_control": "all",
            "events_ms": 0.003, "events": {}, "ncu_ms": 0.0022, "ncu_runs_ms": [0.0022],
            "offset_ms": 0.0008, "gap_ms": 0.0004}"#,
    )
    .unwrap();
    let c = load(&data, "synthetic-gpu").unwrap().unwrap();
    assert!(close(c.offset_ms, 0.0008));
    assert_eq!(c.gap_ms, Some(0.0004));
    assert_eq!(c.commit.as_deref(), Some("abc1234"));
}

/// The H200 of the two-GPU machine timed the empty kernel at 4.54 µs by events where the
/// calibration's host had 2.82 µs: a point whose worker timed the empty kernel loses its own
/// host's overhead (its events less the device's ncu duration), others the device's offset.
#[test]
fn a_point_whose_run_timed_the_empty_kernel_loses_its_own_hosts_overhead() {
    let c = cal(0.001); // events 3.0 µs, ncu 2.0 µs
    let mut own = timing(0.010, TimingMode::Cold);
    own.empty_kernel_ms = Some(0.0045);
    let mut hot = timing(0.010, TimingMode::Hot);
    hot.runs_per_sample = 5;
    hot.empty_kernel_ms = Some(0.0045);
    assert!(close(overhead(&own, &c).unwrap(), 0.0025));
    assert!(close(
        correct(&own, Outcome::Ok, Some(&c)).timing.median_ms,
        0.0075
    ));
    let plain = timing(0.010, TimingMode::Cold);
    assert!(
        close(overhead(&plain, &c).unwrap(), 0.001),
        "no empty kernel: the device's offset"
    );
    assert!(
        close(overhead(&hot, &c).unwrap(), 0.0025 / 5.0),
        "a hot sample's share"
    );
}

#[test]
fn an_empty_kernel_no_longer_than_ncu_says_or_implausibly_long_falls_back_to_the_devices_offset() {
    let c = cal(0.001);
    // events 3.0 µs, ncu 2.0 µs: at most 9.0 µs is a host's overhead, more a disturbed run.
    assert!(close(per_launch(&c, Some(0.009)), 0.007));
    for bad in [0.002, 0.0015, 0.0095, f64::NAN, f64::INFINITY] {
        assert!(close(per_launch(&c, Some(bad)), 0.001), "{bad}");
        assert_eq!(own_empty_kernel(&c, Some(bad)), None);
    }
    assert!(close(per_launch(&c, None), 0.001));
}
