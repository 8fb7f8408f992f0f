//! `scripts/event_offset.py` with a fake `mdbook-gpulab calibrate` and a fake `ncu`: the file it writes
//! is what `results::event_offset` reads, its offset is the events' median less ncu's (the warm-up
//! launch dropped), and a profile missing launches fails loudly. SYNTHETIC numbers throughout.

use mdbook_gpulab::record::DataDir;
use mdbook_gpulab::results::event_offset;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, format!("#!/usr/bin/env bash\n{body}")).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    p
}

/// Fake tools in `dir`: the binary prints a calibration of 3.0 µs; ncu profiles `launches` launches
/// of the empty kernel (the first 9.0 µs, a warm-up, then 2.0, 2.2, 2.1 … µs) and one other kernel.
fn fakes(dir: &Path, launches: usize) -> (PathBuf, PathBuf) {
    let bin = script(
        dir,
        "mdbook-gpulab",
        r#"[ "$1" = calibrate ] || exit 2
cat <<'JSON'
{"gpu": "Synthetic GPU X1", "slug": "synthetic-gpu", "kernel": "gpulab_null", "tool_version": "0.1.0",
 "events": {"median_ms": 0.003, "min_ms": 0.0029, "max_ms": 0.0035, "q1_ms": 0.003, "q3_ms": 0.003,
            "noise": 0.01, "samples": 400, "mode": "cold"}}
JSON
"#,
    );
    let mut rows = String::from(
        "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\"\n\"\",\"\",\"ns\"\n\"0\",\"gpulab_null\",\"9000\"\n",
    );
    for i in 1..launches {
        rows.push_str(&format!(
            "\"{i}\",\"gpulab_null\",\"{}\"\n",
            [2000, 2200, 2100][i % 3]
        ));
    }
    rows.push_str("\"99\",\"gpulab_discard_l2\",\"50000\"\n");
    let ncu = script(
        dir,
        "ncu",
        &format!(
            r#"case " $* " in
  *" --version "*) echo "NVIDIA (R) Nsight Compute Command Line Profiler"; echo "Version 2099.1.0 (synthetic)";;
  *" --import "*) cat <<'CSV'
{rows}CSV
  ;;
  *" --export "*) while [ "$1" != --export ]; do shift; done; touch "$2.ncu-rep";;
  *) exit 3;;
esac
"#
        ),
    );
    (bin, ncu)
}

fn run(dir: &Path, launches: usize) -> std::process::Output {
    let (bin, ncu) = fakes(dir, launches);
    Command::new("python3")
        .arg(root().join("scripts/event_offset.py"))
        .args(["--data", &dir.join("data").display().to_string()])
        .env("GPULAB_BIN", bin)
        .env("NCU", ncu)
        .env("GPULAB_COMMIT", "abc1234")
        .output()
        .expect("python3 must be installed to run this test")
}

#[test]
fn the_script_writes_the_calibration_the_book_reads() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(dir.path(), 31);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cal = event_offset::load(&DataDir::new(dir.path().join("data")), "synthetic-gpu")
        .unwrap()
        .expect("data/synthetic-gpu/checks/event_offset.json");
    // ncu's median without the 9 µs warm-up launch: 2.1 µs; events 3.0 µs.
    assert!((cal.ncu_ms - 0.0021).abs() < 1e-12, "{}", cal.ncu_ms);
    assert!((cal.offset_ms - 0.0009).abs() < 1e-12, "{}", cal.offset_ms);
    assert_eq!(cal.commit.as_deref(), Some("abc1234"));
    assert!(cal.ncu_version.contains("2099.1.0"));
    let log = std::fs::read_to_string(
        dir.path()
            .join("data/synthetic-gpu/checks/event_offset.log"),
    )
    .unwrap();
    assert!(log.contains("offset (events - ncu): 0.900 us"), "{log}");
}

#[test]
fn a_profile_without_the_launches_fails_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(dir.path(), 2);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("profiled 2 launches of gpulab_null"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!dir.path().join("data/synthetic-gpu").exists());
}
