//! The supervisor's state machine driven by scripted worker runs: no process, no GPU, no clock.

use super::WorkerError;
use super::state::{Ending, Next, Supervision};
use crate::engine::job::{Job, JobPoint, MeasureRules, Message};
use crate::record::{DeviceRecord, FailureKind, Outcome, Point};
use std::collections::BTreeMap;
use std::time::Duration;

/// The job's watchdog in these tests.
const WATCHDOG: Duration = Duration::from_secs(128);

fn job(n: usize) -> Job {
    Job {
        root: "book".into(),
        kernels_dir: "book/kernels".into(),
        cache_dir: "book/.cache".into(),
        experiment: "synth".into(),
        points: (0..n)
            .map(|i| {
                JobPoint::new(
                    &format!("v{i}"),
                    &BTreeMap::new(),
                    &format!("key{i}").as_str().into(),
                )
            })
            .collect(),
        rules: MeasureRules::default(),
        commit: None,
        run: None,
        budget_hints: Default::default(),
        profile: false,
    }
}

fn device() -> Message {
    Message::Device(crate::record::fixture::device())
}

fn start(index: usize) -> Message {
    Message::Start { index }
}

/// A verified point as the worker reports it (index within the run).
fn ok(job: &Job, run_first: usize, index: usize) -> Message {
    let jp = &job.points[run_first + index];
    Message::Point {
        index,
        point: Box::new(Point::new(&jp.variant, &jp.params, jp.key.as_str(), None)),
    }
}

fn feed(s: &mut Supervision, messages: Vec<Message>) {
    for m in messages {
        assert!(matches!(s.on_message(m), Next::Read));
    }
}

fn failure(p: &Point) -> (FailureKind, &str) {
    let f = p.failure.as_ref().expect("a failed point");
    (f.kind, f.message.as_str())
}

fn finish(s: Supervision) -> (DeviceRecord, Vec<Point>) {
    let out = s.finish().unwrap_or_else(|e| panic!("{e}"));
    (out.device, out.points)
}

#[test]
fn a_clean_run_reports_every_point() {
    let job = job(2);
    let mut s = Supervision::new(&job, WATCHDOG);
    let run = s.next_run().unwrap();
    assert_eq!(run.points.len(), 2);
    feed(
        &mut s,
        vec![device(), start(0), ok(&job, 0, 0), start(1), ok(&job, 0, 1)],
    );
    s.on_end(Ending::Clean, "").unwrap();
    assert!(s.next_run().is_none(), "nothing left to run");
    let (_, points) = finish(s);
    assert!(points.iter().all(|p| p.outcome == Outcome::Ok));
}

#[test]
fn a_crash_fails_the_running_point_with_the_stderr_tail_and_the_rest_resume() {
    let job = job(3);
    let mut s = Supervision::new(&job, WATCHDOG);
    s.next_run().unwrap();
    feed(&mut s, vec![device(), start(0), ok(&job, 0, 0), start(1)]);
    assert!(s.is_running());
    assert_eq!(s.running_label().as_deref(), Some("v1"));
    let stderr = "l1\nl2\nl3\nl4\nl5\nl6\n";
    let ending = Ending::Crashed {
        status: "signal: 6 (SIGABRT)".into(),
    };
    s.on_end(ending, stderr).unwrap();
    // The next worker resumes at the point after the crash.
    let run = s.next_run().unwrap();
    assert_eq!(run.points.len(), 1);
    assert_eq!(run.points[0].variant, "v2");
    feed(&mut s, vec![device(), start(0), ok(&job, 2, 0)]);
    s.on_end(Ending::Clean, "").unwrap();
    assert!(s.next_run().is_none());
    let (_, points) = finish(s);
    assert_eq!(points[0].outcome, Outcome::Ok);
    assert_eq!(points[1].outcome, Outcome::Failed);
    assert_eq!(
        failure(&points[1]),
        (
            FailureKind::Crash,
            "worker exited with signal: 6 (SIGABRT): l2 | l3 | l4 | l5 | l6"
        ),
        "the crash is attributed to the point that was running, with the last five stderr lines"
    );
    assert_eq!(points[2].outcome, Outcome::Ok);
}

#[test]
fn a_timeout_fails_the_hung_point_only() {
    let job = job(2);
    let mut s = Supervision::new(&job, WATCHDOG);
    s.next_run().unwrap();
    feed(&mut s, vec![device(), start(0)]);
    s.on_end(Ending::TimedOut { watchdog_s: 30 }, "").unwrap();
    let run = s.next_run().unwrap();
    assert_eq!(run.points[0].variant, "v1");
    feed(&mut s, vec![device(), start(0), ok(&job, 1, 0)]);
    s.on_end(Ending::Clean, "").unwrap();
    let (_, points) = finish(s);
    assert_eq!(
        failure(&points[0]),
        (
            FailureKind::Timeout,
            "no result after 30 s: the kernel hung and its worker was killed"
        )
    );
    assert_eq!(points[1].outcome, Outcome::Ok);
}

#[test]
fn a_worker_that_ends_cleanly_without_a_result_costs_that_point_and_moves_on() {
    let job = job(3);
    let mut s = Supervision::new(&job, WATCHDOG);
    s.next_run().unwrap();
    // The worker reports point 0, then exits 0 without a word about point 1.
    feed(&mut s, vec![device(), start(0), ok(&job, 0, 0)]);
    s.on_end(Ending::Clean, "").unwrap();
    let run = s.next_run().unwrap();
    assert_eq!(run.points[0].variant, "v1", "resumes after the last result");
    // Again nothing: now the run moved nowhere, so point 1 is marked and skipped over.
    feed(&mut s, vec![device()]);
    s.on_end(Ending::Clean, "bye").unwrap();
    let run = s.next_run().unwrap();
    assert_eq!(run.points[0].variant, "v2");
    feed(&mut s, vec![device(), start(0), ok(&job, 2, 0)]);
    s.on_end(Ending::Clean, "").unwrap();
    let (_, points) = finish(s);
    assert_eq!(
        failure(&points[1]),
        (FailureKind::Crash, "worker ended without a result: bye")
    );
    assert_eq!(points[2].outcome, Outcome::Ok);
}

#[test]
fn a_worker_that_never_reports_a_device_fails_the_job() {
    let job = job(2);
    let mut s = Supervision::new(&job, WATCHDOG);
    s.next_run().unwrap();
    let e = s
        .on_end(Ending::Clean, "libcuda.so: not found\n")
        .unwrap_err();
    assert!(
        matches!(&e, WorkerError::Fatal(m) if m == "the worker produced no result: libcuda.so: not found"),
        "{e}"
    );
}

#[test]
fn a_crash_before_the_device_is_known_fails_the_job() {
    let job = job(1);
    let mut s = Supervision::new(&job, WATCHDOG);
    s.next_run().unwrap();
    let ending = Ending::Crashed {
        status: "exit status: 101".into(),
    };
    let e = s.on_end(ending, " panicked \n").unwrap_err();
    assert!(
        matches!(&e, WorkerError::Fatal(m) if m == "worker exited with exit status: 101: panicked"),
        "{e}"
    );
}

#[test]
fn a_fatal_message_aborts_the_job() {
    let job = job(1);
    let mut s = Supervision::new(&job, WATCHDOG);
    s.next_run().unwrap();
    let next = s.on_message(Message::Fatal {
        message: "no GPU".into(),
    });
    assert!(matches!(next, Next::Abort(WorkerError::Fatal(m)) if m == "no GPU"));
}

#[test]
fn indices_of_a_resumed_run_count_from_its_first_point() {
    let job = job(3);
    let mut s = Supervision::new(&job, WATCHDOG);
    s.next_run().unwrap();
    feed(&mut s, vec![device(), start(0)]);
    s.on_end(Ending::TimedOut { watchdog_s: 5 }, "").unwrap();
    s.next_run().unwrap();
    // Index 1 of the second run is job point 2.
    feed(&mut s, vec![device(), start(0), ok(&job, 1, 0), start(1)]);
    assert!(s.running_label().unwrap().starts_with("v2"));
    feed(&mut s, vec![ok(&job, 1, 1)]);
    assert_eq!(s.finished(), 3);
    s.on_end(Ending::Clean, "").unwrap();
    assert!(s.next_run().is_none());
    let (_, points) = finish(s);
    let variants: Vec<&str> = points.iter().map(|p| p.variant.as_str()).collect();
    assert_eq!(variants, ["v0", "v1", "v2"]);
}

#[test]
fn a_job_without_a_device_report_cannot_finish() {
    let job = job(0);
    let mut s = Supervision::new(&job, WATCHDOG);
    assert!(s.next_run().is_none());
    assert!(
        matches!(s.finish(), Err(WorkerError::Fatal(m)) if m == "the worker reported no device")
    );
}

#[test]
fn the_progress_message_names_the_point_and_the_failures_so_far() {
    let mut job = job(2);
    job.points[1]
        .params
        .insert("N".into(), crate::value::ParamValue::Int(640));
    let mut s = Supervision::new(&job, WATCHDOG);
    s.next_run().unwrap();
    feed(&mut s, vec![device(), start(0)]);
    let ending = Ending::Crashed {
        status: "signal: 11".into(),
    };
    s.on_end(ending, "").unwrap();
    s.next_run().unwrap();
    feed(&mut s, vec![device(), start(0)]);
    assert_eq!(s.running_label().as_deref(), Some("v1 N=640 · 1 failed"));
}

/// A job of points (variant, N, predicted kernel seconds).
fn sweep(points: &[(&str, i64, Option<f64>)]) -> Job {
    let mut j = job(0);
    j.points = points
        .iter()
        .map(|&(v, n, predicted_s)| JobPoint {
            predicted_s,
            ..JobPoint::new(
                v,
                &[("N".to_string(), crate::value::ParamValue::Int(n))].into(),
                &format!("{v}{n}").as_str().into(),
            )
        })
        .collect();
    j
}

/// Regression (issue 35): a spinning kernel took the full watchdog at each of its sizes (a sweep
/// of ten sizes would wait 21 minutes). Its first hang fails that point; the variant's other
/// points are not run, shown so with the reason, never timed; other variants run as before.
#[test]
fn a_hung_variant_costs_one_watchdog_and_its_other_points_are_not_run() {
    let job = sweep(&[
        ("spin", 1, None),
        ("good", 1, None),
        ("spin", 2, None),
        ("good", 2, None),
        ("spin", 3, None),
    ]);
    let mut s = Supervision::new(&job, WATCHDOG);
    s.next_run().unwrap();
    feed(&mut s, vec![device(), start(0)]);
    s.on_end(Ending::TimedOut { watchdog_s: 128 }, "").unwrap();
    let run = s.next_run().unwrap();
    let left: Vec<&str> = run.points.iter().map(|p| p.key.as_str()).collect();
    assert_eq!(
        left,
        ["good1", "good2"],
        "the hung variant's other sizes are not run"
    );
    // Message indices count within the run: index 1 is job point 3.
    let reply = |index: usize| Message::Point {
        index,
        point: Box::new(Point::new("good", &run.points[index].params, "", None)),
    };
    feed(
        &mut s,
        vec![device(), start(0), reply(0), start(1), reply(1)],
    );
    s.on_end(Ending::Clean, "").unwrap();
    assert!(s.next_run().is_none());
    let (_, points) = finish(s);
    assert_eq!(failure(&points[0]).0, FailureKind::Timeout);
    assert_eq!(points[0].outcome, Outcome::Failed);
    for skipped in [&points[2], &points[4]] {
        assert_eq!(skipped.outcome, Outcome::Skipped, "{skipped:?}");
        assert_eq!(
            failure(skipped),
            (
                FailureKind::Timeout,
                "an earlier point of this variant hung (128 s watchdog)"
            )
        );
        assert!(skipped.timing.is_none(), "never a measurement");
        assert_eq!(skipped.key, format!("spin{}", skipped.params["N"]));
    }
    assert_eq!(points[3].outcome, Outcome::Ok);
    assert_eq!(points[3].params, job.points[3].params);
}

#[test]
fn the_watchdog_scales_with_the_predicted_kernel_time_between_a_floor_and_its_cap() {
    let job = sweep(&[
        ("a", 1, Some(0.001)),
        ("a", 2, Some(5.0)),
        ("a", 3, Some(100.0)),
        ("b", 1, None),
    ]);
    let mut s = Supervision::new(&job, WATCHDOG);
    s.next_run().unwrap();
    let kernel = |running| Message::Kernel { running };
    let secs = |s: &Supervision| s.watchdog().as_secs_f64();
    feed(&mut s, vec![device(), start(0)]);
    assert_eq!(secs(&s), 128.0, "inputs, compile: the job's watchdog");
    feed(&mut s, vec![kernel(true)]);
    assert_eq!(
        secs(&s),
        12.0,
        "a 1 ms kernel: the floor, 10 s beyond its 2 s timeout"
    );
    feed(&mut s, vec![kernel(false)]);
    assert_eq!(
        secs(&s),
        128.0,
        "its CPU reference: the job's watchdog again"
    );
    feed(&mut s, vec![kernel(true)]);
    assert_eq!(
        secs(&s),
        128.0,
        "a reference variant's kernel is not predicted"
    );
    let ok = |index| ok(&job, 0, index);
    feed(&mut s, vec![ok(0), start(1), kernel(true)]);
    assert_eq!(secs(&s), 50.0, "ten times its 5 s");
    feed(&mut s, vec![ok(1), start(2), kernel(true)]);
    assert_eq!(secs(&s), 128.0, "never beyond the job's watchdog");
    feed(&mut s, vec![ok(2), start(3), kernel(true)]);
    assert_eq!(secs(&s), 128.0, "nothing recorded predicts it");
}
