//! The supervisor's bookkeeping as a state machine, free of processes and clocks: which points
//! have a result, which one runs, and where the next worker resumes.

use super::WorkerError;
use crate::engine::job::{Job, Message};
use crate::engine::phases::PhaseTimes;
use crate::record::{DeviceRecord, Failure, FailureKind, Outcome, Point};
use std::time::Duration;

/// How one worker process ended.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Ending {
    /// Its output closed and it exited successfully.
    Clean,
    /// It was killed after `watchdog_s` seconds without a result (a hung kernel).
    TimedOut { watchdog_s: u64 },
    /// It exited unsuccessfully (a crash, a signal), with its exit status as text.
    Crashed { status: String },
}

/// What `Supervision::on_message` asks of the caller.
#[derive(Debug)]
pub(super) enum Next {
    /// Keep reading this worker's output.
    Read,
    /// The whole job fails (kill the worker): no GPU, no libcuda.
    Abort(WorkerError),
}

/// The least a scaled watchdog allows besides the point's measurement timeout (s).
const WATCHDOG_FLOOR_S: f64 = 10.0;
/// How many times its predicted time a (possibly changed) kernel may run before it counts as hung.
const WATCHDOG_SLACK: f64 = 10.0;

/// The results of one job so far, and which worker run is under way.
#[derive(Debug)]
pub(crate) struct Supervision<'j> {
    job: &'j Job,
    done: Vec<Option<Point>>,
    device: Option<DeviceRecord>,
    /// The job's points the current worker was given, in its order (its message indices).
    order: Vec<usize>,
    /// The point the current worker started and has not finished.
    running: Option<usize>,
    /// Its kernel: `Some(true)` while running (`Message::Kernel`), `Some(false)` once done.
    kernel: Option<bool>,
    /// How long a point may stay silent; the cap of a scaled watchdog.
    watchdog: Duration,
    /// Where the workers' time went (summed over the job's workers).
    phases: PhaseTimes,
}

/// A finished job: its device, one point per job point, and where the time went.
#[derive(Debug)]
pub struct JobOutput {
    pub device: DeviceRecord,
    pub points: Vec<Point>,
    pub phases: PhaseTimes,
}

impl<'j> Supervision<'j> {
    pub(super) fn new(job: &'j Job, watchdog: Duration) -> Self {
        Supervision {
            job,
            done: vec![None; job.points.len()],
            device: None,
            order: Vec::new(),
            running: None,
            kernel: None,
            watchdog,
            phases: PhaseTimes::default(),
        }
    }

    /// The points a new worker must run (those without a result), if any.
    pub(crate) fn next_run(&mut self) -> Option<Job> {
        self.order = (0..self.done.len())
            .filter(|&i| self.done[i].is_none())
            .collect();
        self.running = None;
        let mut sub = self.job.clone();
        sub.points = self.order.iter().map(|&i| sub.points[i].clone()).collect();
        (!sub.points.is_empty()).then_some(sub)
    }

    /// How long the running point may stay silent: while its kernel runs, scaled from its
    /// predicted time; otherwise the job's watchdog, which also caps the scaled one.
    pub(crate) fn watchdog(&self) -> Duration {
        let Some(point) = self.running.map(|i| &self.job.points[i]) else {
            return self.watchdog;
        };
        match (self.kernel, point.predicted_s) {
            (Some(true), Some(p)) if p.is_finite() && p >= 0.0 => {
                let floor = WATCHDOG_FLOOR_S + point.rules_in(self.job).timeout_s;
                Duration::from_secs_f64((WATCHDOG_SLACK * p).max(floor)).min(self.watchdog)
            }
            _ => self.watchdog,
        }
    }

    /// Points with a result, for the progress bar.
    pub(super) fn finished(&self) -> usize {
        self.done.iter().filter(|p| p.is_some()).count()
    }

    /// Whether a point is running, so that silence counts against the watchdog.
    pub(crate) fn is_running(&self) -> bool {
        self.running.is_some()
    }

    /// The progress bar's message for the running point: `shared_2d N=640 M=16 · 2 failed`.
    pub(crate) fn running_label(&self) -> Option<String> {
        let point = &self.job.points[self.running?];
        let mut label = point.variant.clone();
        for (name, value) in &point.params {
            label.push_str(&format!(" {name}={value}"));
        }
        let failed = self.done.iter().flatten();
        let failed = failed.filter(|p| p.outcome == Outcome::Failed).count();
        if failed > 0 {
            label.push_str(&format!(" · {failed} failed"));
        }
        Some(label)
    }

    /// One message of the current worker.
    pub(crate) fn on_message(&mut self, message: Message) -> Next {
        match message {
            Message::Device(d) => self.device = Some(d),
            Message::Start { index } => {
                self.running = self.order.get(index).copied();
                self.kernel = None;
            }
            // Only the point's own kernel: a reference variant's run comes after it.
            Message::Kernel { running } => match (self.kernel, running) {
                (None, true) => self.kernel = Some(true),
                (Some(true), false) => self.kernel = Some(false),
                _ => {}
            },
            Message::Point { index, point } => {
                if let Some(&i) = self.order.get(index) {
                    self.done[i] = Some(*point);
                }
                self.running = None;
            }
            Message::Phases(p) => self.phases.add(&p),
            Message::Fatal { message } => return Next::Abort(WorkerError::Fatal(message)),
            // Only a profiling job answers so, and the counter pass reads it, not the supervisor.
            Message::Profiled { .. } => {}
        }
        Next::Read
    }

    /// The current worker ended: its running point fails with the reason and its stderr's tail; a
    /// worker that returned nothing fails the job; a clean end fails the first point left.
    pub(crate) fn on_end(&mut self, ending: Ending, stderr: &str) -> Result<(), WorkerError> {
        let failure = match &ending {
            Ending::Clean => None,
            Ending::TimedOut { watchdog_s } => Some((
                FailureKind::Timeout,
                format!(
                    "no result after {watchdog_s} s: the kernel hung and its worker was killed"
                ),
            )),
            Ending::Crashed { status } => {
                Some((FailureKind::Crash, format!("worker exited with {status}")))
            }
        };
        match (failure, self.running.take()) {
            (Some((kind, message)), Some(i)) => {
                let message = with_tail(message, stderr);
                self.done[i] = Some(failed_point(self.job, i, kind, message));
                if let Ending::TimedOut { watchdog_s } = ending {
                    self.skip_after_hang(i, watchdog_s);
                }
            }
            (Some((_, message)), None) if self.device.is_none() => {
                return Err(WorkerError::Fatal(format!("{message}: {}", stderr.trim())));
            }
            _ => {}
        }
        // Resume after the last point with a result; a run that moved nowhere costs its point.
        let Some(next) = self.done.iter().position(Option::is_none) else {
            return Ok(());
        };
        if self.order.first() != Some(&next) {
            return Ok(());
        }
        if self.device.is_none() && self.done[next..].iter().all(Option::is_none) {
            return Err(WorkerError::Fatal(format!(
                "the worker produced no result: {}",
                stderr.trim()
            )));
        }
        // The worker ended without reporting this point: record that, move on.
        self.done[next] = Some(failed_point(
            self.job,
            next,
            FailureKind::Crash,
            format!("worker ended without a result: {}", stderr.trim()),
        ));
        Ok(())
    }

    /// A hung kernel costs one watchdog: its variant's points left are recorded skipped, under
    /// their keys, until its code changes.
    fn skip_after_hang(&mut self, hung: usize, watchdog_s: u64) {
        let variant = &self.job.points[hung].variant;
        let reason = format!("an earlier point of this variant hung ({watchdog_s} s watchdog)");
        for (i, slot) in self.done.iter_mut().enumerate() {
            if slot.is_none() && self.job.points[i].variant == *variant {
                let mut point = failed_point(self.job, i, FailureKind::Timeout, reason.clone());
                point.outcome = Outcome::Skipped;
                *slot = Some(point);
            }
        }
    }

    /// The device and one point per job point, once every point has a result.
    pub(super) fn finish(self) -> Result<JobOutput, WorkerError> {
        let device = self
            .device
            .ok_or_else(|| WorkerError::Fatal("the worker reported no device".into()))?;
        Ok(JobOutput {
            device,
            points: self.done.into_iter().flatten().collect(),
            phases: self.phases,
        })
    }
}

/// `message: <last five stderr lines joined by " | ">`, or the message alone.
fn with_tail(message: String, stderr: &str) -> String {
    let lines: Vec<&str> = stderr.lines().collect();
    let tail = lines[lines.len().saturating_sub(5)..].join(" | ");
    if tail.is_empty() {
        message
    } else {
        format!("{message}: {tail}")
    }
}

/// A point that failed outside the worker's control (crash, hang).
fn failed_point(job: &Job, i: usize, kind: FailureKind, message: String) -> Point {
    let jp = &job.points[i];
    Point {
        outcome: Outcome::Failed,
        failure: Some(Failure { kind, message }),
        ..Point::new(&jp.variant, &jp.params, jp.key.as_str(), job.commit.clone())
    }
}
