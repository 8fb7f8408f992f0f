//! Several recorders on a real GPU at once: two `record --shard K/2` processes writing one
//! `data/` concurrently, and `record --gpus 0,0` (two workers on one GPU), must record every
//! point exactly once, timed and verified, and leave nothing to run. All `#[ignore]`d: run with
//! `--ignored --test-threads=1`, as scripts/gpu-suite.sh does.

use crate::common;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const CHAPTER: &str = r#"# Fleet

```gpulab
experiment = "faults"
variants   = ["good", "good_too"]
axes       = { N = [4096, 16384, 65536, 262144, 1048576, 4194304] }
measure    = { timeout_s = 0.5 }
```
"#;

const FILES: &[(&str, &str)] = &[
    ("book.toml", include_str!("../fixtures/faults/book.toml")),
    ("src/SUMMARY.md", "# Summary\n\n- [Fleet](fleet.md)\n"),
    ("src/fleet.md", CHAPTER),
];

const POINTS: usize = 12;

fn book() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().expect("temporary folder");
    let root = tmp.path().join("fleet");
    common::write_files(&root, FILES.iter().chain(common::FAULTS_EXPERIMENT));
    (tmp, root)
}

fn gpulab(root: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(common::gpu_binary());
    cmd.args(args)
        .current_dir(root)
        .env("GPULAB_COMMIT", "gpu-fleet-test")
        .env_remove("GPULAB_WORKER")
        .stdin(Stdio::null());
    cmd
}

fn show(args: &str, out: &Output) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    eprintln!("$ mdbook-gpulab {args}\n{stderr}");
    assert!(out.status.success(), "mdbook-gpulab {args} failed");
    stderr
}

/// The one recording file: every point once, ok, timed, verified.
fn check_recording(root: &Path) -> PathBuf {
    let dev = std::fs::read_dir(root.join("data"))
        .expect("data/ written")
        .filter_map(Result::ok)
        .find(|e| e.path().is_dir())
        .expect("a device folder");
    let path = dev.path().join("faults.json");
    let rec: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let points = rec["points"].as_array().unwrap();
    let mut ids: Vec<String> = points
        .iter()
        .map(|p| format!("{} {}", p["variant"], p["params"]["N"]))
        .collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), POINTS, "every point once: {ids:?}");
    assert_eq!(points.len(), POINTS, "no point twice");
    for p in points {
        assert_eq!(p["outcome"], "ok", "{p:#}");
        assert!(p["timing"]["median_ms"].as_f64().unwrap() > 0.0);
        assert_eq!(p["verification"]["max_error"].as_f64(), Some(0.0), "{p:#}");
    }
    path
}

fn nothing_left(root: &Path, file: &Path) {
    let before = std::fs::read(file).unwrap();
    let stderr = show(
        "record .",
        &gpulab(root, &["record", "."]).output().unwrap(),
    );
    assert!(stderr.contains("nothing to run"), "{stderr}");
    assert_eq!(before, std::fs::read(file).unwrap());
}

#[test]
#[ignore = "needs an NVIDIA GPU: run scripts/gpu-suite.sh on the device"]
fn two_shard_processes_on_one_gpu_merge_into_one_recording() {
    let (_tmp, root) = book();
    let spawn = |k: &str| {
        gpulab(&root, &["record", ".", "--shard", &format!("{k}/2")])
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawning record")
    };
    let (a, b) = (spawn("1"), spawn("2"));
    let ea = show("record --shard 1/2", &a.wait_with_output().unwrap());
    let eb = show("record --shard 2/2", &b.wait_with_output().unwrap());
    let count = |s: &str, k: &str| -> usize {
        let line = s
            .lines()
            .find(|l| l.starts_with(&format!("shard {k}/2:")))
            .expect("the shard's plan line");
        line.split_whitespace().nth(2).unwrap().parse().unwrap()
    };
    let (na, nb) = (count(&ea, "1"), count(&eb, "2"));
    assert!(na > 0 && nb > 0, "both shards have points");
    assert_eq!(na + nb, POINTS);
    let file = check_recording(&root);
    nothing_left(&root, &file);
}

#[test]
#[ignore = "needs an NVIDIA GPU: run scripts/gpu-suite.sh on the device"]
fn two_workers_on_one_gpu_record_every_point_once() {
    let (_tmp, root) = book();
    let stderr = show(
        "record --gpus 0,0",
        &gpulab(&root, &["record", ".", "--gpus", "0,0"])
            .output()
            .unwrap(),
    );
    assert!(stderr.contains("(2 GPUs)"), "{stderr}");
    let file = check_recording(&root);
    nothing_left(&root, &file);
    let all = show(
        "record --gpus all --rerun",
        &gpulab(&root, &["record", ".", "--gpus", "all", "--rerun"])
            .output()
            .unwrap(),
    );
    assert!(
        all.contains(&format!("recorded {POINTS} point(s), 0 failed")),
        "{all}"
    );
    check_recording(&root);
}
