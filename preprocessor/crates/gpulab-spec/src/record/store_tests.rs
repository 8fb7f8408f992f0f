//! Tests of `store`.

use super::*;
use crate::value::ParamValue;

/// A SYNTHETIC recording (nothing here was measured): points `(variant, N, seconds since epoch)`.
fn recording(points: &[(&str, i64, i64)]) -> Recording {
    let device = serde_json::from_value(serde_json::json!({
        "slug": "synthetic-gpu", "name": "Synthetic", "compute_capability": [9, 0],
        "sm_count": 1, "clock_mhz": 1, "l2_bytes": 1, "memory_bytes": 1,
        "cuda_version": "13.0", "nvrtc_version": "13.0", "fp32_peak_gflops": 1.0
    }))
    .unwrap();
    Recording {
        schema: SCHEMA_VERSION,
        experiment: "e".into(),
        device,
        points: points
            .iter()
            .map(|(v, n, at)| {
                let params = [("N".to_string(), ParamValue::Int(*n))].into();
                let mut p = Point::new(v, &params, &format!("{at}"), None);
                p.recorded_at = chrono::DateTime::from_timestamp(*at, 0).unwrap();
                p
            })
            .collect(),
    }
}

fn keys(data: &DataDir) -> Vec<String> {
    let rec = data.load("synthetic-gpu", "e").unwrap().unwrap();
    rec.points
        .iter()
        .map(|p| format!("{}{}:{}", p.variant, p.params["N"], p.key))
        .collect()
}

/// Merges `others` into `data` and writes the result; returns the points taken.
fn merge_and_write(data: &DataDir, lock: &DataLock, others: Vec<Recording>) -> usize {
    let files = data.merge_newer(lock, others).unwrap();
    write_all_atomic(files.iter().map(|(p, t, _)| (p.as_path(), t.as_str()))).unwrap();
    files.iter().map(|(_, _, taken)| taken).sum()
}

#[test]
fn merge_newer_takes_missing_and_newer_points_only() {
    let tmp = tempfile::tempdir().unwrap();
    let data = DataDir::new(tmp.path());
    let lock = data.lock().unwrap();
    data.merge_and_save(&lock, recording(&[("a", 1, 100), ("a", 2, 300)]))
        .unwrap();
    // Shard copy: a1 re-recorded later, a2 older than ours, b1 new.
    let shard = recording(&[("a", 1, 200), ("a", 2, 250), ("b", 1, 50)]);
    assert_eq!(merge_and_write(&data, &lock, vec![shard]), 2);
    assert_eq!(keys(&data), ["a1:200", "a2:300", "b1:50"]);
    // The same shard again changes nothing and writes nothing.
    let again = recording(&[("a", 1, 200), ("b", 1, 50)]);
    assert!(data.merge_newer(&lock, vec![again]).unwrap().is_empty());
    // Two shards of one experiment make one file, the newer point winning.
    let (one, two) = (
        recording(&[("c", 1, 7)]),
        recording(&[("c", 1, 9), ("d", 1, 1)]),
    );
    let files = data.merge_newer(&lock, vec![one, two]).unwrap();
    assert_eq!(files.len(), 1);
    assert_eq!(files[0].2, 3);
    write_all_atomic([(files[0].0.as_path(), files[0].1.as_str())]).unwrap();
    assert_eq!(keys(&data), ["a1:200", "a2:300", "b1:50", "c1:9", "d1:1"]);
}

#[test]
fn merge_and_save_always_takes_the_fresh_point() {
    let tmp = tempfile::tempdir().unwrap();
    let data = DataDir::new(tmp.path());
    let lock = data.lock().unwrap();
    data.merge_and_save(&lock, recording(&[("a", 1, 300)]))
        .unwrap();
    data.merge_and_save(&lock, recording(&[("a", 1, 100)]))
        .unwrap();
    assert_eq!(keys(&data), ["a1:100"]);
}

#[test]
fn a_retimed_point_keeps_counters_of_its_own_key_only() {
    let dir = tempfile::tempdir().unwrap();
    let data = DataDir::new(dir.path());
    let lock = data.lock().unwrap();
    let mut profiled = recording(&[("v", 1, 10), ("v", 2, 10)]);
    for p in &mut profiled.points {
        p.counters = Some(crate::record::Counters {
            key: p.key.clone(),
            recorded_at: p.recorded_at,
            commit: None,
            profiler: "ncu".into(),
            settings: String::new(),
            launches: 1,
            values: std::collections::BTreeMap::from([(
                "smsp__inst_executed.sum".to_string(),
                7.0,
            )]),
        });
    }
    data.merge_and_save(&lock, profiled).unwrap();
    // Re-timed: N=1 at the same key, N=2 at a new key (other code).
    let mut fresh = recording(&[("v", 1, 20), ("v", 2, 20)]);
    fresh.points[0].key = "10".into();
    fresh.points[1].key = "changed".into();
    data.merge_and_save(&lock, fresh).unwrap();
    let rec = data.load("synthetic-gpu", "e").unwrap().unwrap();
    assert_eq!(rec.points[0].recorded_at.timestamp(), 20, "the new timing");
    assert!(rec.points[0].counters.is_some(), "same key: kept");
    assert!(rec.points[1].counters.is_none(), "other code: dropped");
}

/// Recordings written through a temporary file came out 0600 (tempfile's mode): a new one is
/// 0644, a replaced one keeps its mode.
#[test]
fn a_written_recording_is_readable_by_all_or_keeps_its_mode() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("r.json");
    write_atomic(&path, "{}").unwrap();
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&path), 0o644);
    fs::set_permissions(&path, fs::Permissions::from_mode(0o664)).unwrap();
    write_atomic(&path, "{ }").unwrap();
    assert_eq!(mode(&path), 0o664);
}

/// A hand-edited median of -1 ms rendered as "−1.00" and made a claim hold; a duplicate point
/// showed whichever came first. Such a file is now corrupt, with the point named.
#[test]
fn impossible_timings_and_duplicate_points_make_a_recording_corrupt() {
    let path = Path::new("data/synthetic-gpu/e.json");
    let good = recording(&[("a", 1, 100), ("a", 2, 100)]);
    let text = |r: &Recording| serde_json::to_string(r).unwrap();
    assert!(parse_recording(path, &text(&good)).is_ok());
    let mut negative = good.clone();
    negative.points[0].timing = Some(crate::record::Timing {
        median_ms: -1.0,
        min_ms: -1.0,
        max_ms: -1.0,
        q1_ms: -1.0,
        q3_ms: -1.0,
        samples: 1,
        ..Default::default()
    });
    let err = parse_recording(path, &text(&negative))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("point `a`") && err.contains("not positive"),
        "{err}"
    );
    let mut twice = good.clone();
    twice.points[1].params = twice.points[0].params.clone();
    let err = parse_recording(path, &text(&twice))
        .unwrap_err()
        .to_string();
    assert!(err.contains("recorded twice"), "{err}");
}

/// An empty `data/my gpu` made every directive an error box ("not a recording path").
#[test]
fn folders_that_are_no_device_slug_are_not_devices() {
    let tmp = tempfile::tempdir().unwrap();
    for d in ["my gpu", ".hidden", "papers", "nvidia-h100"] {
        fs::create_dir_all(tmp.path().join(d)).unwrap();
    }
    assert_eq!(DataDir::new(tmp.path()).devices().unwrap(), ["nvidia-h100"]);
}

/// `merge` wrote a new recording into a device folder that is a symlink to elsewhere.
#[test]
fn a_device_folder_linked_outside_data_is_refused_for_a_new_recording() {
    let tmp = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let data = DataDir::new(tmp.path());
    fs::create_dir_all(tmp.path()).unwrap();
    std::os::unix::fs::symlink(outside.path(), tmp.path().join("linked-gpu")).unwrap();
    let err = data
        .confined_path("linked-gpu", "e")
        .unwrap_err()
        .to_string();
    assert!(err.contains("outside data/"), "{err}");
    assert!(data.confined_path("fresh-gpu", "e").is_ok());
}

/// A FIFO where a recording belongs blocked `check` and `build` forever; a symlink loop read as
/// "no recording". Both are now errors naming the file.
#[test]
fn a_fifo_or_a_symlink_loop_in_place_of_a_recording_is_an_error_not_a_hang() {
    let tmp = tempfile::tempdir().unwrap();
    let data = DataDir::new(tmp.path());
    let path = data.recording_path("synthetic-gpu", "fifo");
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path; mkfifo only creates the node.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    let err = data.load("synthetic-gpu", "fifo").unwrap_err().to_string();
    assert!(err.contains("not a regular file"), "{err}");
    let looped = data.recording_path("synthetic-gpu", "looped");
    std::os::unix::fs::symlink(&looped, &looped).unwrap();
    assert!(data.load("synthetic-gpu", "looped").is_err());
}

#[test]
fn points_are_sorted_by_variant_then_by_numeric_params() {
    let tmp = tempfile::tempdir().unwrap();
    let data = DataDir::new(tmp.path());
    let lock = data.lock().unwrap();
    let rec = recording(&[("b", 1, 1), ("a", 10, 1), ("a", 2, 1)]);
    data.merge_and_save(&lock, rec).unwrap();
    assert_eq!(keys(&data), ["a2:1", "a10:1", "b1:1"], "10 sorts after 2");
}

#[test]
fn a_recording_of_another_schema_is_refused_by_name() {
    let tmp = tempfile::tempdir().unwrap();
    let data = DataDir::new(tmp.path());
    let path = data.recording_path("synthetic-gpu", "e");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, r#"{"schema": 999, "points": []}"#).unwrap();
    let e = data.load("synthetic-gpu", "e").unwrap_err();
    assert!(
        matches!(e, StoreError::WrongSchema { found: 999, .. }),
        "{e}"
    );
    assert!(e.to_string().contains("re-record it"), "{e}");
    std::fs::write(&path, r#"{"points": []}"#).unwrap();
    let e = data.load("synthetic-gpu", "e").unwrap_err();
    assert!(e.to_string().contains("no `schema` version field"), "{e}");
    std::fs::write(&path, "{ half").unwrap();
    assert!(matches!(
        data.load("synthetic-gpu", "e"),
        Err(StoreError::Corrupt { .. })
    ));
}

/// Issue 36: `merge` wrote one file, then failed on the next (reported as "cannot read"):
/// now every file is staged before any is replaced, and a failure is a write error.
#[test]
fn a_failed_write_of_one_file_writes_none_and_leaves_no_temporary() {
    let tmp = tempfile::tempdir().unwrap();
    let data = DataDir::new(tmp.path());
    let lock = data.lock().unwrap();
    let path = data
        .merge_and_save(&lock, recording(&[("a", 1, 1)]))
        .unwrap();
    let before = std::fs::read(&path).unwrap();
    // The second file's folder cannot be made: a file stands where it would be.
    std::fs::write(tmp.path().join("blocked"), "").unwrap();
    let second = tmp.path().join("blocked/e.json");
    let e = write_all_atomic([(path.as_path(), "{}"), (second.as_path(), "{}")]).unwrap_err();
    assert!(matches!(e, StoreError::Write { .. }), "{e}");
    assert!(e.to_string().starts_with("cannot write"), "{e}");
    assert_eq!(
        std::fs::read(&path).unwrap(),
        before,
        "the first file is intact"
    );
    let files: Vec<_> = std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        files,
        [path.file_name().unwrap()],
        "no temporary left behind"
    );
    assert_eq!(keys(&data), ["a1:1"]);
}
