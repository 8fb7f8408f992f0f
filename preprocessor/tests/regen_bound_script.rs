//! `scripts/regen_bound.py` on a SYNTHETIC data folder: each lane sums the time the measured code ran
//! (median × samples × runs, plus a verification run that was not also the first sample), failed
//! points count nothing, and the one-GPU bound is max(GPU lane, single-threaded CPU) + multi-threaded CPU.

use std::path::Path;
use std::process::Command;

#[test]
fn the_bound_sums_each_lane_and_adds_the_multi_threaded_baselines_after_the_gpu_lane() {
    let dir = tempfile::tempdir().unwrap();
    let dev = dir.path().join("data/synthetic-gpu");
    std::fs::create_dir_all(&dev).unwrap();
    // GPU: a long point whose first run was its first sample (200 ms x 2 = 0.4 s), a short one whose
    // verification run comes on top (1 ms x 99 + 1 = 0.1 s), a hot batch (0.5 ms x 10 x 20 + 0.5 =
    // 0.1005 s) and a failed point (nothing). CPU: one thread 3 s x 2 = 6 s; 16 threads 1 s x 3 = 3 s.
    let points = r#"[
      {"outcome": "ok", "timing": {"median_ms": 200.0, "samples": 2, "mode": "cold"}},
      {"outcome": "ok", "timing": {"median_ms": 1.0, "samples": 99, "mode": "cold"}},
      {"outcome": "ok", "timing": {"median_ms": 0.5, "samples": 20, "runs_per_sample": 10, "mode": "hot"}},
      {"outcome": "failed", "timing": null},
      {"outcome": "ok", "timing": {"median_ms": 3000.0, "samples": 2, "mode": "host", "cpu": "Synthetic CPU, 1 threads"}},
      {"outcome": "ok", "timing": {"median_ms": 1000.0, "samples": 3, "mode": "host", "cpu": "Synthetic CPU, 16 threads"}}
    ]"#;
    std::fs::write(
        dev.join("exp.json"),
        format!("{{\"experiment\": \"exp\", \"points\": {points}}}"),
    )
    .unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/regen_bound.py");
    let out = Command::new("python3")
        .arg(script)
        .arg("--root")
        .arg(dir.path())
        .output()
        .expect("python3 runs the script");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("GPU lane 0.6 (exp 1)"), "{text}");
    assert!(flat.contains("CPU, 1 thread 6.0 (exp 6)"), "{text}");
    assert!(flat.contains("CPU, many threads 3.0 (exp 3)"), "{text}");
    assert!(flat.contains("+ CPU many threads = 9 s"), "{text}");
}
