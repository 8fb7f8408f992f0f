//! The profiled pass (`record --counters`): the points of directives that declare `counters` run
//! once more in a worker under Nsight Compute; the report's launches are matched with the points
//! (`mapping`) and their counters stored beside (never instead of) their timings.

pub mod csv;
pub mod mapping;
pub mod ncu;

use super::job::{JobPoint, MeasureRules, Message};
use super::recorder::Recorder;
use super::supervisor::read_in_thread;
use crate::metrics::counters::{Group, ncu_metrics};
use crate::record::StoreError;
use crate::record::{Counters, Outcome, Point, Recording, SCHEMA_VERSION};
use crate::spec::Exec;
use crate::workspace::Workspace;
use mapping::Ran;
use std::process::Stdio;
use std::time::{Duration, Instant};

/// Why the profiled pass of an experiment stored nothing.
#[derive(Debug, thiserror::Error)]
pub enum CountersError {
    #[error("{0}: the spec does not load")]
    Spec(String),
    #[error("{path}: {message}")]
    Io { path: String, message: String },
    #[error("cannot start ncu: {0}")]
    Start(String),
    #[error("ncu was stopped after {seconds} s: {tail}")]
    Stopped { seconds: u64, tail: String },
    #[error("{experiment}: ncu failed: {tail}")]
    Ncu { experiment: String, tail: String },
    #[error("the profiled worker: {0}")]
    Worker(String),
    #[error("{experiment}: {error}; ncu said: {tail}")]
    Csv {
        experiment: String,
        error: csv::CsvError,
        tail: String,
    },
    #[error("{experiment}: {error}")]
    Mapping {
        experiment: String,
        error: mapping::MappingError,
    },
    #[error(transparent)]
    Store(#[from] StoreError),
}

type Result<T, E = CountersError> = std::result::Result<T, E>;

fn io(path: &std::path::Path, e: impl std::fmt::Display) -> CountersError {
    CountersError::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    }
}

/// The points of one experiment to profile and the counter groups wanted.
#[derive(Debug, Clone)]
pub struct Request {
    pub experiment: String,
    pub groups: Vec<Group>,
    pub points: Vec<JobPoint>,
}

/// Whether the recorded point `p` (verified, at its current `key`) lacks counters of this code or
/// one of `groups`' metrics.
pub fn wants(p: Option<&Point>, key: &str, groups: &[Group]) -> bool {
    let Some(p) = p else { return false };
    if p.outcome != Outcome::Ok || p.key != key {
        return false;
    }
    match p.counters.as_ref().filter(|c| c.current_for(key)) {
        None => true,
        Some(c) => groups
            .iter()
            .flat_map(|g| g.metrics())
            .any(|m| !c.values.contains_key(&m)),
    }
}

/// How long a profiled job may run before it is stopped (ncu replays every kernel several times).
const TIMEOUT: Duration = Duration::from_secs(1800);

/// Profiles `req`'s points on `recorder`'s GPU and stores their counters: how many got them.
pub fn profile(
    ws: &Workspace,
    recorder: &Recorder,
    profiler: &ncu::Ncu,
    req: &Request,
) -> Result<usize> {
    let exp = ws
        .spec(&req.experiment)
        .map_err(|_| CountersError::Spec(req.experiment.clone()))?;
    let points: Vec<JobPoint> = req
        .points
        .iter()
        .filter(|p| {
            exp.variant(&p.variant)
                .is_some_and(|v| matches!(v.exec, Exec::Kernel { .. }))
        })
        .cloned()
        .collect();
    let kernels: Vec<String> = points
        .iter()
        .filter_map(|p| exp.variant(&p.variant))
        .flat_map(|v| v.launches.iter().map(|l| l.kernel.clone()))
        .collect();
    if points.is_empty() {
        return Ok(0);
    }
    let mut job = recorder.job(ws, &req.experiment, MeasureRules::default());
    job.points = points;
    job.profile = true;
    let dir = ws.config.cache_dir(&ws.root).join("counters");
    std::fs::create_dir_all(&dir).map_err(|e| io(&dir, e))?;
    let job_file = dir.join(format!("{}.job.json", req.experiment));
    let text = serde_json::to_string(&job).map_err(|e| io(&job_file, e))?;
    std::fs::write(&job_file, text).map_err(|e| io(&job_file, e))?;
    let exe = std::env::current_exe().map_err(|e| CountersError::Start(e.to_string()))?;
    let worker = vec![
        exe.to_string_lossy().into_owned(),
        "worker".into(),
        "--job".into(),
        job_file.to_string_lossy().into_owned(),
    ];
    let mut cmd = profiler.profile_command(&kernels, &ncu_metrics(&req.groups), &worker);
    if let Some(gpu) = &recorder.gpu {
        cmd.env("CUDA_VISIBLE_DEVICES", gpu);
    }
    let (stdout, stderr, ok) = run_with_timeout(cmd, TIMEOUT)?;
    // ncu's output is kept beside the job, for whoever wants to check the mapping by hand.
    let _ = std::fs::write(dir.join(format!("{}.ncu.txt", req.experiment)), &stdout);
    let (device, ran) = worker_messages(&stdout)?;
    if !ok && ran.is_empty() {
        return Err(CountersError::Ncu {
            experiment: req.experiment.clone(),
            tail: tail(&stderr, &stdout),
        });
    }
    for r in ran.iter().filter(|r| r.error.is_some()) {
        eprintln!(
            "counters: {} point {}: {}",
            req.experiment,
            r.index,
            r.error.as_deref().unwrap_or_default()
        );
    }
    let rows = csv::parse(&stdout).map_err(|error| CountersError::Csv {
        experiment: req.experiment.clone(),
        error,
        tail: tail(&stderr, &stdout),
    })?;
    let mapped = mapping::map(&rows, &ran).map_err(|error| CountersError::Mapping {
        experiment: req.experiment.clone(),
        error,
    })?;
    store(ws, &job.points, &device, &req.experiment, profiler, mapped)
}

/// Runs `cmd` to the end (killed after `timeout`): (stdout, stderr, success).
fn run_with_timeout(
    mut cmd: std::process::Command,
    timeout: Duration,
) -> Result<(String, String, bool)> {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| CountersError::Start(e.to_string()))?;
    let out_thread = read_in_thread(child.stdout.take());
    let err_thread = read_in_thread(child.stderr.take());
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child
            .try_wait()
            .map_err(|e| CountersError::Start(e.to_string()))?
        {
            break Some(status);
        }
        if started.elapsed() > timeout
            || super::supervisor::INTERRUPTED.load(std::sync::atomic::Ordering::SeqCst)
        {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let stdout = out_thread.join().unwrap_or_default();
    let stderr = err_thread.join().unwrap_or_default();
    match status {
        None => Err(CountersError::Stopped {
            seconds: started.elapsed().as_secs(),
            tail: tail(&stderr, &stdout),
        }),
        Some(s) => Ok((stdout, stderr, s.success())),
    }
}

/// The worker's messages among ncu's own lines: the device slug and what each point ran.
fn worker_messages(stdout: &str) -> Result<(String, Vec<Ran>)> {
    let mut device = None;
    let mut ran = Vec::new();
    for line in stdout.lines() {
        match serde_json::from_str::<Message>(line) {
            Ok(Message::Device(d)) => device = Some(d.slug),
            Ok(Message::Profiled {
                index,
                kernels,
                error,
            }) => ran.push(Ran {
                index,
                kernels,
                error,
            }),
            Ok(Message::Fatal { message }) => return Err(CountersError::Worker(message)),
            _ => {}
        }
    }
    let device = device.ok_or_else(|| {
        CountersError::Worker(format!("reported no device: {}", tail(stdout, "")))
    })?;
    Ok((device, ran))
}

/// Stores the mapped counters on the recorded points still at the profiled key (under the lock).
fn store(
    ws: &Workspace,
    job: &[JobPoint],
    device: &str,
    experiment: &str,
    profiler: &ncu::Ncu,
    mapped: Vec<mapping::Mapped>,
) -> Result<usize> {
    let data = ws.data();
    let lock = data.lock()?;
    let Some(rec) = data.load(device, experiment)? else {
        return Ok(0);
    };
    let commit = super::recorder::git_commit(&ws.root);
    let now = chrono::Utc::now();
    let mut changed = Vec::new();
    for m in mapped {
        let Some(jp) = job.get(m.index) else { continue };
        let key = jp.key.on(device);
        let Some(p) = rec
            .points
            .iter()
            .find(|p| p.variant == jp.variant && p.params == jp.params && p.key == key)
        else {
            continue;
        };
        let mut p = p.clone();
        p.counters = Some(Counters {
            key,
            recorded_at: now,
            commit: commit.clone(),
            profiler: profiler.version.clone(),
            settings: ncu::settings_text(),
            launches: m.launches,
            values: m.values,
        });
        changed.push(p);
    }
    let n = changed.len();
    if n > 0 {
        data.merge_and_save(
            &lock,
            Recording {
                schema: SCHEMA_VERSION,
                experiment: experiment.to_string(),
                device: rec.device.clone(),
                points: changed,
            },
        )?;
    }
    Ok(n)
}

/// The last lines of what a process said, for an error message.
fn tail(first: &str, second: &str) -> String {
    let text = if first.trim().is_empty() {
        second
    } else {
        first
    };
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(8)..].join("\n")
}

#[cfg(test)]
#[path = "counters_tests.rs"]
mod tests;
