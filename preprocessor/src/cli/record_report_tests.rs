//! Tests of `record_report`.

use super::*;

#[test]
fn implausible_points_are_named_and_the_rest_counted() {
    let counts = BTreeMap::from([
        (Concern::AbovePeak, 1),
        (Concern::Noisy, 3),
        (Concern::SampleCap, 2),
    ]);
    let named = vec![
        "  copy copy_vec4 N=1: bandwidth 3628 GB/s is 108 % of the 3352 GB/s theoretical peak"
            .to_string(),
    ];
    let out = lines(&counts, &named);
    assert_eq!(out.len(), 3);
    assert!(
        out[0].starts_with("warning: 1 point(s) report a rate above the device's theoretical peak")
    );
    assert!(out[1].contains("108 %"));
    assert_eq!(
        out[2],
        "quality of the points recorded: 3 ~ median less certain than the noise target (95 % \
         interval), 2 c stopped at the sample cap"
    );
    assert!(lines(&BTreeMap::new(), &[]).is_empty());
}

/// The two-GPU H200 machine's events timed the empty kernel at 4.54 µs, the calibration's
/// host at 2.82 µs: `record` there said nothing of it.
#[test]
fn a_host_whose_events_add_more_than_the_calibrations_is_named() {
    let cal = event_offset::EventOffset {
        commit: None,
        date: "2026-11-24T01:55:46Z".into(),
        gpu: "Synthetic GPU X1".into(),
        ncu_version: "Version 2025.3.1.0".into(),
        events_ms: 0.00282,
        ncu_ms: 0.00147,
        offset_ms: 0.00135,
        gap_ms: None,
    };
    let note = host_note("synthetic-gpu", &mut [0.00454, 0.00450, 0.00460], &cal).unwrap();
    assert!(
        note.starts_with(
            "note: on this host the events time the empty kernel at 4.54 µs, against 2.82 µs"
        ),
        "{note}"
    );
    assert!(note.contains("about 1.72 µs longer here"), "{note}");
    assert!(note.contains("(3.07 µs per launch)"), "{note}");
    assert_eq!(
        host_note("synthetic-gpu", &mut [0.0029], &cal),
        None,
        "within 0.25 µs"
    );
    assert_eq!(
        host_note("synthetic-gpu", &mut [], &cal),
        None,
        "no point timed one"
    );
    let faster = host_note("synthetic-gpu", &mut [0.0024], &cal).unwrap();
    assert!(faster.contains("shorter here"), "{faster}");
}

#[test]
fn an_uncalibrated_gpu_is_named_after_a_recording_and_a_calibrated_one_is_not() {
    let note = uncalibrated_note("synthetic-gpu", 3, false).unwrap();
    assert!(
        note.starts_with("note: synthetic-gpu has no event-overhead calibration"),
        "{note}"
    );
    assert!(note.contains("scripts/event_offset.py"));
    assert_eq!(uncalibrated_note("synthetic-gpu", 3, true), None);
    assert_eq!(uncalibrated_note("synthetic-gpu", 0, false), None);
}
