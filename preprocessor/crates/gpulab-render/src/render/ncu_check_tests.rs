//! Tests of `ncu_check`.

use super::*;

/// A SYNTHETIC point of the H100's check: ncu's `ncu_ms` beside the recording's raw `raw_ms`,
/// with `more` fields (JSON).
fn point(ncu_ms: f64, raw_ms: f64, more: &str) -> String {
    format!(
        r#"{{"experiment": "sgemm", "variant": "naive", "params": {{"N": 2048}}, "mode": "cold",
           "launches": 1, "ncu_ms": {ncu_ms}, "engine_raw_ms": {raw_ms}{more}}}"#
    )
}

/// The same call's timing of a point (JSON), to append to a point's fields.
fn same(raw_ms: f64, more: &str) -> String {
    format!(r#", "same_run": {{"outcome": "ok", "engine_raw_ms": {raw_ms}{more}}}"#)
}

/// A calibration (JSON): the events' `offset_us` over ncu's `ncu_us` on the empty kernel.
fn calibration(offset_us: f64, ncu_us: f64, more: &str) -> String {
    format!(
        r#"{{"offset_ms": {}, "ncu_ms": {}, "events_ms": {}, "date": "2026-11-24T01:55:46Z",
           "commit": "abc1234"{more}}}"#,
        offset_us * 1e-3,
        ncu_us * 1e-3,
        (offset_us + ncu_us) * 1e-3
    )
}

/// A SYNTHETIC check of `points` on the H100's name, with `event_offset` (JSON or `null`) and,
/// when `same_run`, the engine's run in the same call.
fn check(points: &[String], event_offset: &str, same_run: bool) -> NcuCheckFile {
    let run = if same_run {
        r#"{"command": "mdbook-gpulab record <scratch copy> --experiment sgemm", "points_recorded": 2,
            "seconds": 35.0}"#
    } else {
        "null"
    };
    serde_json::from_str(&format!(
        r#"{{"commit": "abc1234", "date": "2026-11-23T18:00:00Z", "ncu_version": "Version 2025.3.0.0",
           "gpu": "NVIDIA H100 80GB HBM3", "clock_control": "none", "cache_control": {{"cold": "all"}},
           "runs_per_point": 7, "targets": {{"long": 0.02, "short": 0.05, "short_below_us": 10.0}},
           "seconds": 61.0, "event_offset": {event_offset}, "same_run": {run},
           "points": [{}]}}"#,
        points.join(", ")
    ))
    .unwrap()
}

/// The block of one device, the H100, with its check `f`.
fn h100_html(f: NcuCheckFile) -> String {
    ncu_check_html(&[DeviceCheck {
        slug: "nvidia-h100".into(),
        file: Some(f),
        unreadable: None,
    }])
}

#[test]
fn a_check_renders_every_point_with_its_verdict_and_provenance() {
    let f = check(&[point(3.0, 3.03, ""), point(3.0, 3.18, "")], "null", false);
    let html = ncu_check_html(&[
        DeviceCheck {
            slug: "nvidia-h100".into(),
            file: Some(f),
            unreadable: None,
        },
        DeviceCheck {
            slug: "nvidia-h200".into(),
            file: None,
            unreadable: None,
        },
        DeviceCheck {
            slug: "nvidia-a100".into(),
            file: None,
            unreadable: Some("data/nvidia-a100/checks/ncu.json cannot be parsed: EOF".into()),
        },
    ]);
    assert!(html.contains("1 of 2 points within target"), "{html}");
    assert!(html.contains("largest deviation 6.0 %"), "{html}");
    assert!(html.contains("<code>sgemm/naive</code> N=2048"), "{html}");
    assert!(
        html.contains("<td title=\"ncu --cache-control all\">cold</td>"),
        "{html}"
    );
    assert!(html.contains("<td>1.010</td>") && html.contains("<strong>outside</strong>"));
    assert!(html.contains("commit abc1234") && html.contains("--clock-control none"));
    assert!(
        html.contains("kernels: compiled by the script with CuPy;"),
        "{html}"
    );
    assert!(html.contains(
        "<strong>nvidia-h200</strong>: the Nsight Compute check has not run yet on this GPU"
    ));
    assert!(html.contains(
        "<strong>nvidia-a100</strong>: its Nsight Compute check cannot be read \
         (data/nvidia-a100/checks/ncu.json cannot be parsed: EOF)."
    ));
    assert!(ncu_check_html(&[]).contains("has not run yet"));
}

#[test]
fn a_calibrated_check_shows_the_recorded_and_the_corrected_ratio_and_both_counts() {
    // 11.0 µs as recorded (10 % above ncu's 10 µs), 10.04 µs less the events' 0.96 µs.
    let f = check(
        &[point(0.010, 0.011, "")],
        &calibration(0.96, 2.04, ""),
        false,
    );
    let html = h100_html(f);
    assert!(
        html.contains(
            "1 of 1 points within target (0 before subtracting the events' 0.960 µs, calibrated 2026-11-24)"
        ),
        "{html}"
    );
    assert!(
        html.contains("<th>engine as recorded (ms)</th><th>÷ ncu</th>"),
        "{html}"
    );
    assert!(
        html.contains("<td>0.0110</td><td>1.100</td><td>0.0100</td><td>1.004</td>"),
        "{html}"
    );
}

/// Regression (session 14's "not done"): once recordings carry their run's empty kernel, the
/// headline named only the calibrated offset, though the check subtracted each run's own.
#[test]
fn a_check_of_per_run_overheads_names_them_with_their_range_and_the_fallback() {
    let cal = calibration(1.34, 1.47, "");
    let own = point(3.0, 3.0, r#", "empty_kernel_ms": 0.0028"#);
    let other = point(3.0, 3.0, r#", "empty_kernel_ms": 0.0030"#);
    let calibrated = point(3.0, 3.0, "");
    let html = h100_html(check(
        &[own.clone(), other, calibrated.clone()],
        &cal,
        false,
    ));
    assert!(
        html.contains(
            "before subtracting the events' overhead of each point's own run (its empty kernel \
             less ncu's 1.470 µs: 1.330–1.530 µs), or the events' 1.340 µs, calibrated \
             2026-11-24, where a run timed none (or an implausible one))"
        ),
        "{html}"
    );
    // Every timing with its own run's empty kernel, or with nothing subtracted (its fastest
    // sample would not stay positive): no fallback.
    let nothing = point(3.0, 3.0, r#", "min_ms": 0.001"#);
    let html = h100_html(check(&[own.clone(), nothing], &cal, false));
    assert!(
        html.contains("(its empty kernel less ncu's 1.470 µs: 1.330 µs))"),
        "{html}"
    );
    // The same-call run's own values count too (the headline of a check with the engine in
    // the same call), beside the recordings'.
    let own_and_same = point(
        3.0,
        3.0,
        &format!(
            r#", "empty_kernel_ms": 0.0028{}"#,
            same(3.004, r#", "empty_kernel_ms": 0.0045"#)
        ),
    );
    let html = h100_html(check(&[own_and_same], &cal, true));
    assert!(
        html.contains(
            "both less the events' overhead of each point's own run (its empty kernel less \
             ncu's 1.470 µs: 1.330–3.030 µs)."
        ),
        "{html}"
    );
    // No point with its own run's empty kernel: the calibration alone, as before.
    let html = h100_html(check(&[calibrated], &cal, false));
    assert!(
        html.contains("before subtracting the events' 1.340 µs, calibrated 2026-11-24)"),
        "{html}"
    );
}

/// The misses of short kernels looked like noise; the spread of the events' overhead from
/// kernel to kernel, which a correction of one value per run cannot remove, is now stated.
#[test]
fn the_spread_of_the_event_overhead_over_short_kernels_is_stated() {
    // The events add 1.2 µs to ncu's 1.8 µs; a run's own empty kernel of 3.1 µs, 1.3 µs.
    let cal = calibration(1.2, 1.8, "");
    // A short single-launch point whose same-call raw median exceeds ncu's 10 µs by `excess_us`.
    let short = |excess_us: f64, own: &str, launches: usize| {
        point(0.010, 0.010, &same(0.010 + excess_us * 1e-3, own)).replacen(
            r#""launches": 1"#,
            &format!(r#""launches": {launches}"#),
            1,
        )
    };
    // A long point (3 ms) and a point of two launches are left out of the spread.
    let long = short(9.0, "", 1).replace(r#""ncu_ms": 0.01"#, r#""ncu_ms": 3.0"#);
    let own = r#", "empty_kernel_ms": 0.0031"#;
    let points = vec![
        short(0.8, "", 1),
        short(1.5, own, 1),
        short(1.0, "", 1),
        short(5.0, "", 2),
        long,
    ];
    let html = h100_html(check(&points, &cal, true));
    assert!(
        html.contains(
            "over the 3 single-launch kernels under 25 µs, the engine's median as measured in \
             the check's own call exceeds ncu's time by 0.80–1.50 µs (the correction subtracts \
             one value per run, 1.20–1.30 µs). Half that spread is 3.5 % of a 10 µs kernel, \
             against its ±2 % target."
        ),
        "{html}"
    );
    // Two short kernels are too few to speak of a spread.
    let html = h100_html(check(&points[1..], &cal, true));
    assert!(!html.contains("is not one number"), "{html}");
}

#[test]
fn a_check_with_the_engine_in_the_same_call_gives_its_verdict_on_that_run() {
    // The events add 0.9 µs to ncu's 2.1 µs; a gap of 0.7 µs between two launches.
    let cal = calibration(0.9, 2.1, r#", "gap_ms": 0.0007"#);
    // Outside against its recording (made elsewhere), within against the same call (whose
    // run's empty kernel, 3.9 µs, adds 1.8 µs).
    let moved = point(3.0, 3.108, &same(3.0318, r#", "empty_kernel_ms": 0.0039"#));
    // Outside against the script's launches, within against ncu on the engine's own launches.
    let launch = point(
        3.0,
        3.0009,
        &same(3.1109, r#", "ncu_engine_launches_ms": 3.08"#),
    );
    // Within against its recording, but the engine's run failed: outside.
    let failed = point(
        3.0,
        3.0016,
        r#", "flushed_by_script": true, "same_run": {"outcome": "failed",
           "failure": {"kind": "mismatch", "message": "at 3"}}"#,
    )
    .replace(r#""launches": 1"#, r#""launches": 2"#);
    let html = h100_html(check(&[moved, failed, launch], &cal, true));
    assert!(
        html.contains(
            "1 of 3 points within target against the engine timed in the same call on the same GPU \
             (1 failed in the engine's run)"
        ),
        "{html}"
    );
    assert!(html.contains("largest deviation 3.7 %"), "{html}");
    assert!(
        html.contains("against the handbook's recordings, made in earlier runs (often on another machine): 2 of 3; both less"),
        "{html}"
    );
    assert!(
        html.contains("<td class=\"gpulab-key\">within</td><td title=\"ncu --cache-control all\">cold</td><td>1</td>")
            && html.contains("<td>1.036</td><td title=\"as measured 3.0318 ms, less 1.800 µs of event overhead\">3.0300</td><td>1.010</td><td>±2 %</td></tr>"),
        "{html}"
    );
    assert!(
        html.contains("<td colspan=\"2\" title=\"mismatch: at 3\">failed</td><td>±2 %</td></tr>"),
        "{html}"
    );
    assert!(
        html.contains("<td title=\"as measured 3.0016 ms, less 0.900 µs of event overhead and 0.700 µs of gaps between its launches, which ncu's sum does not count\">3.0000</td>"),
        "{html}"
    );
    assert!(
        html.contains("<td class=\"gpulab-key\"><strong>outside</strong><br><small>ncu on the engine's own launches: 3.0800 ms; engine ÷ that 1.010, within: on the engine's own launches (a run just after) ncu agrees with it</small></td>"),
        "{html}"
    );
    assert!(
        html.contains(
            "Of the 2 outside, 1 is within target against ncu on the engine's own launches"
        ),
        "{html}"
    );
    assert!(
        html.contains("the script flushes L2 once before each run of the launches, as the engine does before each sample\">cold, flushed once</td>"),
        "{html}"
    );
    assert!(
        html.contains("the engine's run: <code>mdbook-gpulab record &lt;scratch copy&gt; --experiment sgemm</code>, 2 point(s) in 35 s"),
        "{html}"
    );
}
