//! Runs a job in worker subprocesses so that a fault or a hung kernel costs only its point: a
//! silent worker is killed and restarted on the rest. The bookkeeping is the state machine in
//! `supervisor/state.rs`; this file does the processes and the clock.

mod state;
#[cfg(test)]
mod tests;

use super::job::{Job, Message};
use crate::record::DeviceRecord;
pub use state::JobOutput;
use state::{Ending, Next, Supervision};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Set by the Ctrl-C handler: stop after killing the worker, write nothing partial.
pub(crate) static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Errors that stop a whole job.
#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    #[error("cannot start the worker process: {0}")]
    Spawn(std::io::Error),
    #[error("cannot write the job for the worker: {0}")]
    Encode(serde_json::Error),
    #[error("{0}")]
    Fatal(String),
    #[error("interrupted")]
    Interrupted,
}

/// Where a worker runs: its GPU and the CPUs it may use ([`CPUS_ENV`]); `None`: the environment's.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct WorkerPlace {
    pub gpu: Option<String>,
    pub cpus: Option<String>,
}

/// Environment variable with the CPUs a worker pins itself to (a Linux CPU list, `0-13,15`).
pub(crate) const CPUS_ENV: &str = "GPULAB_WORKER_CPUS";

/// Progress callback: (points done, points total, the point about to run with the failures so far).
pub(crate) type Progress<'a> = &'a mut dyn FnMut(usize, usize, &str);

/// Runs `job` in worker subprocesses at `place`: the device, one point per job point, and where the
/// workers' time went; a point silent for `watchdog` (`Supervision::watchdog`) is killed.
pub(crate) fn run_job(
    job: &Job,
    watchdog: Duration,
    place: &WorkerPlace,
    progress: Progress,
) -> Result<JobOutput, WorkerError> {
    let total = job.points.len();
    let mut state = Supervision::new(job, watchdog);
    loop {
        if INTERRUPTED.load(Ordering::SeqCst) {
            return Err(WorkerError::Interrupted);
        }
        let Some(sub) = state.next_run() else { break };
        let input = serde_json::to_string(&sub).map_err(WorkerError::Encode)?;
        let mut child = spawn(place, &input)?;
        let err_thread = read_in_thread(child.stderr.take());
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
        let mut last = Instant::now();
        let ending = loop {
            if INTERRUPTED.load(Ordering::SeqCst) {
                kill(&mut child);
                return Err(WorkerError::Interrupted);
            }
            match rx.recv_timeout(Duration::from_millis(200)) {
                Ok(line) => {
                    last = Instant::now();
                    // Stray output (not a message) is ignored.
                    let Ok(message) = serde_json::from_str::<Message>(&line) else {
                        continue;
                    };
                    let started = matches!(message, Message::Start { .. });
                    if let Next::Abort(e) = state.on_message(message) {
                        kill(&mut child);
                        return Err(e);
                    }
                    if started {
                        let label = state.running_label().unwrap_or_default();
                        progress(state.finished(), total, &label);
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    let watchdog = state.watchdog();
                    if state.is_running() && last.elapsed() > watchdog {
                        kill(&mut child);
                        break Ending::TimedOut {
                            watchdog_s: watchdog.as_secs(),
                        };
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    break match child.wait() {
                        Ok(status) if !status.success() => Ending::Crashed {
                            status: status.to_string(),
                        },
                        _ => Ending::Clean,
                    };
                }
            }
        };
        let stderr_text = err_thread.join().unwrap_or_default();
        state.on_end(ending, &stderr_text)?;
    }
    progress(total, total, "");
    state.finish()
}

/// Environment variable naming the worker command (a wrapper such as `compute-sanitizer`, a fake).
pub(crate) const WORKER_ENV: &str = "GPULAB_WORKER";

/// Starts a worker at `place` and writes `input` (the job) to its stdin.
fn spawn(place: &WorkerPlace, input: &str) -> Result<Child, WorkerError> {
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
    if let Some(gpu) = &place.gpu {
        cmd.env("CUDA_VISIBLE_DEVICES", gpu);
    }
    if let Some(cpus) = &place.cpus {
        cmd.env(CPUS_ENV, cpus);
    }
    let mut child = (cmd.stdin(Stdio::piped()).stdout(Stdio::piped()))
        .stderr(Stdio::piped())
        .spawn()
        .map_err(WorkerError::Spawn)?;
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(input.as_bytes());
    }
    Ok(child)
}

/// The device a worker opens at `place`: a job with no points, answered by its first message.
pub(crate) fn probe_device(job: &Job, place: &WorkerPlace) -> Result<DeviceRecord, WorkerError> {
    let mut empty = job.clone();
    empty.points.clear();
    let input = serde_json::to_string(&empty).map_err(WorkerError::Encode)?;
    let child = spawn(place, &input)?;
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

/// Reads `from` to its end in a thread of its own (so a full pipe never blocks the child).
pub(crate) fn read_in_thread(
    from: Option<impl Read + Send + 'static>,
) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut s = String::new();
        if let Some(mut r) = from {
            let _ = r.read_to_string(&mut s);
        }
        s
    })
}

fn kill(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}
