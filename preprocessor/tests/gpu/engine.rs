//! The engine end to end on a real NVIDIA GPU, through the `mdbook-gpulab` binary: `record` on a
//! book whose kernels fail in every way the engine must survive (wrong result, out-of-bounds
//! write, infinite loop, invalid launch, compile error), then incremental `record`, `run`, hot
//! mode, Ctrl-C during a run, and an offline `build` of what was recorded. All `#[ignore]`d: run
//! them on the device with `--ignored --test-threads=1`, as scripts/gpu-suite.sh does.
//!
//! The fixture book is embedded (`include_str!`) so that the test executable needs no source tree
//! on the GPU machine; the binary is `GPULAB_BIN`, else the one cargo built, else the one next to
//! this executable's folder (`.device-bin/tests/gpu` → `.device-bin/mdbook-gpulab`).

use crate::gpu_support;

use gpu_support::{Book, binary};
use serde_json::Value;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The sizes of the fixture's first directive.
const SIZES: [i64; 2] = [4096, 65536];
/// The hot directive's size.
const HOT_N: i64 = 1048576;

fn point<'a>(rec: &'a Value, variant: &str, n: i64) -> &'a Value {
    rec["points"]
        .as_array()
        .expect("points")
        .iter()
        .find(|p| p["variant"] == variant && p["params"]["N"] == n)
        .unwrap_or_else(|| panic!("no point {variant} N={n} recorded"))
}

fn failure(p: &Value) -> (String, String) {
    assert_eq!(p["outcome"], "failed", "{p:#}");
    (
        p["failure"]["kind"].as_str().unwrap_or("").to_string(),
        p["failure"]["message"].as_str().unwrap_or("").to_string(),
    )
}

fn assert_timed(p: &Value, mode: &str) {
    assert_eq!(p["outcome"], "ok", "{p:#}");
    let t = &p["timing"];
    let median = t["median_ms"].as_f64().expect("median");
    assert!(median > 0.0 && median < 10.0, "median {median} ms");
    assert!(t["min_ms"].as_f64().unwrap() <= median && median <= t["max_ms"].as_f64().unwrap());
    assert!(t["samples"].as_u64().unwrap() >= 10, "{t}");
    assert_eq!(t["mode"], mode);
    // The method is recorded: why sampling stopped, the rule, the blocking kernel, the clocks (NVML).
    let stop = t["stop"].as_str().expect("stop reason");
    assert!(
        [
            "converged",
            "min_time",
            "noise_stable",
            "max_samples",
            "timeout"
        ]
        .contains(&stop),
        "{t}"
    );
    assert_eq!(t["noise_target"], 0.005);
    assert_eq!(
        t["blocked"], true,
        "one launch per run fits behind the blocking kernel: {t}"
    );
    let sm = t["clocks"]["sm_mhz"]
        .as_array()
        .expect("clocks read through NVML");
    assert!(
        sm[0].as_u64().unwrap() > 0 && sm[0].as_u64() <= sm[1].as_u64(),
        "{t}"
    );
    if mode == "hot" {
        assert!(
            t["runs_per_sample"].as_u64().unwrap_or(1) > 1,
            "short hot kernels are batched: {t}"
        );
        assert!(t["empty_kernel_ms"].is_null(), "cold points only: {t}");
    } else {
        // The events' side of the event-overhead calibration, timed by this run's worker on this
        // host: an empty kernel takes a few microseconds, far less than the point's median.
        let empty = t["empty_kernel_ms"]
            .as_f64()
            .expect("the run's empty kernel");
        assert!(empty > 0.0005 && empty < 0.05 && empty < median, "{t}");
    }
    assert_eq!(p["commit"], "gpu-engine-test");
    // Derived metrics are computed when the book renders, never recorded.
    assert!(p["metrics"].is_null(), "{p:#}");
    // Provenance: the versions, the GPU's UUID and the compiled code.
    let made = &p["provenance"];
    assert!(
        made["cuda_version"].as_str().is_some_and(|v| !v.is_empty()),
        "{made}"
    );
    assert!(
        made["nvrtc_version"]
            .as_str()
            .is_some_and(|v| !v.is_empty()),
        "{made}"
    );
    assert!(
        made["gpu_uuid"]
            .as_str()
            .is_some_and(|u| u.starts_with("GPU-")),
        "{made}"
    );
    assert_eq!(made["code_hash"].as_str().map(str::len), Some(32), "{made}");
    assert!(
        made["code_target"]
            .as_str()
            .is_some_and(|t| t.starts_with("sm_") || t.starts_with("compute_")),
        "{made}"
    );
}

#[test]
#[ignore = "needs an NVIDIA GPU: run scripts/gpu-suite.sh on the device"]
fn record_survives_every_fault_and_records_the_rest() {
    let book = Book::new();
    let started = Instant::now();
    let out = book.gpulab(&["record", "."]);
    assert!(out.status.success(), "record failed as a whole");
    let rec = book.recording();
    for n in SIZES {
        assert_timed(point(&rec, "good", n), "cold");
        assert_timed(point(&rec, "good_too", n), "cold");

        let wrong = point(&rec, "wrong", n);
        let (kind, _) = failure(wrong);
        assert_eq!(kind, "verification");
        assert_eq!(wrong["verification"]["first_bad_index"], n / 2);
        assert!(wrong["timing"].is_null(), "a failed point is never timed");

        let (kind, message) = failure(point(&rec, "out_of_bounds", n));
        assert!(
            kind == "launch" || kind == "crash",
            "out of bounds: {kind}: {message}"
        );
        assert!(
            message.contains("ILLEGAL_ADDRESS"),
            "out of bounds: {message}"
        );

        let (kind, message) = failure(point(&rec, "too_many_threads", n));
        assert_eq!(kind, "launch", "{message}");
        assert!(message.contains("128"), "{message}");

        let (kind, message) = failure(point(&rec, "compile_error", n));
        assert_eq!(kind, "compile", "{message}");
        assert!(
            message.contains("broken.cu") && message.contains("undefined_symbol"),
            "{message}"
        );
    }
    // A hung kernel costs one watchdog (issue 35): its first size times out, its other sizes are
    // not run, shown so with the reason and never timed.
    let (kind, message) = failure(point(&rec, "hang", SIZES[0]));
    assert_eq!(kind, "timeout", "hang: {message}");
    assert!(message.contains("hung"), "{message}");
    for n in &SIZES[1..] {
        let skipped = point(&rec, "hang", *n);
        assert_eq!(skipped["outcome"], "skipped", "{skipped:#}");
        assert_eq!(
            skipped["failure"]["message"],
            "an earlier point of this variant hung (8 s watchdog)"
        );
        assert!(skipped["timing"].is_null(), "{skipped:#}");
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("1 not run"), "{stderr}");
    let hot = point(&rec, "good", HOT_N);
    assert_timed(hot, "hot");
    // One hang at an 8 s watchdog, plus compiles and contexts: well under two minutes.
    assert!(started.elapsed() < Duration::from_secs(120));

    // Incremental: nothing changed, nothing runs, the file is byte-identical.
    let before = std::fs::read(book.recording_path()).unwrap();
    let again = book.gpulab(&["record", "."]);
    assert!(again.status.success());
    assert_eq!(before, std::fs::read(book.recording_path()).unwrap());

    // The offline build shows each failure as such, never as a timing.
    let offline = book.gpulab(&["build", ".", "--mode", "recorded"]);
    assert!(offline.status.success());
    let html = std::fs::read_to_string(book.root.join("out/faults.html")).expect("faults.html");
    assert!(html.contains("timed out"), "the hang is shown as failed");
    assert!(html.contains("skipped (an earlier point of this variant hung (8 s watchdog))"));
    assert!(
        html.contains("wrong result"),
        "the wrong result is shown as failed"
    );
    assert!(html.contains("compile error"));
}

#[test]
#[ignore = "needs an NVIDIA GPU: run scripts/gpu-suite.sh on the device"]
fn run_prints_the_cell_and_records_it() {
    let book = Book::new();
    let out = book.gpulab(&["run", "faults.md#2"]);
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("GB/s"), "{stdout}");
    assert!(stdout.contains("1048576"), "{stdout}");
    let rec = book.recording();
    assert_timed(point(&rec, "good", HOT_N), "hot");
    assert_eq!(
        rec["points"].as_array().unwrap().len(),
        1,
        "only directive 2 ran"
    );
}

#[test]
#[ignore = "needs an NVIDIA GPU: run scripts/gpu-suite.sh on the device"]
fn ctrl_c_during_a_hung_kernel_leaves_data_untouched() {
    let book = Book::new();
    assert!(book.gpulab(&["run", "faults.md#2"]).status.success());
    let before = std::fs::read(book.recording_path()).unwrap();
    let mut child = Command::new(binary())
        .args(["record", ".", "--rerun"])
        .current_dir(&book.root)
        .stdin(Stdio::null())
        .spawn()
        .expect("spawning record");
    // good, wrong and out_of_bounds at N = 4096 take a few seconds; then `hang` spins for the
    // 8 s watchdog. Interrupt in the middle.
    std::thread::sleep(Duration::from_secs(6));
    let status = gpu_support::interrupt(&mut child, "INT");
    assert!(!status.success(), "an interrupted record must not exit 0");
    assert_eq!(
        before,
        std::fs::read(book.recording_path()).unwrap(),
        "data/ changed after Ctrl-C"
    );
    // No worker left behind holding the GPU.
    assert!(!gpu_support::worker_left(), "a worker survived");
}
