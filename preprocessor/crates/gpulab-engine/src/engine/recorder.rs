//! The parent side of live runs: stale points grouped into jobs, run, and merged into `data/`.

use super::EngineError;
use super::job::{BudgetHints, Job, JobPoint, MeasureRules};
use super::live::{LiveRunner, Work};
use super::supervisor::{WorkerError, WorkerPlace, run_job};
use crate::directive::MeasureOverrides;
use crate::record::{Outcome, Recording, SCHEMA_VERSION, TimingMode};
use crate::workspace::Workspace;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::time::Duration;

/// Runs stale points on the local GPU (or on one GPU of several).
#[derive(Default, Clone)]
pub struct Recorder {
    /// Print a one-line summary per experiment on stderr.
    pub verbose: bool,
    /// CUDA_VISIBLE_DEVICES for this recorder's workers; `None`: the environment's.
    pub gpu: Option<String>,
    /// Progress bars of several recorders at once (`record --gpus`).
    pub bars: Option<indicatif::MultiProgress>,
    /// The CPUs its workers may use (a Linux CPU list, `0-13,15`); `None`: every CPU.
    pub cpus: Option<String>,
}

/// The book's measurement defaults with a directive's overrides applied.
pub fn rules_for(ws: &Workspace, o: &MeasureOverrides, budget_s: Option<f64>) -> MeasureRules {
    let c = &ws.config;
    let mut r = MeasureRules::default();
    r.min_samples = o.min_samples.or(c.min_samples).unwrap_or(r.min_samples);
    r.max_samples = o
        .max_samples
        .or(c.max_samples)
        .unwrap_or(r.max_samples)
        .max(r.min_samples);
    r.noise = o.noise.or(c.noise).unwrap_or(r.noise);
    r.timeout_s = o.timeout_s.or(c.timeout_s).unwrap_or(r.timeout_s);
    r.mode = o.mode.unwrap_or(TimingMode::Cold);
    r.budget_s = budget_s.or(c.budget_s).unwrap_or(r.budget_s);
    r
}

/// The current commit (short): `GPULAB_COMMIT` (a tree without `.git`), else git's, if any.
pub fn git_commit(root: &std::path::Path) -> Option<String> {
    if let Ok(c) = std::env::var("GPULAB_COMMIT")
        && !c.trim().is_empty()
    {
        return Some(c.trim().to_string());
    }
    let out = std::process::Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .current_dir(root)
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
        .filter(|s| !s.is_empty())
}

fn progress_bar(total: usize) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
    if !std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    bar.set_style(
        ProgressStyle::with_template(
            "{prefix:>24} [{bar:30}] {pos}/{len} {msg} ({elapsed}, eta {eta})",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    bar
}

impl Recorder {
    /// Runs and records job groups, each experiment's as one job ([`merge_groups`]), with their
    /// budget hints (`shard::budget_hints`); returns (points run, points failed).
    pub fn record_groups(
        &self,
        ws: &Workspace,
        groups: &[(JobGroup, BudgetHints)],
    ) -> Result<(usize, usize), EngineError> {
        let (mut ran, mut failed) = (0, 0);
        for job in merge_groups(groups) {
            let (r, f) = self.record_job(ws, job)?;
            ran += r;
            failed += f;
        }
        Ok((ran, failed))
    }

    /// Runs one experiment's job and merges its points into the recording.
    fn record_job(
        &self,
        ws: &Workspace,
        (merged, hints): (JobGroup, BudgetHints),
    ) -> Result<(usize, usize), EngineError> {
        if merged.points.is_empty() {
            return Ok((0, 0));
        }
        let started = std::time::Instant::now();
        let experiment = merged.experiment.as_str();
        let mut job = self.job(ws, experiment, merged.rules.clone());
        job.points = merged.points;
        job.budget_hints = hints;
        let mut bar = progress_bar(job.points.len());
        if let Some(multi) = &self.bars {
            bar = multi.add(bar);
        }
        bar.set_prefix(match &self.gpu {
            Some(g) => format!("gpu {g}: {experiment}"),
            None => experiment.to_string(),
        });
        let slowest = job
            .points
            .iter()
            .map(|p| p.rules_in(&job))
            .map(|r| r.timeout_s * 4.0 + r.budget_s * 3.0 + 60.0)
            .fold(60.0, f64::max);
        let watchdog = Duration::from_secs_f64(ws.config.watchdog_s.unwrap_or(slowest));
        let result = run_job(
            &job,
            watchdog,
            &self.place(),
            &mut |done, _total, variant| {
                bar.set_position(done as u64);
                bar.set_message(variant.to_string());
            },
        );
        bar.finish_and_clear();
        let super::supervisor::JobOutput {
            device,
            mut points,
            phases,
        } = result.map_err(|error| match error {
            WorkerError::Interrupted => EngineError::Interrupted,
            error => EngineError::Worker {
                experiment: experiment.to_string(),
                error,
            },
        })?;
        name_device_in_keys(&job.points, &mut points, &device.slug);
        let count = |o: Outcome| points.iter().filter(|p| p.outcome == o).count();
        let (failed, skipped) = (count(Outcome::Failed), count(Outcome::Skipped));
        let ran = points.len();
        let data = ws.data();
        let lock = data.lock()?;
        let path = data.merge_and_save(
            &lock,
            Recording {
                schema: SCHEMA_VERSION,
                experiment: experiment.to_string(),
                device,
                points,
            },
        )?;
        if self.verbose {
            let on = self.gpu.as_ref().map(|g| format!(" on GPU {g}"));
            let cpus = self.cpus.as_ref().map(|c| format!(" (CPUs {c})"));
            let (on, cpus) = (on.unwrap_or_default(), cpus.unwrap_or_default());
            eprintln!(
                "recorded {ran} point(s) of `{experiment}` ({failed} failed, {skipped} not run){on}{cpus} in {} in {:.1} s\n    time: {}",
                path.display(),
                started.elapsed().as_secs_f64(),
                phases.summary()
            );
        }
        Ok((ran, failed))
    }

    /// Where this recorder's workers run (GPU, CPUs).
    fn place(&self) -> WorkerPlace {
        WorkerPlace {
            gpu: self.gpu.clone(),
            cpus: self.cpus.clone(),
        }
    }

    /// The device this recorder's workers open, asked of a worker.
    pub fn device(&self, ws: &Workspace) -> Result<crate::record::DeviceRecord, EngineError> {
        let job = self.job(ws, "", MeasureRules::default());
        super::supervisor::probe_device(&job, &self.place()).map_err(EngineError::Probe)
    }

    /// A job of `experiment` for this recorder's workers, with no points yet.
    pub(crate) fn job(&self, ws: &Workspace, experiment: &str, rules: MeasureRules) -> Job {
        Job {
            root: ws.root.clone(),
            kernels_dir: ws.config.kernels_dir(&ws.root),
            cache_dir: ws.config.cache_dir(&ws.root),
            experiment: experiment.to_string(),
            points: Vec::new(),
            commit: git_commit(&ws.root),
            run: Some(run_id().to_string()),
            rules,
            budget_hints: BudgetHints::new(),
            profile: false,
        }
    }
}

/// This process's recording run: its start time and process id, the same for every job it sends.
pub(crate) fn run_id() -> &'static str {
    static RUN: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    RUN.get_or_init(|| {
        format!(
            "{}-{}",
            chrono::Utc::now().format("%Y%m%dT%H%M%SZ"),
            std::process::id()
        )
    })
}

/// Sets each point's recorded key: its job point's key on the device the worker reported.
fn name_device_in_keys(job: &[JobPoint], points: &mut [crate::record::Point], device: &str) {
    for p in points {
        if let Some(jp) = job
            .iter()
            .find(|jp| jp.variant == p.variant && jp.params == p.params)
        {
            p.key = jp.key.on(device);
        }
    }
}

/// One worker job: an experiment's points that share measurement rules.
#[derive(Debug, Clone)]
pub struct JobGroup {
    pub experiment: String,
    pub rules: MeasureRules,
    pub points: Vec<JobPoint>,
}

/// Groups `work` into jobs, one per experiment and distinct measurement rules; the first
/// directive that names a point decides its rules.
pub fn job_groups(ws: &Workspace, work: &[Work]) -> Vec<JobGroup> {
    let mut groups: Vec<JobGroup> = Vec::new();
    for w in work {
        let rules = rules_for(ws, &w.directive.measure, w.directive.budget_s);
        for p in &w.points {
            let queued = groups.iter().any(|g| {
                g.experiment == w.experiment.name
                    && g.points
                        .iter()
                        .any(|q| q.variant == p.variant && q.params == p.params)
            });
            if queued {
                continue;
            }
            let point = JobPoint::new(&p.variant, &p.params, &p.key);
            match groups
                .iter_mut()
                .find(|g| g.experiment == w.experiment.name && g.rules == rules)
            {
                Some(g) => g.points.push(point),
                None => groups.push(JobGroup {
                    experiment: w.experiment.name.clone(),
                    rules: rules.clone(),
                    points: vec![point],
                }),
            }
        }
    }
    groups
}

impl LiveRunner for Recorder {
    fn device(&self) -> Result<String, EngineError> {
        super::local_device_slug()
    }

    fn refresh(&self, ws: &Workspace, work: &[Work]) -> Result<usize, EngineError> {
        let groups: Vec<(JobGroup, BudgetHints)> = job_groups(ws, work)
            .into_iter()
            .map(|g| (g, BudgetHints::new()))
            .collect();
        Ok(self.record_groups(ws, &groups)?.0)
    }
}

/// The groups of each experiment merged into one job with the first group's rules (a point of
/// another group carries its own), sorted parameter-major so inputs and CPU references are made
/// once per values and sizes ascend for the budget rule; a variant's first budget hint wins.
pub(crate) fn merge_groups(groups: &[(JobGroup, BudgetHints)]) -> Vec<(JobGroup, BudgetHints)> {
    let mut jobs: Vec<(JobGroup, BudgetHints)> = Vec::new();
    for (g, hints) in groups {
        let i = match jobs.iter().position(|j| j.0.experiment == g.experiment) {
            Some(i) => i,
            None => {
                let first = JobGroup {
                    points: Vec::new(),
                    ..g.clone()
                };
                jobs.push((first, BudgetHints::new()));
                jobs.len() - 1
            }
        };
        let (job, job_hints) = &mut jobs[i];
        let own = (g.rules != job.rules).then(|| g.rules.clone());
        job.points.extend(g.points.iter().map(|p| JobPoint {
            rules: own.clone(),
            ..p.clone()
        }));
        for (variant, hint) in hints {
            job_hints.entry(variant.clone()).or_insert(*hint);
        }
    }
    for (job, _) in &mut jobs {
        job.points
            .sort_by(|a, b| crate::value::params_order(&a.params, &b.params));
    }
    jobs
}

#[cfg(test)]
#[path = "recorder_tests.rs"]
mod tests;
