//! Recording with several workers at once, on CPU: `record --shard K/N` processes sharing one
//! `data/`, `record --gpus`, and `merge`, against a fake worker (tests/support/fake_worker.py,
//! through GPULAB_WORKER) that returns made-up timings for the real handbook's points.

use crate::common;

use common::BookCopy;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn fake_worker() -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/fake_worker.py");
    format!("python3 {}", script.display())
}

/// `mdbook-gpulab <args>` with the fake worker; `log` collects the points it ran.
fn gpulab(args: &[&str], log: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mdbook-gpulab"));
    cmd.args(args)
        .env("GPULAB_WORKER", fake_worker())
        .env("GPULAB_COMMIT", "fleet-test")
        .env("FAKE_WORKER_LOG", log)
        .env_remove("CUDA_VISIBLE_DEVICES");
    cmd
}

fn ok(out: Output) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "failed: {stderr}");
    stderr
}

/// Lines of the fake worker's log, checked to hold no point twice.
fn ran_once(log: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let lines: Vec<String> = text.lines().map(String::from).collect();
    let points: BTreeSet<&str> = lines
        .iter()
        .map(|l| l.split_once(' ').map(|x| x.1).unwrap_or(l))
        .collect();
    assert_eq!(points.len(), lines.len(), "a point ran twice");
    lines
}

/// (experiment, variant, params) of every point recorded for `device` under `data`.
fn recorded(data: &Path, device: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for entry in std::fs::read_dir(data.join(device)).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let rec: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        for p in rec["points"].as_array().unwrap() {
            out.insert(format!(
                "{} {} {}",
                rec["experiment"].as_str().unwrap(),
                p["variant"].as_str().unwrap(),
                serde_json::to_string(&p["params"]).unwrap()
            ));
        }
    }
    out
}

fn nothing_left(book: &BookCopy, log: &Path) {
    let stderr = ok(gpulab(&["record"], log).arg(&book.root).output().unwrap());
    assert!(stderr.contains("nothing to run"), "{stderr}");
}

#[test]
fn two_shard_processes_on_one_data_folder_record_every_point_once() {
    let book = BookCopy::handbook();
    let log = book.path("fake.log");
    let barrier = book.path("barrier");
    std::fs::create_dir_all(&barrier).unwrap();
    let spawn = |k: &str| {
        gpulab(&["record", "--shard", &format!("{k}/2")], &log)
            .arg(&book.root)
            .env("CUDA_VISIBLE_DEVICES", format!("shard{k}"))
            .env("FAKE_WORKER_BARRIER", &barrier)
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (spawn("1"), spawn("2"));
    // Both have planned (from the same empty data/) before either writes: then they write at once.
    let started = Instant::now();
    while std::fs::read_dir(&barrier).unwrap().count() < 2 {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the shards did not start"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    std::fs::write(barrier.join("go"), "").unwrap();
    let (ea, eb) = (
        ok(a.wait_with_output().unwrap()),
        ok(b.wait_with_output().unwrap()),
    );
    assert!(
        ea.contains("shard 1/2:") && eb.contains("shard 2/2:"),
        "{ea}\n{eb}"
    );
    let lines = ran_once(&log);
    assert!(lines.iter().any(|l| l.starts_with("shard1 ")));
    assert!(lines.iter().any(|l| l.starts_with("shard2 ")));
    let stored = recorded(&book.path("data"), "fake-gpu");
    assert_eq!(stored.len(), lines.len(), "every point run is stored, once");
    assert!(stored.len() > 500);
    nothing_left(&book, &log);
}

#[test]
fn gpus_run_a_worker_per_gpu_and_record_every_point_once() {
    let book = BookCopy::handbook();
    let log = book.path("fake.log");
    let stderr = ok(gpulab(&["record", "--gpus", "0,1"], &log)
        .arg(&book.root)
        .output()
        .unwrap());
    assert!(
        stderr.contains("GPU 0:") && stderr.contains("GPU 1:"),
        "{stderr}"
    );
    assert!(stderr.contains("(2 GPUs)"), "{stderr}");
    let lines = ran_once(&log);
    let on = |g: &str| {
        lines
            .iter()
            .filter(|l| l.starts_with(&format!("{g} ")))
            .count()
    };
    assert!(on("0") > 0 && on("1") > 0, "both GPUs get points");
    assert_eq!(on("0") + on("1"), lines.len());
    // CPU baselines run last, alone (on the first GPU's recorder): never beside the GPU work.
    let host = |l: &String| l.contains(" cpu_naive ") || l.contains(" cpu_threads ");
    let first_host = lines
        .iter()
        .position(host)
        .expect("the handbook has CPU baselines");
    assert!(
        lines[first_host..].iter().all(host),
        "a CPU baseline ran while GPU points were still running"
    );
    assert!(lines[first_host..].iter().all(|l| l.starts_with("0 ")));
    assert!(stderr.contains("CPU baselines:"), "{stderr}");
    assert_eq!(recorded(&book.path("data"), "fake-gpu").len(), lines.len());
    nothing_left(&book, &log);
}

#[test]
fn gpus_of_two_kinds_are_refused() {
    let book = BookCopy::handbook();
    let log = book.path("fake.log");
    // The fake worker names its device after FAKE_GPU_SLUG; a wrapper gives each GPU its own.
    let wrapper = book.path("two-kinds.sh");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nFAKE_GPU_SLUG=fake-$CUDA_VISIBLE_DEVICES exec {}\n",
            fake_worker()
        ),
    )
    .unwrap();
    let out = gpulab(&["record", "--gpus", "0,1"], &log)
        .arg(&book.root)
        .env("GPULAB_WORKER", format!("sh {}", wrapper.display()))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("GPU 0 is fake-0 but GPU 1 is fake-1"),
        "{stderr}"
    );
}

/// The handbook copy with the repository's scripts (they find the book through their own path).
fn handbook_with_scripts() -> BookCopy {
    let book = BookCopy::handbook();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    common::copy_dir(&repo.join("scripts"), &book.path("scripts"));
    book
}

fn support(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/support")
        .join(name)
}

/// Every point of the handbook recorded once into `book`'s data/ through `shards` separate
/// shards (told apart by the CUDA_VISIBLE_DEVICES prefix in the log), and nothing left to run.
fn merged_all(book: &BookCopy, log: &Path, prefixes: &[&str]) {
    let lines = ran_once(log);
    for p in prefixes {
        assert!(
            lines.iter().any(|l| l.starts_with(&format!("{p} "))),
            "{p} ran no point"
        );
    }
    let stored = recorded(&book.path("data"), "fake-gpu");
    assert_eq!(stored.len(), lines.len(), "every point run is merged, once");
    assert!(stored.len() > 500);
    nothing_left(book, log);
}

#[test]
fn slurm_array_records_shards_and_merges_them_into_the_book() {
    let book = handbook_with_scripts();
    let log = book.path("fake.log");
    let bin_dir = book.path("fake-bin");
    std::fs::create_dir_all(&bin_dir).unwrap();
    std::fs::copy(support("fake_sbatch.py"), bin_dir.join("sbatch")).unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let sbatch_log = book.path("sbatch.log");
    let out = Command::new("bash")
        .arg(book.path("scripts/slurm/submit.sh"))
        .args(["2", "shards"])
        .current_dir(&book.root)
        .env("PATH", path)
        .env("GPULAB_BIN", env!("CARGO_BIN_EXE_mdbook-gpulab"))
        .env("GPULAB_WORKER", fake_worker())
        .env("FAKE_WORKER_LOG", &log)
        .env("FAKE_SBATCH_LOG", &sbatch_log)
        .env_remove("GPULAB_COMMIT")
        .output()
        .unwrap();
    let outputs: String = std::fs::read_dir(&book.root)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".out"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}\n{outputs}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("array job 1000 (2 shards"),
        "{stdout}\n{outputs}"
    );
    let submitted = std::fs::read_to_string(&sbatch_log).unwrap();
    assert!(
        submitted.contains("1000 --parsable --array=1-2"),
        "{submitted}"
    );
    assert!(
        submitted.contains("1000 exit 0 0"),
        "{submitted}\n{outputs}"
    );
    assert!(
        submitted.contains("--dependency=afterany:1000"),
        "{submitted}"
    );
    assert!(
        outputs.contains("shard 1/2:") && outputs.contains("shard 2/2:"),
        "{outputs}"
    );
    assert!(outputs.contains("merged "), "{outputs}");
    merged_all(&book, &log, &["task1", "task2"]);
}

/// `merge --dir BOOK SHARD`, which must fail; its stderr.
fn merge_fails(book: &BookCopy, shard: &Path, log: &Path) -> String {
    let out = gpulab(&["merge", "--dir"], log)
        .arg(&book.root)
        .arg(shard)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "merge passed: {stderr}");
    stderr
}

#[test]
fn merge_refuses_a_recording_whose_path_names_another_experiment() {
    let book = BookCopy::handbook();
    let log = book.path("fake.log");
    let shard = book.path("shard");
    ok(gpulab(&["record", "--experiment", "reduction"], &log)
        .arg(&book.root)
        .output()
        .unwrap());
    std::fs::create_dir_all(shard.join("fake-gpu")).unwrap();
    std::fs::copy(
        book.path("data/fake-gpu/reduction.json"),
        shard.join("fake-gpu/sgemm.json"),
    )
    .unwrap();
    let stderr = merge_fails(&book, &shard, &log);
    assert!(stderr.contains("not what its path says"), "{stderr}");
}

/// Issue 36: `merge` took a timing of 1e300 ms (the estimate then promised 5e296 s) and could fail
/// after writing some files: every file is checked as `check` checks it before any is written.
#[test]
fn merge_refuses_an_implausible_timing_and_writes_nothing() {
    let book = BookCopy::new("basic");
    let log = book.path("fake.log");
    let shard = book.path("shard/test-device");
    std::fs::create_dir_all(&shard).unwrap();
    let newer = book
        .read("data/test-device/scale.json")
        .replace("\"2026-", "\"2030-");
    let copy = newer.replace("\"experiment\": \"scale\"", "\"experiment\": \"copy\"");
    std::fs::write(shard.join("copy.json"), copy).unwrap();
    let huge = newer.replacen("\"max_ms\": 0.012,", "\"max_ms\": 1e300,", 1);
    std::fs::write(shard.join("scale.json"), huge).unwrap();
    let before = book.read("data/test-device/scale.json");
    let stderr = merge_fails(&book, &book.path("shard"), &log);
    assert!(stderr.contains("a time is longer than a day"), "{stderr}");
    assert_eq!(book.read("data/test-device/scale.json"), before);
    assert!(!book.path("data/test-device/copy.json").exists());
}

/// A step of a GitHub Actions job, as far as this test runs it.
#[derive(Debug, Default)]
struct Step {
    name: String,
    uses: String,
    run: String,
    env: Vec<(String, String)>,
}

/// A job: its env and steps.
#[derive(Debug, Default)]
struct Job {
    env: Vec<(String, String)>,
    steps: Vec<Step>,
}

/// The jobs of a workflow written in the plain layout of .github/workflows/record-fleet.yml
/// (two-space indents, one-line `run:`); the test fails loudly if the layout drifts.
fn parse_workflow(text: &str) -> std::collections::BTreeMap<String, Job> {
    let mut jobs = std::collections::BTreeMap::new();
    let (mut in_jobs, mut job, mut section, mut step_env) = (false, String::new(), "", false);
    let kv = |s: &str| {
        let (k, v) = s.split_once(':').unwrap_or((s, ""));
        (k.trim().to_string(), v.trim().to_string())
    };
    for line in text.lines() {
        let body = line.trim_start();
        if body.is_empty() || body.starts_with('#') {
            continue;
        }
        let indent = line.len() - body.len();
        match indent {
            0 => in_jobs = body == "jobs:",
            2 if in_jobs => {
                job = body.trim_end_matches(':').to_string();
                jobs.insert(job.clone(), Job::default());
            }
            4 if in_jobs => {
                section = if body == "env:" {
                    "env"
                } else if body == "steps:" {
                    "steps"
                } else {
                    ""
                }
            }
            6 if in_jobs && section == "env" => jobs.get_mut(&job).unwrap().env.push(kv(body)),
            6 | 8 if in_jobs && section == "steps" => {
                let j = jobs.get_mut(&job).unwrap();
                let body = match body.strip_prefix("- ") {
                    Some(rest) => {
                        j.steps.push(Step::default());
                        rest
                    }
                    None => body,
                };
                let step = j.steps.last_mut().expect("a step");
                let (k, v) = kv(body);
                step_env = k == "env";
                match k.as_str() {
                    "name" => step.name = v,
                    "uses" => step.uses = v,
                    "run" => {
                        assert!(!v.is_empty() && v != "|", "one-line run steps only: {line}");
                        step.run = v
                    }
                    _ => {}
                }
            }
            10 if in_jobs && section == "steps" && step_env => {
                let step = jobs.get_mut(&job).unwrap().steps.last_mut().unwrap();
                step.env.push(kv(body));
            }
            _ => {}
        }
    }
    jobs
}

/// The workflow's `${{ … }}` expressions this test knows the value of; any other one fails it.
fn expand(value: &str, known: &[(&str, &str)]) -> String {
    let mut out = value.to_string();
    while let Some(start) = out.find("${{") {
        let end = out[start..].find("}}").expect("closed expression") + start + 2;
        let expr = out[start + 3..end - 2].trim();
        let (_, v) = known
            .iter()
            .find(|(k, _)| *k == expr)
            .unwrap_or_else(|| panic!("the test does not know `{expr}`"));
        out.replace_range(start..end, v);
    }
    out
}

/// Runs one `run:` step as the runner would (bash, in the checkout, job and step env).
fn run_step(checkout: &Path, job: &Job, step: &Step, known: &[(&str, &str)], log: &Path) {
    let mut cmd = Command::new("bash");
    cmd.args(["-eo", "pipefail", "-c", &step.run])
        .current_dir(checkout)
        .env("GPULAB_WORKER", fake_worker())
        .env("FAKE_WORKER_LOG", log)
        .env_remove("GPULAB_BIN")
        .env_remove("GPULAB_COMMIT");
    for (k, v) in job.env.iter().chain(&step.env) {
        cmd.env(k, expand(v, known));
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "step `{}` failed: {}",
        step.run,
        String::from_utf8_lossy(&out.stderr)
    );
}

/// What `actions/checkout` and the skipped `Build` step leave: the book, and the binary where
/// `cargo build --release` puts it.
fn checkout() -> BookCopy {
    let book = handbook_with_scripts();
    let release = book.path("target/release");
    std::fs::create_dir_all(&release).unwrap();
    std::os::unix::fs::symlink(
        env!("CARGO_BIN_EXE_mdbook-gpulab"),
        release.join("mdbook-gpulab"),
    )
    .unwrap();
    book
}

#[test]
fn github_workflow_steps_record_shards_on_runners_and_merge_them() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let text = std::fs::read_to_string(repo.join(".github/workflows/record-fleet.yml")).unwrap();
    let jobs = parse_workflow(&text);
    let scratch = tempfile::tempdir().unwrap();
    let log = scratch.path().join("fake.log");
    let inputs = [
        ("inputs.shards", "2"),
        ("inputs.rerun && '--rerun' || ''", ""),
    ];

    // plan: the matrix of shards.
    let plan = &jobs["plan"];
    let output = scratch.path().join("github-output");
    let mut step = Step {
        run: plan.steps[0].run.clone(),
        env: plan.steps[0].env.clone(),
        ..Default::default()
    };
    step.env
        .push(("GITHUB_OUTPUT".into(), output.display().to_string()));
    run_step(scratch.path(), plan, &step, &inputs, &log);
    assert_eq!(
        std::fs::read_to_string(&output).unwrap().trim(),
        "shards=[1,2]"
    );

    // record: one runner per shard, each in its own checkout; artifacts collected.
    let record = &jobs["record"];
    let kinds: Vec<&str> = record
        .steps
        .iter()
        .map(|s| {
            if s.uses.is_empty() {
                s.name.as_str()
            } else {
                s.uses.as_str()
            }
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "actions/checkout@v4",
            "Build",
            "Record one shard",
            "actions/upload-artifact@v4"
        ]
    );
    assert_eq!(record.steps[1].run, "cargo build --release --locked");
    let artifacts = scratch.path().join("artifacts");
    for k in ["1", "2"] {
        let runner = checkout();
        let mut known = inputs.to_vec();
        known.push(("matrix.shard", k));
        let gpu = format!("runner{k}");
        let step = &record.steps[2];
        let mut env_step = Step {
            run: step.run.clone(),
            env: step.env.clone(),
            ..Default::default()
        };
        env_step
            .env
            .push(("CUDA_VISIBLE_DEVICES".into(), gpu.clone()));
        run_step(&runner.root, record, &env_step, &known, &log);
        // upload-artifact `path: shards/` → the artifact holds shards/'s contents.
        common::copy_dir(
            &runner.path("shards"),
            &artifacts.join(format!("shard-{k}")),
        );
    }

    // merge: a fresh checkout, every artifact downloaded into shards/ (merge-multiple).
    let merge = &jobs["merge"];
    assert_eq!(merge.steps[1].uses, "actions/download-artifact@v4");
    assert_eq!(merge.steps[2].run, "cargo build --release --locked");
    let book = checkout();
    for a in std::fs::read_dir(&artifacts).unwrap() {
        common::copy_dir(&a.unwrap().path(), &book.path("shards"));
    }
    run_step(&book.root, merge, &merge.steps[3], &inputs, &log);
    assert_eq!(merge.steps[4].uses, "actions/upload-artifact@v4");
    merged_all(&book, &log, &["runner1", "runner2"]);
}

/// Regression (session 10): `merge` took only the recordings, so a shard's library anchors,
/// event-overhead calibration and Nsight Compute check (run by one job of a fleet) were lost. Now
/// each comes over when it is newer than the book's by its own date, with its log; an older one
/// is left out, and a corrupt one fails the merge before anything is written.
#[test]
fn merge_brings_a_shards_newer_anchors_and_checks() {
    let book = BookCopy::handbook();
    let log = book.path("fake.log");
    let h100 = "nvidia-h100-80gb-hbm3";
    let repo_data = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../data")
        .join(h100);
    for sub in ["checks", "anchors"] {
        common::copy_dir(
            &repo_data.join(sub),
            &book.path(&format!("data/{h100}/{sub}")),
        );
    }
    let read = |rel: &str| book.read(&format!("data/{h100}/{rel}"));
    let dated = |text: &str, from: &str, to: &str| {
        assert!(text.contains(from), "{from}");
        text.replace(from, to)
    };
    let (ncu, offset) = (read("checks/ncu.json"), read("checks/event_offset.json"));
    // The book's own dates (they change whenever the check is run again on the GPU).
    let date_of = |text: &str| -> String {
        let v: serde_json::Value = serde_json::from_str(text).unwrap();
        v["date"].as_str().unwrap().to_string()
    };
    let ncu_date = format!("\"date\": \"{}\"", date_of(&ncu));
    let offset_utc = date_of(&offset);
    let offset_date = format!("\"date\": \"{offset_utc}\"");
    // An hour before the book's calibration, written at +02:00: older, though it sorts later as text.
    let older_at_plus_two = (chrono::DateTime::parse_from_rfc3339(&offset_utc).unwrap()
        - chrono::Duration::hours(1))
    .with_timezone(&chrono::FixedOffset::east_opt(2 * 3600).unwrap())
    .to_rfc3339();
    assert!(older_at_plus_two.as_str() > offset_utc.as_str());
    // SYNTHETIC files for this test: the book's own, with their dates moved.
    let shard = book.path("shard");
    common::write_files(
        &shard,
        &[
            (
                &format!("{h100}/checks/ncu.json") as &str,
                &dated(&ncu, &ncu_date, "\"date\": \"2099-01-01T00:00:00Z\"") as &str,
            ),
            (&format!("{h100}/checks/ncu.log"), "the shard's log\n"),
            (
                &format!("{h100}/checks/event_offset.json"),
                &dated(
                    &offset,
                    &offset_date,
                    &format!("\"date\": \"{older_at_plus_two}\""),
                ),
            ),
            (
                "other-gpu/anchors/library.json",
                &read("anchors/library.json"),
            ),
            (
                "undated-gpu/anchors/library.json",
                &read("anchors/library.json").replace("\"recorded_at\"", "\"measured\""),
            ),
        ],
    );
    let stderr = ok(gpulab(&["merge", "--dir"], &log)
        .arg(&book.root)
        .arg(&shard)
        .output()
        .unwrap());
    assert!(
        stderr.contains("2 newer calibration, profiler-check or library-anchor file(s)"),
        "{stderr}"
    );
    assert!(read("checks/ncu.json").contains("2099-01-01T00:00:00Z"));
    assert_eq!(read("checks/ncu.log"), "the shard's log\n");
    assert_eq!(
        read("checks/event_offset.json"),
        offset,
        "an older calibration is left out"
    );
    assert_eq!(
        book.read("data/other-gpu/anchors/library.json"),
        read("anchors/library.json")
    );
    assert!(
        stderr.contains("undated-gpu/anchors/library.json states no date"),
        "{stderr}"
    );
    assert!(!book.path("data/undated-gpu/anchors/library.json").exists());

    // A corrupt file in a shard: nothing is written.
    let bad = book.path("bad-shard");
    common::write_files(
        &bad,
        &[
            ("other-gpu/checks/ncu.json", "{\"date\": "),
            (
                &format!("{h100}/anchors/library.json") as &str,
                &read("anchors/library.json")
                    .replace("2026-11-23T20:44:04Z", "2028-01-01T00:00:00Z")
                    as &str,
            ),
        ],
    );
    let before = read("anchors/library.json");
    let stderr = merge_fails(&book, &bad, &log);
    assert!(
        stderr.contains("other-gpu/checks/ncu.json cannot be parsed"),
        "{stderr}"
    );
    assert_eq!(read("anchors/library.json"), before);

    // The book's own file corrupt: nothing is written, the shard's newer points included.
    book.write("data/other-gpu/anchors/library.json", "{");
    let points = book.path("points-shard");
    ok(gpulab(&["record", "--experiment", "reduction"], &log)
        .arg(&book.root)
        .output()
        .unwrap());
    common::copy_dir(&book.path("data/fake-gpu"), &points.join("fake-gpu"));
    std::fs::remove_dir_all(book.path("data/fake-gpu")).unwrap();
    common::write_files(
        &points,
        &[("other-gpu/anchors/library.json", &before as &str)],
    );
    let stderr = merge_fails(&book, &points, &log);
    assert!(
        stderr.contains("other-gpu/anchors/library.json cannot be parsed"),
        "{stderr}"
    );
    assert!(!book.path("data/fake-gpu").exists(), "points were written");
}

/// A GPU the book has no recordings of joins it: `record` on it (the fake worker standing in)
/// writes its own folder of data/, and a `devices = "all"` directive then shows it beside the
/// book's device in one table (a row each), with an inline value read on it.
#[test]
fn a_gpu_new_to_the_book_is_recorded_and_shown_beside_the_others() {
    let book = BookCopy::new("basic");
    let log = book.path("fake.log");
    book.edit(
        "src/chapter.md",
        "title = \"Scale: time and bandwidth\"",
        "title = \"Scale: time and bandwidth\"\ndevices = \"all\"",
    );
    book.edit(
        "src/chapter.md",
        "none of its numbers is a measurement.",
        "none of its numbers is a measurement. On it: {{#gpulab scale naive.time_ms N=1024 device=new-gpu}}.",
    );
    let recorded = gpulab(&["record"], &log)
        .arg(&book.root)
        .env("FAKE_GPU_SLUG", "new-gpu")
        .output()
        .unwrap();
    ok(recorded);
    assert!(book.path("data/new-gpu/scale.json").is_file());
    ok(gpulab(&["build"], &log).arg(&book.root).output().unwrap());
    let page = book.read("out/chapter.html");
    let first = &page[page.find("<figure class=\"gpulab\"").unwrap()..];
    let first = &first[..first.find("</figure>\n").unwrap()];
    assert_eq!(
        first.matches("<table class=\"gpulab-table\">").count(),
        1,
        "{first}"
    );
    for gpu in ["Fake GPU (tests)", "Synthetic Test GPU (not a measurement)"] {
        assert_eq!(
            first.matches(&format!(">{gpu}</th>")).count(),
            2,
            "a row per size: {first}"
        );
    }
    let on_it = &page[page.find("On it: ").unwrap()..];
    assert!(on_it.contains("data-value=\"1\">1.00\u{a0}ms"), "{on_it}");
}
