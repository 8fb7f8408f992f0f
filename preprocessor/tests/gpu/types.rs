//! Element types and buffers a kernel reads and writes, on a real NVIDIA GPU: `record` the
//! `tests/fixtures/types` book (an in-place `y = a·x + y` with `reset = "init"`, an atomic u8
//! histogram with `reset = "zero"`, f16/bf16 through `<cuda_fp16.h>`/`<cuda_bf16.h>`, 8/16/64-bit
//! integers) and require every point verified and timed. `#[ignore]`d: run with `--ignored
//! --test-threads=1`, as scripts/gpu-suite.sh does (STEPS=tests).

use crate::common;

use serde_json::Value;
use std::process::{Command, Stdio};

const BOOK: &[(&str, &str)] = &[
    ("book.toml", include_str!("../fixtures/types/book.toml")),
    (
        "src/SUMMARY.md",
        include_str!("../fixtures/types/src/SUMMARY.md"),
    ),
    (
        "src/types.md",
        include_str!("../fixtures/types/src/types.md"),
    ),
    (
        "kernels/axpy_inplace/experiment.toml",
        include_str!("../fixtures/types/kernels/axpy_inplace/experiment.toml"),
    ),
    (
        "kernels/axpy_inplace/axpy.cu",
        include_str!("../fixtures/types/kernels/axpy_inplace/axpy.cu"),
    ),
    (
        "kernels/histogram_u8/experiment.toml",
        include_str!("../fixtures/types/kernels/histogram_u8/experiment.toml"),
    ),
    (
        "kernels/histogram_u8/histogram.cu",
        include_str!("../fixtures/types/kernels/histogram_u8/histogram.cu"),
    ),
    (
        "kernels/half_scale/experiment.toml",
        include_str!("../fixtures/types/kernels/half_scale/experiment.toml"),
    ),
    (
        "kernels/half_scale/half.cu",
        include_str!("../fixtures/types/kernels/half_scale/half.cu"),
    ),
    (
        "kernels/narrow_ints/experiment.toml",
        include_str!("../fixtures/types/kernels/narrow_ints/experiment.toml"),
    ),
    (
        "kernels/narrow_ints/ints.cu",
        include_str!("../fixtures/types/kernels/narrow_ints/ints.cu"),
    ),
];

/// Records the fixture book and returns each experiment's recording.
fn record() -> (tempfile::TempDir, Vec<(String, Value)>) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("types");
    common::write_files(&root, BOOK);
    let out = Command::new(common::gpu_binary())
        .args(["record", "."])
        .current_dir(&root)
        .env("GPULAB_COMMIT", "gpu-types-test")
        .stdin(Stdio::null())
        .output()
        .expect("running mdbook-gpulab");
    eprintln!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "record failed as a whole");
    let mut recs = Vec::new();
    // data/ also holds the writers' lock file: only the device folders hold recordings.
    for device in std::fs::read_dir(root.join("data")).unwrap().flatten() {
        if !device.path().is_dir() {
            continue;
        }
        for file in std::fs::read_dir(device.path()).unwrap().flatten() {
            let name = file.file_name().to_string_lossy().into_owned();
            if let Some(exp) = name.strip_suffix(".json") {
                let text = std::fs::read_to_string(file.path()).unwrap();
                recs.push((exp.to_string(), serde_json::from_str(&text).unwrap()));
            }
        }
    }
    (tmp, recs)
}

fn points<'a>(recs: &'a [(String, Value)], exp: &str) -> &'a Vec<Value> {
    let rec = &recs
        .iter()
        .find(|(e, _)| e == exp)
        .unwrap_or_else(|| panic!("no recording of {exp}"))
        .1;
    rec["points"].as_array().expect("points")
}

#[test]
#[ignore = "needs an NVIDIA GPU: run scripts/gpu-suite.sh on the device"]
fn every_type_and_reset_experiment_verifies_and_times() {
    let (_tmp, recs) = record();
    let mut seen = 0;
    for exp in ["axpy_inplace", "histogram_u8", "half_scale", "narrow_ints"] {
        for p in points(&recs, exp) {
            seen += 1;
            assert_eq!(p["outcome"], "ok", "{exp}: {p:#}");
            assert!(p["verification"].is_object(), "{exp}: verified: {p:#}");
            let t = &p["timing"];
            assert!(t["samples"].as_u64().unwrap_or(0) >= 10, "{exp}: {t}");
            if exp == "axpy_inplace" || exp == "histogram_u8" {
                // Each sample is one run from reset buffers (and the output after the samples
                // verified too: otherwise the point would have failed).
                // (a recording leaves `runs_per_sample` out when it is 1)
                assert_eq!(t["runs_per_sample"].as_u64().unwrap_or(1), 1, "{exp}: {t}");
            }
        }
    }
    // 1 + 1 + 2 + 3 variants at one size each.
    assert_eq!(seen, 7);
}
