//! `scripts/compare_runs.py`: two recordings of the same points, compared by duration bin, from
//! data/ folders or their .tgz archives. SYNTHETIC recordings: nothing here was measured.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A data/ folder with one experiment of four cold points (10, 12, 50 and 500 µs, each `scale`
/// times longer), one failed point and one CPU baseline, which the comparison leaves out.
fn data(dir: &Path, scale: f64) -> PathBuf {
    let folder = dir.join("data").join("synthetic-gpu");
    std::fs::create_dir_all(&folder).unwrap();
    let point = |n: u32, us: f64, outcome: &str, mode: &str| {
        format!(
            r#"{{"variant": "v", "params": {{"N": {n}}}, "outcome": "{outcome}",
                 "timing": {{"median_ms": {}, "mode": "{mode}"}}}}"#,
            us * scale / 1e3
        )
    };
    let points = [
        point(1, 10.0, "ok", "cold"),
        point(2, 12.0, "ok", "cold"),
        point(3, 50.0, "ok", "cold"),
        point(4, 500.0, "ok", "cold"),
        point(5, 20.0, "failed", "cold"),
        point(6, 20.0, "ok", "host"),
    ]
    .join(",");
    std::fs::write(
        folder.join("e.json"),
        format!(r#"{{"experiment": "e", "points": [{points}]}}"#),
    )
    .unwrap();
    dir.join("data")
}

/// `compare_runs.py A B --device DEVICE OPTIONS…`, as it exited.
fn run(a: &Path, b: &Path, device: &str, options: &[&str]) -> std::process::Output {
    Command::new("python3")
        .arg(root().join("scripts/compare_runs.py"))
        .args([a, b])
        .args(["--device", device])
        .args(options)
        .output()
        .expect("python3")
}

/// The comparison of A and B on the synthetic device with `options`; the test fails unless it succeeds.
fn compare_with(a: &Path, b: &Path, options: &[&str]) -> String {
    let out = run(a, b, "synthetic-gpu", options);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn compare(a: &Path, b: &Path) -> String {
    compare_with(a, b, &[])
}

/// What the script says on stderr when it fails (the test fails if it succeeds).
fn compare_fails(a: &Path, device: &str, options: &[&str]) -> String {
    let out = run(a, a, device, options);
    assert!(!out.status.success());
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn points_of_both_recordings_are_compared_by_duration_bin() {
    let dir = tempfile::tempdir().unwrap();
    let a = data(&dir.path().join("a"), 1.0);
    let b = data(&dir.path().join("b"), 1.1);
    let out = compare(&a, &b);
    assert!(out.starts_with("4 cold points verified in both"), "{out}");
    // Two points of 5-20 µs: ratio 1.1, B-A the median of 1.0 and 1.2 µs.
    let bin = out
        .lines()
        .find(|l| l.trim_start().starts_with("5-20 us"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(bin.contains("1.100") && bin.contains("1.10 us"), "{bin}");
    // A bin of one point is not shown.
    assert!(!out.contains("20-100 us"), "{out}");
}

#[test]
fn a_device_with_no_recordings_is_an_error_naming_those_there() {
    let dir = tempfile::tempdir().unwrap();
    let a = data(&dir.path().join("a"), 1.0);
    let err = compare_fails(&a, "nvidia-h300", &[]);
    assert!(
        err.contains("no recordings of nvidia-h300 (devices there: synthetic-gpu)"),
        "{err}"
    );
}

#[test]
fn a_tgz_of_data_is_read_like_the_folder() {
    let dir = tempfile::tempdir().unwrap();
    let a = data(&dir.path().join("a"), 1.0);
    let b = data(&dir.path().join("b"), 1.1);
    let tgz = dir.path().join("b.tgz");
    let tar = Command::new("tar")
        .arg("czf")
        .arg(&tgz)
        .arg("-C")
        .arg(dir.path().join("b"))
        .arg("data")
        .status()
        .unwrap();
    assert!(tar.success());
    assert_eq!(compare(&a, &b), compare(&a, &tgz));
}

/// A data/ folder of two experiments, `e` (cold points of 10, 12 and 50 µs as the kernel runs, and
/// one of 15 µs timed by the kernel clock, which carries no overhead) and `skip` (one point),
/// recorded on a host whose events time the empty kernel at `empty_us`: each event-timed median
/// carries that host's overhead, `empty_us` less the calibration's ncu time of 1.5 µs. `None`: a
/// recording that stored no empty kernel, whose medians carry the calibrated 1.3 µs.
fn host_data(dir: &Path, empty_us: Option<f64>) -> PathBuf {
    let folder = dir.join("data").join("synthetic-gpu");
    std::fs::create_dir_all(folder.join("checks")).unwrap();
    let overhead = empty_us.map_or(1.3, |e| e - 1.5);
    let empty = empty_us.map_or("null".to_string(), |e| (e / 1e3).to_string());
    let point = |n: u32, kernel_us: f64| {
        format!(
            r#"{{"variant": "v", "params": {{"N": {n}}}, "outcome": "ok",
                 "timing": {{"median_ms": {ms}, "min_ms": {ms}, "mode": "cold", "clock": "events",
                             "empty_kernel_ms": {empty}}}}}"#,
            ms = (kernel_us + overhead) / 1e3
        )
    };
    let clocked = r#"{"variant": "k", "params": {"N": 4}, "outcome": "ok",
                      "timing": {"median_ms": 0.015, "mode": "cold", "clock": "kernel"}}"#;
    let e = [
        point(1, 10.0),
        point(2, 12.0),
        point(3, 50.0),
        clocked.to_string(),
    ]
    .join(",");
    std::fs::write(
        folder.join("e.json"),
        format!(r#"{{"experiment": "e", "points": [{e}]}}"#),
    )
    .unwrap();
    std::fs::write(
        folder.join("skip.json"),
        format!(
            r#"{{"experiment": "skip", "points": [{}]}}"#,
            point(9, 30.0)
        ),
    )
    .unwrap();
    std::fs::write(
        folder.join("checks").join("event_offset.json"),
        r#"{"offset_ms": 0.0013, "events_ms": 0.0028, "ncu_ms": 0.0015}"#,
    )
    .unwrap();
    dir.join("data")
}

/// Two hosts whose events differ by 1.7 µs a launch: as recorded, their short kernels differ by
/// that much; as the book shows them (each less its own run's overhead), they agree.
#[test]
fn as_shown_each_side_loses_its_own_runs_overhead_and_excluded_experiments_are_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let a = host_data(&dir.path().join("a"), Some(2.8));
    let b = host_data(&dir.path().join("b"), Some(4.5));
    let bin = |out: &str| {
        out.lines()
            .find(|l| l.trim_start().starts_with("5-20 us"))
            .unwrap_or_else(|| panic!("{out}"))
            .to_string()
    };
    let recorded = compare_with(&a, &b, &[]);
    assert!(
        recorded.contains("5 cold points verified in both"),
        "{recorded}"
    );
    assert!(bin(&recorded).contains("1.70 us"), "{recorded}");
    let shown = compare_with(&a, &b, &["--as-shown", "--exclude", "skip"]);
    assert!(
        shown.starts_with("4 cold points verified in both")
            && shown.contains("as the book shows them")
            && shown.contains("without skip"),
        "{shown}"
    );
    assert!(
        bin(&shown).contains("1.000") && bin(&shown).contains("0.00 us"),
        "{shown}"
    );
    // A recording without its run's empty kernel loses the calibrated offset (1.3 µs), not its
    // events' 2.8 µs, and agrees with A as shown only if A lost its own 2.8 µs less ncu's 1.5 µs:
    // subtracting the whole empty kernel would leave them 1.5 µs apart.
    let c = host_data(&dir.path().join("c"), None);
    let shown = compare_with(&a, &c, &["--as-shown", "--exclude", "skip"]);
    assert!(
        bin(&shown).contains("1.000") && bin(&shown).contains("0.00 us"),
        "{shown}"
    );
}

/// A point timed by the kernel clock carries no event overhead, so `--as-shown` leaves it alone:
/// against a copy of itself 1 µs longer it still reads 1 µs (1.067×) longer.
#[test]
fn as_shown_leaves_kernel_clock_points_alone() {
    let dir = tempfile::tempdir().unwrap();
    let a = host_data(&dir.path().join("a"), Some(2.8));
    let b = host_data(&dir.path().join("b"), Some(2.8));
    let e = b.join("synthetic-gpu").join("e.json");
    let text = std::fs::read_to_string(&e).unwrap();
    std::fs::write(
        &e,
        text.replace("\"median_ms\": 0.015", "\"median_ms\": 0.016"),
    )
    .unwrap();
    let shown = compare_with(&a, &b, &["--as-shown", "--exclude", "skip"]);
    let bin = shown
        .lines()
        .find(|l| l.trim_start().starts_with("5-20 us"))
        .unwrap_or_else(|| panic!("{shown}"));
    // 10, 12 and 15 µs: the 15 µs point is the only one that moved, by 1/15.
    assert!(bin.contains("1.067"), "{shown}");
}

#[test]
fn as_shown_without_a_calibration_says_what_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    let a = data(&dir.path().join("a"), 1.0);
    let err = compare_fails(&a, "synthetic-gpu", &["--as-shown"]);
    assert!(
        err.contains("--as-shown needs synthetic-gpu/checks/event_offset.json"),
        "{err}"
    );
}
