//! Runs a job in a worker subprocess so that an illegal address, a failed launch or a hung
//! kernel costs only the point that caused it: the parent watches the stream of results,
//! kills a silent worker, marks the point failed and restarts on the rest.

use super::job::{Job, Message};
use crate::record::{DeviceRecord, Failure, FailureKind, Outcome, Point};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Set by the Ctrl-C handler: stop after killing the worker, write nothing partial.
pub static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Errors that stop a whole job.
#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    #[error("cannot start the worker process: {0}")]
    Spawn(std::io::Error),
    #[error("{0}")]
    Fatal(String),
    #[error("interrupted")]
    Interrupted,
}

/// Progress callback: (points done, points total, current variant).
pub type Progress<'a> = &'a mut dyn FnMut(usize, usize, &str);

/// Runs `job` in worker subprocesses, returning the device and one point per job point.
/// `watchdog` is how long a point may run without a result before its worker is killed.
/// `gpu`, when given, is the CUDA_VISIBLE_DEVICES of the workers (one GPU of several).
pub fn run_job(
    job: &Job,
    watchdog: Duration,
    gpu: Option<&str>,
    progress: Progress,
) -> Result<(DeviceRecord, Vec<Point>), WorkerError> {
    let total = job.points.len();
    let mut done: Vec<Option<Point>> = vec![None; total];
    let mut device: Option<DeviceRecord> = None;
    let mut next = 0;
    while next < total {
        if INTERRUPTED.load(Ordering::SeqCst) {
            return Err(WorkerError::Interrupted);
        }
        let mut sub = job.clone();
        sub.points = job.points[next..].to_vec();
        let mut child = spawn(gpu)?;
        if let Some(mut stdin) = child.stdin.take() {
            let _ = stdin.write_all(serde_json::to_string(&sub).unwrap_or_default().as_bytes());
        }
        let stderr = child.stderr.take();
        let err_thread = std::thread::spawn(move || {
            let mut s = String::new();
            if let Some(mut e) = stderr {
                let _ = e.read_to_string(&mut s);
            }
            s
        });
        let (tx, rx) = mpsc::channel::<String>();
        let stdout = child.stdout.take();
        std::thread::spawn(move || {
            if let Some(out) = stdout {
                for line in BufReader::new(out).lines().map_while(Result::ok) {
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            }
        });
        let mut current: Option<usize> = None;
        let mut last = Instant::now();
        let ended = loop {
            if INTERRUPTED.load(Ordering::SeqCst) {
                kill(&mut child);
                return Err(WorkerError::Interrupted);
            }
            match rx.recv_timeout(Duration::from_millis(200)) {
                Ok(line) => {
                    last = Instant::now();
                    match serde_json::from_str::<Message>(&line) {
                        Ok(Message::Device(d)) => device = Some(d),
                        Ok(Message::Start { index }) => {
                            current = Some(next + index);
                            progress(
                                done.iter().filter(|p| p.is_some()).count(),
                                total,
                                &job.points[next + index].variant,
                            );
                        }
                        Ok(Message::Point { index, point }) => {
                            done[next + index] = Some(*point);
                            current = None;
                        }
                        Ok(Message::Fatal { message }) => {
                            kill(&mut child);
                            return Err(WorkerError::Fatal(message));
                        }
                        Err(_) => {} // stray output: ignore
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if current.is_some() && last.elapsed() > watchdog {
                        kill(&mut child);
                        break Some((
                            FailureKind::Timeout,
                            format!(
                                "no result after {} s: the kernel hung and its worker was killed",
                                watchdog.as_secs()
                            ),
                        ));
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    let status = child.wait().ok();
                    break status
                        .filter(|s| !s.success())
                        .map(|s| (FailureKind::Crash, format!("worker exited with {s}")));
                }
            }
        };
        let stderr_text = err_thread.join().unwrap_or_default();
        match (ended, current) {
            (Some((kind, message)), Some(i)) => {
                let tail: String = stderr_text
                    .lines()
                    .rev()
                    .take(5)
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev()
                    .collect::<Vec<_>>()
                    .join(" | ");
                let message = if tail.is_empty() {
                    message
                } else {
                    format!("{message}: {tail}")
                };
                done[i] = Some(failed_point(job, i, kind, message));
            }
            (Some((_, message)), None) if device.is_none() => {
                return Err(WorkerError::Fatal(format!(
                    "{message}: {}",
                    stderr_text.trim()
                )));
            }
            _ => {}
        }
        // Resume after the last point with a result.
        let before = next;
        next = done.iter().position(|p| p.is_none()).unwrap_or(total);
        if next == before && done[next..].iter().all(|p| p.is_none()) && device.is_none() {
            return Err(WorkerError::Fatal(format!(
                "the worker produced no result: {}",
                stderr_text.trim()
            )));
        }
        if next == before {
            // The worker ended cleanly without reporting this point: record that, move on.
            done[next] = Some(failed_point(
                job,
                next,
                FailureKind::Crash,
                format!("worker ended without a result: {}", stderr_text.trim()),
            ));
            next += 1;
        }
    }
    progress(total, total, "");
    let device =
        device.ok_or_else(|| WorkerError::Fatal("the worker reported no device".into()))?;
    Ok((device, done.into_iter().flatten().collect()))
}

/// Environment variable naming the worker command instead of `<this binary> worker`: a wrapper
/// (`compute-sanitizer mdbook-gpulab worker`) or a fake worker in tests. Split on whitespace.
pub const WORKER_ENV: &str = "GPULAB_WORKER";

fn spawn(gpu: Option<&str>) -> Result<Child, WorkerError> {
    let mut cmd = match std::env::var(WORKER_ENV) {
        Ok(line) if !line.trim().is_empty() => {
            let mut words = line.split_whitespace();
            let mut cmd = Command::new(words.next().unwrap_or_default());
            cmd.args(words);
            cmd
        }
        _ => {
            let mut cmd = Command::new(std::env::current_exe().map_err(WorkerError::Spawn)?);
            cmd.arg("worker");
            cmd
        }
    };
    if let Some(gpu) = gpu {
        cmd.env("CUDA_VISIBLE_DEVICES", gpu);
    }
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(WorkerError::Spawn)
}

/// The device a worker opens (on `gpu`, as CUDA_VISIBLE_DEVICES, when given): a job with no
/// points, answered by the worker's first message.
pub fn probe_device(job: &Job, gpu: Option<&str>) -> Result<DeviceRecord, WorkerError> {
    let mut empty = job.clone();
    empty.points.clear();
    let mut child = spawn(gpu)?;
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(serde_json::to_string(&empty).unwrap_or_default().as_bytes());
    }
    let out = child.wait_with_output().map_err(WorkerError::Spawn)?;
    let text = String::from_utf8_lossy(&out.stdout);
    for line in text.lines() {
        match serde_json::from_str::<Message>(line) {
            Ok(Message::Device(d)) => return Ok(d),
            Ok(Message::Fatal { message }) => return Err(WorkerError::Fatal(message)),
            _ => {}
        }
    }
    Err(WorkerError::Fatal(format!(
        "the worker reported no device: {}",
        String::from_utf8_lossy(&out.stderr).trim()
    )))
}

fn kill(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// A point that failed outside the worker's control (crash, hang).
pub fn failed_point(job: &Job, i: usize, kind: FailureKind, message: String) -> Point {
    let jp = &job.points[i];
    Point {
        outcome: Outcome::Failed,
        failure: Some(Failure { kind, message }),
        ..Point::new(&jp.variant, &jp.params, jp.key.as_str(), job.commit.clone())
    }
}
