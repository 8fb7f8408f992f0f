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
mod tests {
    use super::*;
    use crate::engine::schedule::count;

    /// Bundles keep what one worker makes once: every point of a bundle has the same buffer
    /// lengths and reference, CPU baselines and `formula` references are never bundled, and the
    /// costly sets (SGEMM's and matmul_widuch's references) are.
    #[test]
    fn bundles_of_the_handbook_share_their_set_and_reference_only() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let (ws, found) = super::super::book::load(&root).unwrap();
        let mut recordings = Recordings::new(ws.data()).unwrap();
        let device = "nvidia-h200";
        let all = groups_to_run(
            &ws,
            &found,
            &mut recordings,
            device,
            &RecordArgs::rerun_of(Vec::new()),
        )
        .unwrap();
        let bundles = set_bundles(&ws, &all, &recordings, device);
        let mut by_bundle: std::collections::BTreeMap<&str, Vec<&JobPoint>> = Default::default();
        for g in &all {
            let exp = ws.spec(&g.experiment).unwrap();
            for p in &g.points {
                let Some((set, _)) = bundles.get(&crate::engine::shard::point_id(&g.experiment, p))
                else {
                    continue;
                };
                let variant = exp.variant(&p.variant).unwrap();
                assert!(
                    !matches!(variant.exec, crate::spec::Exec::Cpu(_)),
                    "a CPU baseline bundled: {} {p:?}",
                    g.experiment
                );
                assert!(
                    !matches!(&exp.verify_for(variant).reference, crate::spec::Reference::Builtin(r) if r == "formula"),
                    "a formula reference bundled: {} {p:?}",
                    g.experiment
                );
                by_bundle.entry(set).or_default().push(p);
            }
        }
        assert!(by_bundle.keys().any(|s| s.starts_with("sgemm")));
        assert!(by_bundle.keys().any(|s| s.starts_with("matmul_widuch")));
        for (set, points) in &by_bundle {
            let n: std::collections::BTreeSet<_> = points
                .iter()
                .map(|p| p.params.get("N").map(|v| v.typed_text()))
                .collect();
            assert_eq!(n.len(), 1, "{set}: sizes {n:?} in one bundle");
        }
    }

    /// The balance promised for `--shard K/N` and `--gpus`, on the handbook's own recordings.
    #[test]
    fn shards_of_the_handbook_partition_its_points_and_balance_within_10_percent() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let (ws, found) = super::super::book::load(&root).unwrap();
        let mut recordings = Recordings::new(ws.data()).unwrap();
        let devices = ws.data().devices().unwrap();
        assert!(
            !devices.is_empty(),
            "the handbook has no recordings to predict from"
        );
        let args = RecordArgs::rerun_of(Vec::new());
        for device in devices {
            let all = groups_to_run(&ws, &found, &mut recordings, &device, &args).unwrap();
            let costs = predicted(&all, &recordings, &device);
            let bundles = super::set_bundles(&ws, &all, &recordings, &device);
            assert!(
                bundles.values().any(|(set, _)| set.starts_with("sgemm")),
                "{device}: SGEMM's references are worth keeping together"
            );
            let total: usize = all.iter().map(|g| g.points.len()).sum();
            assert!(total > 500, "{device}: only {total} points planned");
            let mut ids: Vec<String> = all
                .iter()
                .flat_map(|g| g.points.iter().map(|p| shard::point_id(&g.experiment, p)))
                .collect();
            ids.sort();
            for n in [2, 4, 8] {
                let shards = shard::split(&all, &shard::costs_of(&all, &costs), &bundles, n);
                // No buffer set worth keeping together is made by two shards.
                let mut shard_of_set: HashMap<&str, usize> = HashMap::new();
                for (k, (gs, _)) in shards.iter().enumerate() {
                    for g in gs {
                        for p in &g.points {
                            if let Some((set, _)) = bundles.get(&shard::point_id(&g.experiment, p))
                            {
                                let first = *shard_of_set.entry(set).or_insert(k);
                                assert_eq!(first, k, "{device}, N={n}: set {set:?} in two shards");
                            }
                        }
                    }
                }
                let mut got: Vec<String> = shards
                    .iter()
                    .flat_map(|(gs, _)| {
                        gs.iter().flat_map(|g| {
                            g.points.iter().map(|p| shard::point_id(&g.experiment, p))
                        })
                    })
                    .collect();
                got.sort();
                assert_eq!(
                    got, ids,
                    "{device}, N={n}: the shards must partition the points"
                );
                let loads: Vec<f64> = shards.iter().map(|s| s.1).collect();
                let mean = loads.iter().sum::<f64>() / n as f64;
                let max = loads.iter().cloned().fold(0.0, f64::max);
                eprintln!(
                    "{device} N={n}: predicted {loads:.1?} s, max/mean {:.3}",
                    max / mean
                );
                assert!(max / mean <= 1.1, "{device}, N={n}: {loads:?}");
            }
        }
    }

    /// `--rerun-unless-from C` plans exactly the points whose recording names no commit of C (plus
    /// the missing or stale ones, of which the handbook has none), on the handbook's recordings.
    #[test]
    fn rerun_unless_from_plans_the_points_the_listed_commits_did_not_record() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let (ws, found) = super::super::book::load(&root).unwrap();
        let mut recordings = Recordings::new(ws.data()).unwrap();
        let device = ws.data().devices().unwrap()[0].clone();
        let every = groups_to_run(
            &ws,
            &found,
            &mut recordings,
            &device,
            &RecordArgs::rerun_of(Vec::new()),
        )
        .unwrap();
        // The commit of each planned point's recording on this device; points with none are
        // missing, and planned whatever the commits named.
        let mut commits: HashMap<String, usize> = HashMap::new();
        let mut missing = 0;
        for g in &every {
            for p in &g.points {
                let mine = recordings
                    .of(&g.experiment)
                    .into_iter()
                    .find(|r| r.device.slug == device)
                    .and_then(|r| {
                        r.points
                            .iter()
                            .find(|q| q.variant == p.variant && q.params == p.params)
                    });
                match mine.filter(|q| q.measured_the_current_way()) {
                    Some(q) => {
                        *commits
                            .entry(q.commit.clone().unwrap_or_default())
                            .or_default() += 1
                    }
                    None => missing += 1,
                }
            }
        }
        let recorded: usize = commits.values().sum();
        let (top, top_n) = commits
            .iter()
            .max_by_key(|(_, n)| **n)
            .map(|(c, n)| (c.clone(), *n))
            .unwrap();
        let mut planned = |from: Vec<String>| -> usize {
            let args = RecordArgs {
                rerun: None,
                rerun_unless_from: from,
                ..RecordArgs::rerun_of(Vec::new())
            };
            count(&groups_to_run(&ws, &found, &mut recordings, &device, &args).unwrap())
        };
        assert_eq!(
            planned(Vec::new()),
            missing,
            "the missing and older-method points"
        );
        assert_eq!(
            planned(vec![top.clone()]),
            missing + recorded - top_n,
            "{device}: all but {top}'s"
        );
        assert_eq!(planned(commits.keys().cloned().collect()), missing);
        assert_eq!(planned(vec!["0000000".into()]), missing + recorded);
    }

    #[test]
    fn gpus_parse() {
        assert_eq!(Gpus::parse("all"), Ok(Gpus::All));
        assert_eq!(
            Gpus::parse("0, 1"),
            Ok(Gpus::List(vec!["0".into(), "1".into()]))
        );
        assert!(Gpus::parse("0,,1").is_err());
    }
}
