//! Tests of `schema`.

use super::*;

/// The enum keeps the recordings' on-disk strings, and an unknown mode is an error rather than
/// a timing of unknown meaning.
#[test]
fn timing_mode_is_stored_as_its_lowercase_name() {
    for mode in [TimingMode::Cold, TimingMode::Hot, TimingMode::Host] {
        let json = serde_json::to_string(&mode).unwrap();
        assert_eq!(json, format!("\"{}\"", mode.as_str()));
        assert_eq!(serde_json::from_str::<TimingMode>(&json).unwrap(), mode);
    }
    assert!(serde_json::from_str::<TimingMode>("\"warm\"").is_err());
}

/// A recording's `"clock": "events"` (what timed the samples, when the CUPTI kernel clock was
/// an option) still reads; a GPU timing without `method` is of method 1, not the current one.
#[test]
fn an_old_timing_reads_and_its_method_is_the_stored_one() {
    let old = |extra: &str| -> Point {
        serde_json::from_str(&format!(
            r#"{{"variant":"v","params":{{}},"key":"k","recorded_at":"2026-11-23T00:00:00Z",
               "tool_version":"0.1.0","outcome":"ok","timing":{{"median_ms":1,"min_ms":1,
               "max_ms":1,"q1_ms":1,"q3_ms":1,"noise":0,"samples":3,"mode":"cold"{extra}}}}}"#
        ))
        .unwrap()
    };
    assert!(!old(r#","clock":"events""#).measured_the_current_way());
    assert!(old(r#","clock":"events","method":2"#).measured_the_current_way());
    assert!(!old(r#","method":1"#).measured_the_current_way());
}
