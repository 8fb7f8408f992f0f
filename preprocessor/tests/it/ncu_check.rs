//! scripts/ncu_check.py, the independent Nsight Compute check, on a CPU: its dry run plans every point
//! with the engine's own planner (`launch-info --points`) and finds it recorded (what is not recorded
//! is skipped: `ci_book.rs`), and prepares the scratch copy of its same-call run; and the book
//! computes the verdicts of the stored checks as the script computed them when it ran.

use mdbook_gpulab::results::ncu_check::{NcuCheckFile, Verdict};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

const SLUG: &str = "nvidia-h100-80gb-hbm3";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `scripts/ncu_check.py --dry-run --slug SLUG ARGS` of the book at `book`, run with this build's binary.
fn dry_run_in(book: &Path, args: &[&std::ffi::OsStr]) -> std::process::Output {
    Command::new("python3")
        .current_dir(book)
        .args(["scripts/ncu_check.py", "--dry-run", "--slug", SLUG])
        .args(args)
        .env("GPULAB_BIN", env!("CARGO_BIN_EXE_mdbook-gpulab"))
        .output()
        .expect("python3 must be installed to run this test")
}

/// Runs the dry run against the H100's recordings; returns its plans.
fn dry_run() -> Vec<Value> {
    let dir = tempfile::tempdir().unwrap();
    let plans = dir.path().join("plans.json");
    let out = dry_run_in(&root(), &["--json".as_ref(), plans.as_os_str()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the dry run failed:\n{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("DRY RUN: every point plans and is recorded"),
        "{text}"
    );
    let all: Value = serde_json::from_str(&std::fs::read_to_string(&plans).unwrap()).unwrap();
    all[SLUG].as_array().unwrap().clone()
}

#[test]
fn ncu_check_dry_run_plans_thirty_points_across_every_recorded_experiment() {
    let plans = dry_run();
    assert!(plans.len() >= 30, "{} points", plans.len());
    let experiments: std::collections::BTreeSet<&str> = plans
        .iter()
        .map(|p| p["experiment"].as_str().unwrap())
        .collect();
    let recorded = std::fs::read_dir(root().join("kernels"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("experiment.toml").exists())
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            root().join(format!("data/{SLUG}/{name}.json")).exists()
        })
        .count();
    assert!(recorded >= 21, "{recorded}");
    assert_eq!(
        experiments.len(),
        recorded,
        "every experiment: {experiments:?}"
    );
    let ms = |p: &Value| p["recorded"]["engine_raw_ms"].as_f64().unwrap();
    assert!(
        plans.iter().filter(|p| ms(p) < 0.010).count() >= 5,
        "short kernels"
    );
    assert!(
        plans.iter().filter(|p| ms(p) >= 1.0).count() >= 5,
        "long kernels"
    );
    // The engine's plan of a multi-pass point: each pass's buffers named, its arguments typed.
    let best = plans
        .iter()
        .find(|p| p["experiment"] == "reduction" && p["variant"] == "best")
        .unwrap();
    let args: Vec<&Value> = best["launches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| &l["args"])
        .collect();
    assert_eq!(
        args,
        [
            &serde_json::json!([{"buffer": "x"}, {"buffer": "p"}, {"i32": 4194304}]),
            &serde_json::json!([{"buffer": "p"}, {"buffer": "sum"}, {"i32": 1056}]),
        ]
    );
    assert_eq!(
        best["buffers"][0]["init"],
        serde_json::json!({"random": {"lo": 0.0, "hi": 3.0}})
    );
}

/// The check's same-call engine run: the scratch copy it prepares lacks exactly the checked points,
/// so `record` there would run those 41 points and nothing else (the cost model's plan, on a CPU),
/// and the book's own recordings are left as they were.
#[test]
fn ncu_check_scratch_copy_makes_record_run_exactly_the_checked_points() {
    let scratch = tempfile::tempdir().unwrap();
    let scratch = scratch.path().join("book");
    let book_recording = root().join(format!("data/{SLUG}/reduction.json"));
    let before = std::fs::read(&book_recording).unwrap();
    let out = dry_run_in(&root(), &["--scratch".as_ref(), scratch.as_os_str()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    let plans = dry_run();
    let planned = plans.len();
    assert!(
        text.contains(&format!("({planned} point(s) removed from ")),
        "{text}"
    );
    assert_eq!(std::fs::read(&book_recording).unwrap(), before);
    // The checked experiments only: one that no GPU has recorded yet would add its own points.
    let names: std::collections::BTreeSet<String> = plans
        .iter()
        .map(|p| p["experiment"].as_str().unwrap().to_string())
        .collect();
    let names: Vec<String> = names.into_iter().collect();
    let estimate = Command::new(env!("CARGO_BIN_EXE_mdbook-gpulab"))
        .arg("record")
        .arg(&scratch)
        .args([
            "--experiment",
            &names.join(","),
            &format!("--estimate={SLUG}"),
        ])
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&estimate.stdout).into_owned()
        + &String::from_utf8_lossy(&estimate.stderr);
    assert!(estimate.status.success(), "{report}");
    // `experiment  points  …` rows: the points `record` would run, per experiment.
    let to_run: usize = report
        .lines()
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            let (name, count) = (w.next()?, w.next()?);
            names
                .contains(&name.to_string())
                .then(|| count.parse::<usize>().ok())?
        })
        .sum();
    assert_eq!(to_run, planned, "{report}");
}

/// The stored checks held the verdicts the script computed when it ran (its own copy of the book's
/// correction); the book now computes them from what the checks measured, and gets every one (to
/// an ulp or two: serde_json's reading of a float may be one off the nearest). Checks the script
/// writes since (schema 2) store no verdicts.
#[test]
fn the_book_computes_the_verdicts_the_stored_checks_made() {
    let mut compared = 0;
    for slug in [SLUG, "nvidia-h200"] {
        let path = root().join(format!("data/{slug}/checks/ncu.json"));
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let stored: Value = serde_json::from_str(&text).unwrap();
        if stored["schema"] != 1 {
            continue;
        }
        let file: NcuCheckFile = serde_json::from_str(&text).unwrap();
        let same = |v: &Verdict, s: &Value, what: &str| {
            let close = |x: f64, k: &str| {
                let y = s[k].as_f64().unwrap_or(f64::NAN);
                assert!(
                    (x - y).abs() <= 4.0 * f64::EPSILON * y.abs(),
                    "{what} {k}: {x} {y}"
                );
            };
            close(v.engine_ms, "engine_ms");
            close(v.ratio, "ratio");
            close(v.ratio_raw, "ratio_raw");
            close(v.overhead_ms, "event_offset_ms");
            close(v.gaps_ms, "launch_gaps_ms");
            assert_eq!(Some(v.within), s["within"].as_bool(), "{what}");
            assert_eq!(Some(v.within_raw), s["within_raw"].as_bool(), "{what}");
            assert_eq!(
                v.empty_kernel_ms,
                s["own_empty_kernel_ms"].as_f64(),
                "{what}"
            );
        };
        for (row, s) in file.rows().iter().zip(stored["points"].as_array().unwrap()) {
            let what = format!("{slug} {} {}", s["experiment"], s["params"]);
            assert_eq!(Some(row.target), s["target"].as_f64(), "{what}");
            same(&row.recorded, s, &what);
            let sr = &s["same_run"];
            same(row.same_call.as_ref().unwrap(), sr, &what);
            let launches = sr["ratio_engine_launches"].as_f64();
            assert_eq!(row.engine_launches.is_some(), launches.is_some(), "{what}");
            if let Some((ratio, within)) = row.engine_launches {
                assert!((ratio - launches.unwrap()).abs() < 1e-15, "{what}");
                assert_eq!(
                    Some(within),
                    sr["within_engine_launches"].as_bool(),
                    "{what}"
                );
            }
            compared += 1;
        }
    }
    eprintln!("{compared} checked points compared");
}
