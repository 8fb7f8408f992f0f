//! `mdbook-gpulab record`: runs every missing or stale point on this machine's GPU(s) into `data/`.

use super::point_facts::{recorded_points, set_bundles};
use crate::engine::Work;
use crate::engine::job::JobPoint;
use crate::engine::recorder::{JobGroup, Recorder, job_groups};
use crate::engine::schedule::{Forecast, Schedule};
use crate::engine::shard::{self, Shard};
use crate::plan::plan;
use crate::results::Recordings;
use crate::workspace::{FoundDirective, Workspace};
use std::collections::HashMap;
use std::path::Path;
use std::process::ExitCode;

/// `--gpus`: every visible GPU, or a list of CUDA device ordinals / UUIDs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Gpus {
    All,
    List(Vec<String>),
}

impl Gpus {
    pub(super) fn parse(s: &str) -> Result<Gpus, String> {
        if s.trim() == "all" {
            return Ok(Gpus::All);
        }
        let list: Vec<String> = s.split(',').map(|g| g.trim().to_string()).collect();
        if list
            .iter()
            .any(|g| g.is_empty() || g.contains(char::is_whitespace))
        {
            return Err(format!(
                "`{s}`: expected `all` or GPU ordinals separated by commas, e.g. 0,1"
            ));
        }
        Ok(Gpus::List(list))
    }

    fn resolve(&self) -> anyhow::Result<Vec<String>> {
        match self {
            Gpus::List(l) => Ok(l.clone()),
            Gpus::All => {
                let n = crate::gpu::device_count()?;
                anyhow::ensure!(n > 0, "no NVIDIA GPU is visible");
                Ok((0..n).map(|i| i.to_string()).collect())
            }
        }
    }
}

/// What to record: `record`'s options.
#[derive(clap::Args)]
pub(super) struct RecordArgs {
    /// Run again even if current: every experiment, or the one named.
    #[arg(long, num_args = 0..=1, default_missing_value = "", value_parser = super::parse_rerun)]
    pub rerun: Option<String>,
    /// Also run again every point that none of these commits recorded (after a change to how
    /// points are measured: name the commits that measure the new way, e.g. this one).
    #[arg(long, value_delimiter = ',', value_name = "COMMIT")]
    pub rerun_unless_from: Vec<String>,
    /// Only shard K of N (K/N): the points are dealt to N shards balanced by predicted
    /// time, the same way on every machine (Slurm job arrays, CI matrices).
    #[arg(long, value_parser = Shard::parse)]
    pub shard: Option<Shard>,
    /// Only these experiments (repeat it, or separate names with commas).
    #[arg(long, value_delimiter = ',')]
    pub experiment: Vec<String>,
    /// Run a worker on each of these GPUs at once: `all`, or ordinals such as 0,1.
    #[arg(long, value_parser = Gpus::parse)]
    pub gpus: Option<Gpus>,
    /// Then profile the points of directives that declare `counters` under Nsight Compute
    /// (`ncu` on PATH or $NCU) and store their hardware counters; skipped without ncu.
    #[arg(long)]
    pub counters: bool,
    /// Predict the run's wall time without a GPU (on the book's first recorded device, or the
    /// device slug given), per experiment, from the recordings and the engine's cost model.
    /// With --rerun: a regeneration on a cold cache.
    /// `--estimate` alone, or `--estimate=DEVICE` (with `=`, so that a book folder after it is
    /// not taken for a device).
    #[arg(long, num_args = 0..=1, default_missing_value = "", require_equals = true, conflicts_with_all = ["gpus", "counters"])]
    pub estimate: Option<String>,
}

impl RecordArgs {
    /// `record --rerun` of these experiments (all when empty).
    #[cfg(test)]
    pub(super) fn rerun_of(experiment: Vec<String>) -> RecordArgs {
        RecordArgs {
            rerun: Some(String::new()),
            rerun_unless_from: Vec::new(),
            shard: None,
            experiment,
            gpus: None,
            counters: false,
            estimate: None,
        }
    }
}

pub(super) fn run(dir: &Path, args: RecordArgs) -> anyhow::Result<ExitCode> {
    crate::engine::install_interrupt_handler();
    let (ws, found) = super::book::load(dir)?;
    let invalid: Vec<_> = found
        .iter()
        .filter_map(|f| f.parsed.as_ref().err())
        .flatten()
        .cloned()
        .collect();
    if !invalid.is_empty() {
        crate::preprocess::report(&invalid);
        anyhow::bail!("fix the invalid directives first (`mdbook-gpulab check`)");
    }
    // Before touching the GPU: every recording it could merge into parses, and data/ is writable.
    let mut experiments: Vec<String> = found
        .iter()
        .filter_map(|f| f.parsed.as_ref().ok())
        .map(|(_, exp)| exp.name.clone())
        .collect();
    experiments.sort();
    experiments.dedup();
    let data = ws.data();
    data.check_readable(&experiments)
        .map_err(|e| anyhow::anyhow!("{e}; fix or remove it, then record again"))?;
    data.check_writable()?;
    let recorders = recorders(&args.gpus)?;
    let device = device_of(&ws, &recorders)?;
    let mut recordings = Recordings::new(ws.data())?;
    let mut all = groups_to_run(&ws, &found, &mut recordings, &device, &args)?;
    if crate::engine::recorder::git_commit(&ws.root).is_none() {
        eprintln!(
            "warning: no git commit found (set GPULAB_COMMIT): these recordings will not name the code that made them"
        );
    }
    let recorded =
        |experiment: &str, p: &JobPoint| recorded_points(&recordings, &device, experiment, p);
    shard::set_predictions(&mut all, &recorded);
    let forecast = Forecast {
        costs: predicted(&all, &recordings, &device),
        recorded: &recorded,
        bundles: &|| set_bundles(&ws, &all, &recordings, &device),
    };
    let schedule = Schedule::new(&ws, &recorders, &all, args.shard, &forecast);
    if schedule.is_empty() {
        eprintln!("nothing to run: every selected point is recorded and current");
        counters_pass(dir, &args, &recorders)?;
        return Ok(ExitCode::SUCCESS);
    }
    let started = std::time::Instant::now();
    let started_at = chrono::Utc::now();
    let (ran, failed, error) = schedule.run(&ws);
    eprintln!(
        "recorded {ran} point(s), {failed} failed, in {:.1} s on {device}{}",
        started.elapsed().as_secs_f64(),
        if recorders.len() > 1 {
            format!(" ({} GPUs)", recorders.len())
        } else {
            String::new()
        }
    );
    for line in super::record_report::report(&ws.data(), &found, &device, started_at) {
        eprintln!("{line}");
    }
    if let Some(e) = error {
        return Err(e.into());
    }
    counters_pass(dir, &args, &recorders)?;
    Ok(ExitCode::SUCCESS)
}

/// `--counters`: the profiled pass after the timing pass, on the first GPU (in shard 1 only).
fn counters_pass(dir: &Path, args: &RecordArgs, recorders: &[Recorder]) -> anyhow::Result<()> {
    if !args.counters || args.shard.is_some_and(|s| s.index != 0) {
        return Ok(());
    }
    let gpu = recorders.first().and_then(|r| r.gpu.clone());
    let profiler = crate::engine::counters::ncu::find();
    super::record_counters::run(dir, &args.experiment, gpu, &profiler)
}

/// The job groups to run on `device`: missing or stale points (every point with `--rerun`).
pub(super) fn groups_to_run(
    ws: &Workspace,
    found: &[FoundDirective],
    recordings: &mut Recordings,
    device: &str,
    args: &RecordArgs,
) -> anyhow::Result<Vec<JobGroup>> {
    let rerun_one = args.rerun.as_ref().filter(|e| !e.is_empty());
    let only = &args.experiment;
    super::book::require_experiments(found, only.iter().chain(rerun_one))?;
    let mut work: Vec<Work> = Vec::new();
    for f in found {
        let Ok((d, exp)) = &f.parsed else { continue };
        if !only.is_empty() && !only.contains(&exp.name) {
            continue;
        }
        let force = args
            .rerun
            .as_ref()
            .is_some_and(|e| e.is_empty() || *e == exp.name);
        let planned = plan(d, exp, &ws.sources)?;
        recordings.preload(exp)?;
        let points = if force {
            planned
        } else {
            let mut points = recordings.to_run(device, d, exp, &planned)?;
            if !args.rerun_unless_from.is_empty() {
                let from = &args.rerun_unless_from;
                for p in recordings.recorded_by_other_commits(device, exp, &planned, from)? {
                    if !points
                        .iter()
                        .any(|q| q.variant == p.variant && q.params == p.params)
                    {
                        points.push(p);
                    }
                }
            }
            points
        };
        if !points.is_empty() {
            work.push(Work {
                directive: d.clone(),
                experiment: exp.clone(),
                points,
            });
        }
    }
    Ok(job_groups(ws, &work))
}

/// Each point's predicted seconds (by `shard::point_id`), from its recordings.
fn predicted(all: &[JobGroup], recordings: &Recordings, device: &str) -> HashMap<String, f64> {
    let recorded =
        |experiment: &str, p: &JobPoint| recorded_points(recordings, device, experiment, p);
    shard::cost_map(all, &shard::predict(all, &recorded))
}

/// One recorder per GPU of `--gpus`; one with the environment's GPU otherwise.
fn recorders(gpus: &Option<Gpus>) -> anyhow::Result<Vec<Recorder>> {
    let Some(gpus) = gpus else {
        return Ok(vec![Recorder {
            verbose: true,
            ..Default::default()
        }]);
    };
    let list = gpus.resolve()?;
    let bars = (list.len() > 1).then(indicatif::MultiProgress::new);
    Ok(list
        .into_iter()
        .map(|g| Recorder {
            verbose: true,
            gpu: Some(g),
            bars: bars.clone(),
            cpus: None,
        })
        .collect())
}

/// The device slug the recorders' workers open; every GPU of one run must be of one kind.
fn device_of(ws: &Workspace, recorders: &[Recorder]) -> anyhow::Result<String> {
    let mut slug: Option<(String, String)> = None;
    for r in recorders {
        let d = r.device(ws)?;
        let gpu = r.gpu.clone().unwrap_or_else(|| "0".into());
        match &slug {
            None => slug = Some((d.slug, gpu)),
            Some((s, first)) if *s != d.slug => anyhow::bail!(
                "GPU {first} is {s} but GPU {gpu} is {}: record one kind of GPU at a time (e.g. --gpus {first})",
                d.slug
            ),
            Some(_) => {}
        }
    }
    slug.map(|(s, _)| s)
        .ok_or_else(|| anyhow::anyhow!("no GPU to record on"))
}

#[cfg(test)]
#[path = "record_tests.rs"]
mod tests;
