//! Faults that need no GPU, through the binary: a corrupt recording, a read-only `data/`, two
//! writers at once, and a machine without libcuda or libnvrtc (real here, or simulated with
//! `GPULAB_HIDE_LIBS`). Nothing is ever lost: recordings stay byte-identical wherever nothing
//! should change. The same faults on a GPU: tests/gpu/faults.rs.

use crate::common;

use common::BookCopy;
use mdbook_gpulab::record::store::parse_recording;
use mdbook_gpulab::record::{DataDir, FailureKind, Outcome};
use snapbox::cmd::{Command, cargo_bin};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

fn gpulab(book: &BookCopy, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(cargo_bin!("mdbook-gpulab"))
        .args(args)
        .arg(&book.root);
    for (k, v) in env {
        cmd = cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    out
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Every file under `data/`, with its bytes.
fn snapshot(book: &BookCopy) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.file_name().is_some_and(|n| n != ".lock") {
                out.insert(p.clone(), std::fs::read(&p).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(&book.path("data"), &mut out);
    out
}

#[test]
fn record_reports_a_corrupt_recording_and_never_overwrites_it() {
    let book = BookCopy::new("basic");
    book.write(
        "data/test-device/scale.json",
        "{\"schema\": 1, \"points\": [",
    );
    let before = snapshot(&book);
    let out = gpulab(&book, &["record"], &[]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("data/test-device/scale.json is not a valid recording"),
        "{err}"
    );
    assert!(err.contains("fix or remove it"), "{err}");
    assert_eq!(before, snapshot(&book), "data/ changed");
}

/// Makes `dir` and everything in it unwritable, even for root where `chattr +i` works; `None`
/// (and a loud SKIPPED) when this machine cannot.
fn make_read_only(book: &BookCopy) -> Option<impl Drop> {
    struct Undo(Vec<PathBuf>);
    impl Drop for Undo {
        fn drop(&mut self) {
            for p in &self.0 {
                let _ = std::process::Command::new("chattr")
                    .arg("-i")
                    .arg(p)
                    .status();
                let _ = std::process::Command::new("chmod")
                    .arg("u+w")
                    .arg(p)
                    .status();
            }
        }
    }
    let dirs = vec![
        book.path("data"),
        book.path("data/test-device"),
        book.path("data/papers"),
    ];
    for d in &dirs {
        std::process::Command::new("chmod")
            .arg("a-w")
            .arg(d)
            .status()
            .unwrap();
    }
    let undo = Undo(dirs.clone());
    let probe = book.path("data/test-device/.probe");
    if std::fs::write(&probe, "x").is_ok() {
        let _ = std::fs::remove_file(&probe);
        // root ignores permissions: try the immutable attribute.
        for d in &dirs {
            let _ = std::process::Command::new("chattr")
                .arg("+i")
                .arg(d)
                .status();
        }
        if std::fs::write(&probe, "x").is_ok() {
            let _ = std::fs::remove_file(&probe);
            eprintln!("SKIPPED: cannot make data/ read-only here (root without chattr +i)");
            return None;
        }
    }
    Some(undo)
}

#[test]
fn record_with_a_read_only_data_folder_fails_before_running_anything() {
    let book = BookCopy::new("basic");
    let before = snapshot(&book);
    let Some(_undo) = make_read_only(&book) else {
        return;
    };
    let out = gpulab(&book, &["record"], &[]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("cannot write in") && err.contains("data"),
        "{err}"
    );
    assert!(
        !err.contains("libcuda"),
        "checked before looking for a GPU: {err}"
    );
    // Reading is fine: the book builds from the read-only recordings.
    let out = gpulab(&book, &["build", "--mode", "recorded"], &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    drop(_undo);
    assert_eq!(before, snapshot(&book), "data/ changed");
}

#[test]
fn two_writers_at_once_lose_no_point() {
    let book = BookCopy::new("basic");
    let path = book.path("data/test-device/scale.json");
    let original = parse_recording(&path, &book.read("data/test-device/scale.json")).unwrap();
    let template = original.points[0].clone();
    let writers: Vec<_> = (0..2)
        .map(|w| {
            let data = DataDir::new(book.path("data"));
            let (mut rec, template) = (original.clone(), template.clone());
            std::thread::spawn(move || {
                for k in 0..25 {
                    let mut p = template.clone();
                    p.params.insert(
                        "N".into(),
                        mdbook_gpulab::value::ParamValue::Int(1_000_000 + w * 100 + k),
                    );
                    rec.points = vec![p];
                    let lock = data.lock().unwrap();
                    data.merge_and_save(&lock, rec.clone()).unwrap();
                }
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    let merged = parse_recording(&path, &book.read("data/test-device/scale.json")).unwrap();
    assert_eq!(
        merged.points.len(),
        original.points.len() + 50,
        "a writer's points were lost"
    );
    // The original points are untouched.
    for p in &original.points {
        assert!(merged.points.contains(p));
    }
}

#[test]
fn without_libcuda_record_fails_clearly_and_the_book_still_builds() {
    let book = BookCopy::new("basic");
    let before = snapshot(&book);
    let hide = [("GPULAB_HIDE_LIBS", "cuda")];
    let out = gpulab(&book, &["record"], &hide);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains("libcuda"), "{err}");
    let out = gpulab(&book, &["build"], &hide);
    assert!(
        out.status.success(),
        "auto mode renders the recordings: {}",
        stderr(&out)
    );
    assert!(book.read("out/chapter.html").contains("gpulab-table"));
    let out = gpulab(&book, &["build", "--mode", "live"], &hide);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("libcuda"), "{}", stderr(&out));
    let out = Command::new(cargo_bin!("mdbook-gpulab"))
        .arg("devices")
        .env("GPULAB_HIDE_LIBS", "cuda")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("libcuda"));
    assert_eq!(before, snapshot(&book), "data/ changed");
}

/// Regression (GPU suite, H100, 16e018a): `record` without libcuda refused clearly but had already
/// created `data/` while checking it was writable; the refusal now comes before data/ is touched.
#[test]
fn record_without_libcuda_writes_nothing_into_data() {
    // A book that has never recorded anything: no data/ at all.
    let book = BookCopy::new("basic");
    let chapter = book
        .read("src/chapter.md")
        .replace("paper = \"demo/table1\"\n", "");
    book.write("src/chapter.md", &chapter);
    std::fs::remove_dir_all(book.path("data")).unwrap();
    let out = gpulab(&book, &["record"], &[("GPULAB_HIDE_LIBS", "cuda")]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("libcuda"), "{}", stderr(&out));
    assert!(
        !book.path("data").exists(),
        "record created data/ on a machine without a GPU"
    );
}

#[test]
fn without_libnvrtc_check_skips_loudly_or_fails_when_required() {
    let book = BookCopy::new("basic");
    let hide = [("GPULAB_HIDE_LIBS", "nvrtc")];
    let out = gpulab(&book, &["check"], &hide);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("SKIPPED: compiling"),
        "{}",
        stderr(&out)
    );
    let out = gpulab(&book, &["check", "--require-nvrtc"], &hide);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("libnvrtc"), "{}", stderr(&out));
}

/// Regression (session 10): a corrupt event-overhead calibration, Nsight Compute check or library
/// anchors file passed `check` and aborted every build ("error: building the book: …"), where a
/// corrupt recording spoils only its own directive. Now `check` fails naming the file, a build
/// shows the block as an error box and renders the rest, and `--strict` fails.
#[test]
fn a_corrupt_calibration_check_or_anchors_file_spoils_its_block_only() {
    const OTHER_DEVICE_NCU_CHECK: &str = r#"{"schema": 1, "commit": "abc", "date": "2026-11-23T18:00:00Z",
        "ncu_version": "Version 2025.3", "gpu": "Other GPU", "clock_control": "none",
        "cache_control": {"cold": "all", "hot": "none"}, "runs_per_point": 7,
        "targets": {"long": 0.02, "short": 0.05, "short_below_us": 10}, "seconds": 42.0,
        "points": [{"experiment": "scale", "variant": "naive", "params": {"N": 4096}, "mode": "cold",
        "launches": 1, "ncu_ms": 1.0, "engine_raw_ms": 1.01}]}"#;
    let blocks = "\n```gpulab-anchors\n[[row]]\nanchor = \"scale\"\nexperiment = \"scale\"\nmetric = \"gbps\"\nvariants = [\"naive\"]\nparams = { N = 4096 }\n```\n\n```gpulab-ncu-check\n```\n";
    for (file, block) in [
        ("checks/event_offset.json", None),
        ("checks/ncu.json", Some("gpulab-ncu-check")),
        ("anchors/library.json", Some("gpulab-anchors")),
    ] {
        let book = BookCopy::new("basic");
        let chapter = book.read("src/chapter.md") + blocks;
        book.write("src/chapter.md", &chapter);
        book.write(&format!("data/test-device/{file}"), "{\"schema\": ");
        // A second device whose Nsight Compute check is fine: it still renders.
        book.write("data/other-device/checks/ncu.json", OTHER_DEVICE_NCU_CHECK);

        let out = gpulab(&book, &["check", "--no-compile"], &[]);
        assert!(!out.status.success(), "{file}: check passed");
        assert!(
            stderr(&out).contains(&format!("test-device/{file} cannot be parsed")),
            "{file}: {}",
            stderr(&out)
        );

        let out = gpulab(&book, &["build", "--mode", "recorded"], &[]);
        let err = stderr(&out);
        assert!(out.status.success(), "{file}: {err}");
        assert!(
            err.contains("error: ") && err.contains(file),
            "{file}: {err}"
        );
        let html = book.read("out/chapter.html");
        assert!(
            html.contains("gpulab-table"),
            "{file}: the directives still render"
        );
        match block {
            // One device's corrupt check spoils its own part of the block only.
            Some("gpulab-ncu-check") => {
                assert!(
                    html.contains(
                        "<strong>test-device</strong>: its Nsight Compute check cannot be read"
                    ),
                    "{file}: {html}"
                );
                assert!(
                    html.contains("<strong>Other GPU</strong>: 1 of 1 points within target"),
                    "{file}: {html}"
                );
            }
            Some(b) => assert!(
                html.contains(&format!("Unreadable data for this {b} block")),
                "{file}: {html}"
            ),
            None => {
                assert!(
                    err.contains("shown without the event-overhead correction"),
                    "{file}: {err}"
                );
                assert!(
                    html.contains("event times not corrected: the calibration cannot be read"),
                    "{file}: the page says so"
                );
            }
        }

        let out = gpulab(&book, &["build", "--mode", "recorded", "--strict"], &[]);
        assert!(!out.status.success(), "{file}: --strict passed");
    }
}

/// Regression (issue 35): a spinning kernel cost the full watchdog at each of its sizes. With a fake
/// worker whose `hang` variant never finishes, its first size times out and its other size is
/// recorded as not run, with the reason and no timing; the next `record` runs nothing, and a
/// changed kernel runs again.
#[test]
fn a_hung_variant_costs_one_watchdog_until_its_code_changes() {
    let book = BookCopy::new("faults");
    book.edit("book.toml", "watchdog_s = 8", "watchdog_s = 3");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/fake_worker.py");
    let (worker, log) = (
        format!("python3 {}", script.display()),
        book.path("fake.log"),
    );
    let env = [
        ("GPULAB_WORKER", worker.as_str()),
        ("FAKE_WORKER_HANG", "hang"),
        ("FAKE_WORKER_LOG", log.to_str().unwrap()),
        ("GPULAB_COMMIT", "faults-test"),
    ];
    let hangs = || {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        text.lines().filter(|l| l.contains(" faults hang ")).count()
    };
    let out = gpulab(&book, &["record"], &env);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(hangs(), 1, "one watchdog for the variant");
    let path = book.path("data/fake-gpu/faults.json");
    let rec = parse_recording(&path, &book.read("data/fake-gpu/faults.json")).unwrap();
    for p in &rec.points {
        let (outcome, failure) = (p.outcome, p.failure.as_ref());
        match (p.variant.as_str(), p.params["N"].as_f64()) {
            ("hang", Some(4096.0)) => assert_eq!(failure.unwrap().kind, FailureKind::Timeout),
            ("hang", _) => {
                assert_eq!(outcome, Outcome::Skipped, "{p:?}");
                let reason = &failure.unwrap().message;
                assert_eq!(
                    reason,
                    "an earlier point of this variant hung (3 s watchdog)"
                );
                assert!(p.timing.is_none(), "never a measurement");
            }
            _ => assert_eq!(outcome, Outcome::Ok, "{p:?}"),
        }
    }
    let out = gpulab(&book, &["build", "--mode", "recorded"], &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let page = book.read("out/faults.html");
    assert!(
        page.contains("skipped (an earlier point of this variant hung (3 s watchdog))"),
        "the page shows it as not run, with the reason"
    );
    let again = gpulab(&book, &["record"], &env);
    assert!(
        stderr(&again).contains("nothing to run"),
        "{}",
        stderr(&again)
    );
    assert_eq!(hangs(), 1);
    let code = book.read("kernels/faults/faults.cu");
    book.write(
        "kernels/faults/faults.cu",
        &format!("{code}#define EDITED 1\n"),
    );
    let out = gpulab(&book, &["record"], &env);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(hangs(), 2, "a changed kernel runs again");
}
