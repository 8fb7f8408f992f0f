//! Tests of `validate`.

use super::*;

const SCHEMA: DeviceSchema = DeviceSchema {
    schemas: &[1],
    keys: "schema date value",
    date: "/date",
};

/// Issue 36: `schema = 99`, an unknown key and `date = "yesterday"` passed `check` and
/// `build --strict` while `merge` refused the file; one check now serves all three.
#[test]
fn a_device_file_of_another_schema_unknown_keys_or_no_real_date_is_refused() {
    let good = r#"{"schema": 1, "date": "2026-01-02T03:04:05Z", "value": 1}"#;
    assert!(SCHEMA.check(good).is_ok());
    for (text, why) in [
        (
            r#"{"schema": 99, "date": "2026-01-02T03:04:05Z"}"#,
            "schema version 99",
        ),
        (r#"{"date": "2026-01-02T03:04:05Z"}"#, "no `schema`"),
        (
            r#"{"schema": 1, "valeu": 2}"#,
            "unknown key `valeu`; did you mean `value`?",
        ),
        (
            r#"{"schema": 1, "date": "yesterday"}"#,
            "not an RFC 3339 time",
        ),
        (r#"[1]"#, "not a JSON object"),
    ] {
        let err = SCHEMA.check(text).unwrap_err();
        assert!(err.contains(why), "{text}: {err}");
    }
    assert_eq!(SCHEMA.date(&serde_json::json!({"schema": 1})), Ok(None));
}

/// Issue 36: a 200 MB string in a shard became a 610 MB site.
#[test]
fn a_string_past_the_limit_is_refused_with_its_line() {
    let long = format!(
        "{{\n\"a\": \"x\\\"\",\n\"b\": \"{}\"}}",
        "y".repeat(MAX_STRING_BYTES)
    );
    let why = oversized_string(&long).unwrap();
    assert!(why.starts_with("line 3: a string of"), "{why}");
    assert_eq!(oversized_string("{\"a\": \"\\\\\", \"b\": 1}"), None);
}
