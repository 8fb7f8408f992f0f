//! scripts/ncu_check.py, the independent Nsight Compute check, on a CPU: its dry run plans every point
//! from the specs and finds it recorded, and its own evaluator of the specs resolves every launch exactly
//! as the engine does (otherwise the two would not time the same thing).

use mdbook_gpulab::engine::resolve::{self, Arg, Scalar};
use mdbook_gpulab::engine::sequence::Sequence;
use mdbook_gpulab::record::schema::DeviceRecord;
use mdbook_gpulab::spec::metrics::point_vars;
use mdbook_gpulab::value::ParamValue;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const SLUG: &str = "nvidia-h100-80gb-hbm3";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `scripts/ncu_check.py --dry-run --slug SLUG <option> <path>`, run.
fn dry_run_with(option: &str, path: &Path) -> std::process::Output {
    Command::new("python3")
        .current_dir(root())
        .args(["scripts/ncu_check.py", "--dry-run", "--slug", SLUG, option])
        .arg(path)
        .output()
        .expect("python3 (3.11 or newer, for tomllib) must be installed to run this test")
}

/// Runs the dry run against the H100's recordings; returns its plans (`tag` names this test's file).
fn dry_run(tag: &str) -> Vec<Value> {
    let plans = std::env::temp_dir().join(format!("ncu-plans-{}-{tag}.json", std::process::id()));
    let out = dry_run_with("--json", &plans);
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
    let _ = std::fs::remove_file(&plans);
    all[SLUG].as_array().unwrap().clone()
}

#[test]
fn ncu_check_dry_run_plans_thirty_points_across_every_experiment() {
    let plans = dry_run("count");
    assert!(plans.len() >= 30, "{} points", plans.len());
    let experiments: std::collections::BTreeSet<&str> = plans
        .iter()
        .map(|p| p["experiment"].as_str().unwrap())
        .collect();
    // Every experiment recorded on the H100 (the dry run itself fails when a spec has no point).
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
    let ms = |p: &Value| p["engine_ms"].as_f64().unwrap();
    assert!(
        plans.iter().filter(|p| ms(p) < 0.010).count() >= 5,
        "short kernels"
    );
    assert!(
        plans.iter().filter(|p| ms(p) >= 1.0).count() >= 5,
        "long kernels"
    );
}

#[test]
fn ncu_check_resolves_every_launch_as_the_engine_does() {
    for plan in dry_run("engine") {
        let name = plan["experiment"].as_str().unwrap();
        let variant = plan["variant"].as_str().unwrap();
        let what = format!("{name}/{variant} {}", plan["params"]);
        let exp = mdbook_gpulab::spec::load(&root(), &root().join("kernels"), name).unwrap();
        let v = exp.variant(variant).unwrap();
        let recording: Value = serde_json::from_str(
            &std::fs::read_to_string(root().join(format!("data/{SLUG}/{name}.json"))).unwrap(),
        )
        .unwrap();
        let device: DeviceRecord = serde_json::from_value(recording["device"].clone()).unwrap();
        let mut params: BTreeMap<String, ParamValue> = exp.params.iter().cloned().collect();
        for (k, x) in plan["params"].as_object().unwrap() {
            params.insert(k.clone(), ParamValue::Int(x.as_i64().unwrap()));
        }
        let vars = point_vars(&params, Some(&device));

        // Buffers, in the spec's order.
        let lens = resolve::buffer_lens(&exp, &vars).unwrap();
        let script_lens: Vec<(String, usize)> = plan["buffers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| {
                (
                    b["name"].as_str().unwrap().to_string(),
                    b["len"].as_u64().unwrap() as usize,
                )
            })
            .collect();
        assert_eq!(script_lens, lens, "{what}: buffers");

        // Defines and options (the script adds the engine's fixed options and the include folder).
        let script_opts: Vec<&str> = plan["options"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o.as_str().unwrap())
            .filter(|o| !o.starts_with("-I") && !["-lineinfo", "--std=c++17"].contains(o))
            .collect();
        assert_eq!(
            script_opts,
            resolve::defines(v, &vars).unwrap(),
            "{what}: options"
        );

        // Every launch of a sample: geometry, shared memory, arguments.
        let engine = Sequence::plan(v, &vars).unwrap().describe();
        let launches = plan["launches"].as_array().unwrap();
        assert_eq!(launches.len(), engine.len(), "{what}: launches per sample");
        for (l, (grid, block, shared, args)) in launches.iter().zip(engine) {
            let triple = |x: &Value| -> [u32; 3] {
                let a: Vec<u32> = x
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|n| n.as_u64().unwrap() as u32)
                    .collect();
                [a[0], a[1], a[2]]
            };
            assert_eq!(triple(&l["grid"]), grid, "{what}: grid");
            assert_eq!(triple(&l["block"]), block, "{what}: block");
            assert_eq!(
                l["shared"].as_u64().unwrap() as u32,
                shared,
                "{what}: shared"
            );
            let script_args = l["args"].as_array().unwrap();
            assert_eq!(script_args.len(), args.len(), "{what}: arguments");
            for (s, e) in script_args.iter().zip(args) {
                let (kind, value) = (s[0].as_str().unwrap(), &s[1]);
                match e {
                    Arg::Buffer(b) => assert_eq!(
                        (kind, value.as_str()),
                        ("buffer", Some(b.as_str())),
                        "{what}"
                    ),
                    Arg::PassIn | Arg::PassOut => assert_eq!(kind, "buffer", "{what}"),
                    Arg::Scalar(Scalar::I32(x)) => {
                        assert_eq!((kind, value.as_i64()), ("i32", Some(x as i64)), "{what}")
                    }
                    Arg::Scalar(Scalar::U32(x)) => {
                        assert_eq!((kind, value.as_i64()), ("u32", Some(x as i64)), "{what}")
                    }
                    Arg::Scalar(Scalar::I64(x)) => {
                        assert_eq!((kind, value.as_i64()), ("i64", Some(x)), "{what}")
                    }
                    Arg::Scalar(Scalar::F32(x)) => {
                        assert_eq!((kind, value.as_f64()), ("f32", Some(x as f64)), "{what}")
                    }
                    Arg::Scalar(Scalar::F64(x)) => {
                        assert_eq!((kind, value.as_f64()), ("f64", Some(x)), "{what}")
                    }
                    // The book's experiments pass only these scalar types; scripts/ncu_check.py
                    // mirrors them (a new type there needs a new arm here).
                    other => {
                        panic!("{what}: scalar {other:?} not mirrored by scripts/ncu_check.py")
                    }
                }
            }
        }
    }
}

/// The check's same-call engine run: the scratch copy it prepares lacks exactly the checked points,
/// so `record` there would run those 41 points and nothing else (the cost model's plan, on a CPU),
/// and the book's own recordings are left as they were.
#[test]
fn ncu_check_scratch_copy_makes_record_run_exactly_the_checked_points() {
    let scratch = std::env::temp_dir().join(format!("ncu-scratch-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    let book_recording = root().join(format!("data/{SLUG}/reduction.json"));
    let before = std::fs::read(&book_recording).unwrap();
    let out = dry_run_with("--scratch", &scratch);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    let planned = dry_run("scratch").len();
    assert!(
        text.contains(&format!("({planned} point(s) removed from ")),
        "{text}"
    );
    assert_eq!(std::fs::read(&book_recording).unwrap(), before);
    let experiments: std::collections::BTreeSet<String> = std::fs::read_dir(root().join("kernels"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("experiment.toml").exists())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    let names: Vec<String> = experiments.into_iter().collect();
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
    let _ = std::fs::remove_dir_all(&scratch);
}

/// Runs `code` with `scripts/` as the working folder (so `import ncu_check` works) and reads the
/// numbers it prints.
fn python_floats(code: &str) -> Vec<f64> {
    let out = Command::new("python3")
        .current_dir(root().join("scripts"))
        .args(["-c", code])
        .output()
        .expect("python3");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .map(|v| v.parse().unwrap())
        .collect()
}

/// The gaps between a point's launches (counted by the engine's events, not by ncu's sum of
/// durations) are subtracted once per launch after a sample's first, per run, and only with a
/// calibrated gap.
#[test]
fn ncu_check_subtracts_the_calibrated_gap_once_per_extra_launch() {
    let got = python_floats(
        r#"
import ncu_check as n
cal = {"offset_ms": 0.001, "gap_ms": 0.0006}
one = {"launches": [{}], "runs_per_sample": 1}
three = {"launches": [{}, {}, {}], "runs_per_sample": 1}
hot = {"launches": [{}, {}], "runs_per_sample": 4}
print(n.launch_gaps(cal, one), n.launch_gaps(cal, three), n.launch_gaps(cal, hot), n.launch_gaps(None, three),
      n.launch_gaps({"offset_ms": 0.001}, three), n.launch_gaps(cal, dict(three, clock="kernel")),
      n.launch_gaps({"offset_ms": 0.001, "gap_ms": -0.0001}, three))
"#,
    );
    assert_eq!(got.len(), 7);
    assert_eq!(got[0], 0.0, "one launch: no gap");
    assert!((got[1] - 0.0012).abs() < 1e-12, "three launches: two gaps");
    // Four runs of two launches per sample: seven gaps, 7/4 per run.
    assert!((got[2] - 0.0006 * 7.0 / 4.0).abs() < 1e-12, "{}", got[2]);
    assert_eq!(&got[3..], &[0.0, 0.0, 0.0, 0.0]);
}

/// The Python both overhead tests start from: the module, a calibration (offset 1 µs, ncu's empty
/// kernel 2 µs, the events' 3 µs) and a cold point of 10 µs, one run per sample.
const CALIBRATED_POINT: &str = r#"
import ncu_check as n
cal = {"offset_ms": 0.001, "ncu_ms": 0.002, "events_ms": 0.003}
p = {"engine_ms": 0.010, "runs_per_sample": 1}
"#;

/// The check subtracts what the book does (`results::event_offset::per_launch`): a point whose run
/// timed the empty kernel loses that run's time less the calibration's ncu duration, others (and
/// a run's implausible time, over three times the calibration's) the calibrated offset.
#[test]
fn ncu_check_subtracts_a_runs_own_empty_kernel_as_the_book_does() {
    let got = python_floats(&format!(
        "{CALIBRATED_POINT}{}",
        r#"
print(n.corrected_offset(cal, dict(p, empty_kernel_ms=0.0045)),
      n.corrected_offset(cal, dict(p, empty_kernel_ms=0.0045, runs_per_sample=5)),
      n.corrected_offset(cal, p),
      n.corrected_offset(cal, dict(p, empty_kernel_ms=0.0095)),
      n.corrected_offset(cal, dict(p, empty_kernel_ms=0.0015)),
      n.corrected_offset(cal, dict(p, empty_kernel_ms=0.0045, clock="kernel")))
"#
    ));
    let want = [0.0025, 0.0005, 0.001, 0.001, 0.001, 0.0];
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() < 1e-12, "{got:?} against {want:?}");
    }
}

/// The rows name the empty kernel the check subtracted (the rendered headline gives their range),
/// and none where the calibration applied, where nothing was subtracted (kernel clock, a fastest
/// sample the overhead would take to zero, as the book's `apply`) or with an insane calibration.
#[test]
fn ncu_check_names_the_runs_own_empty_kernel_only_where_it_used_it() {
    let got = python_floats(&format!(
        "{CALIBRATED_POINT}{}",
        r#"
used = [n.subtracted_empty_kernel(cal, dict(p, empty_kernel_ms=e)) for e in (0.0045, 0.0095, 0.0015, None)]
used.append(n.subtracted_empty_kernel(None, dict(p, empty_kernel_ms=0.0045)))
used.append(n.subtracted_empty_kernel(cal, dict(p, empty_kernel_ms=0.0045, clock="kernel")))
# Nothing subtracted (the fastest sample would not stay positive): no empty kernel named.
used.append(n.subtracted_empty_kernel(cal, dict(p, empty_kernel_ms=0.0045, min_ms=0.002)))
# An insane calibration (offset larger than the empty kernel's own time): the book subtracts nothing.
bad = dict(cal, offset_ms=0.004)
used.append(n.subtracted_empty_kernel(bad, dict(p, empty_kernel_ms=0.0045)))
print(*[-1 if u is None else u for u in used], n.corrected_offset(bad, p),
      n.corrected_offset(cal, dict(p, min_ms=0.0009)))
"#
    ));
    assert_eq!(
        got,
        [0.0045, -1.0, -1.0, -1.0, -1.0, -1.0, -1.0, -1.0, 0.0, 0.0]
    );
}
