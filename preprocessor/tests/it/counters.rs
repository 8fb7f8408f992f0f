//! `record --counters` on CPU: the profiled pass skipped without Nsight Compute, and run end to
//! end against a fake `ncu` (tests/support/fake_ncu.py) and the fake worker, on a copy of the
//! handbook (its bank-conflicts directive declares counters). Nothing here is a measurement.

use crate::common;

use common::BookCopy;
use std::path::Path;
use std::process::{Command, Output};

fn support(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/support")
        .join(name)
        .display()
        .to_string()
}

/// The handbook, whose bank-conflicts chapter declares `counters = ["shared_bank_conflicts"]` for
/// the `lds` variant at 9 strides.
fn book() -> BookCopy {
    let book = BookCopy::handbook();
    assert!(
        book.read("book/part2/bank-conflicts.md")
            .contains("counters   = [\"shared_bank_conflicts\"]"),
        "the test relies on the chapter's counters directive"
    );
    book
}

fn record(book: &BookCopy, ncu: &str, extra: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mdbook-gpulab"));
    cmd.args(["record", "--counters", "--experiment", "bank_conflicts"])
        .arg(&book.root)
        .env(
            "GPULAB_WORKER",
            format!("python3 {}", support("fake_worker.py")),
        )
        .env("GPULAB_COMMIT", "counters-test")
        .env("NCU", ncu)
        .env_remove("CUDA_VISIBLE_DEVICES");
    for (k, v) in extra {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The recorded bank_conflicts points on the fake GPU.
fn points(book: &BookCopy) -> Vec<serde_json::Value> {
    let text = book.read("data/fake-gpu/bank_conflicts.json");
    let rec: serde_json::Value = serde_json::from_str(&text).unwrap();
    rec["points"].as_array().unwrap().clone()
}

#[test]
fn without_ncu_the_profiled_pass_is_skipped_with_a_message_and_timings_are_recorded() {
    let book = book();
    let out = record(&book, "/nonexistent/ncu", &[]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("counters: skipped: cannot run /nonexistent/ncu --version"),
        "{err}"
    );
    assert!(
        err.contains("1 directive(s) declare counters (9 planned point(s))"),
        "{err}"
    );
    let points = points(&book);
    assert!(!points.is_empty(), "the timing pass ran");
    assert!(points.iter().all(|p| p.get("counters").is_none()));
}

#[test]
fn a_fake_ncu_run_stores_counters_on_the_declaring_points_only_and_once() {
    let book = book();
    let ncu = support("fake_ncu.py");
    let out = record(&book, &ncu, &[]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("counters: 9 of 9 point(s) of `bank_conflicts` recorded"),
        "{err}"
    );
    let points = points(&book);
    let with: Vec<&serde_json::Value> = points
        .iter()
        .filter(|p| p.get("counters").is_some())
        .collect();
    assert_eq!(with.len(), 9, "lds at its 9 strides only (not lds_s1)");
    for p in &with {
        assert_eq!(p["variant"], "lds");
        let c = &p["counters"];
        assert_eq!(c["key"], p["key"], "counters of the point's own code");
        assert_eq!(c["profiler"], "Version 0.0.0.0 (fake, tests)");
        assert_eq!(c["launches"], 1);
        assert!(
            c["values"]["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"].is_number()
        );
        assert!(c["values"]["gpu__time_duration.sum"].is_number());
        assert!(p["timing"]["median_ms"].is_number(), "the timing is kept");
    }
    // Nothing left to profile: a second run profiles nothing.
    let again = record(&book, &ncu, &[]);
    let err = stderr(&again);
    assert!(again.status.success(), "{err}");
    assert!(
        err.contains("every verified, current point that declares counters has them"),
        "{err}"
    );
}

#[test]
fn launches_that_do_not_match_the_points_store_nothing() {
    let book = book();
    let ncu = support("fake_ncu.py");
    let out = record(&book, &ncu, &[("FAKE_NCU_EXTRA_ROW", "1")]);
    let err = stderr(&out);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("ncu profiled 1 launch(es) more than the points made"),
        "{err}"
    );
    assert!(points(&book).iter().all(|p| p.get("counters").is_none()));
}
