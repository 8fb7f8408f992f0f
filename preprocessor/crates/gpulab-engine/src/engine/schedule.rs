//! How a `record` run deals its points among its workers (one per GPU, by predicted cost), and
//! runs them; CPU baselines run on a CPU of their own or alone after the GPU work (DESIGN.md,
//! "CPU baselines and several GPUs").

use super::EngineError;
use super::cpus::{self, CoreOf};
use super::job::{BudgetHints, JobPoint};
use super::recorder::{JobGroup, Recorder};
use super::shard::{self, Bundles, Shard};
use crate::record::Point;
use crate::spec::Exec;
use crate::workspace::Workspace;
use std::collections::HashMap;

/// What dealing a run's points needs to know of them.
pub struct Forecast<'a> {
    /// Each point's predicted seconds, by [`shard::point_id`].
    pub costs: HashMap<String, f64>,
    /// A point's recordings, on this kind of GPU first.
    pub recorded: &'a dyn Fn(&str, &JobPoint) -> Vec<Point>,
    /// The points that share a costly buffer set (asked for only when points are dealt).
    pub bundles: &'a dyn Fn() -> Bundles,
}

/// A worker's recorder and the job groups it records, each with its budget hints.
type Worker = (Recorder, Vec<(JobGroup, BudgetHints)>);

/// One run's workers: those that run at once (GPUs, baselines beside), then the one alone after.
pub struct Schedule {
    together: Vec<Worker>,
    after: Worker,
}

impl Schedule {
    /// Deals `shard`'s share of `all` among `recorders` (one per GPU) and the CPU-baseline workers.
    pub fn new(
        ws: &Workspace,
        recorders: &[Recorder],
        all: &[JobGroup],
        shard: Option<Shard>,
        f: &Forecast,
    ) -> Schedule {
        let dealt = shard.is_some_and(|s| s.count > 1) || recorders.len() > 1;
        let bundles = if dealt { (f.bundles)() } else { Bundles::new() };
        let mine = match shard {
            Some(s) => {
                let costs = shard::costs_of(all, &f.costs);
                let (groups, predicted) =
                    shard::split(all, &costs, &bundles, s.count).swap_remove(s.index);
                eprintln!(
                    "shard {}/{}: {} point(s), predicted {predicted:.0} s",
                    s.index + 1,
                    s.count,
                    count(&groups)
                );
                groups
            }
            None => all.to_vec(),
        };
        let (mine, host) = split_by(ws, mine, |exec| matches!(exec, Exec::Cpu(_)));
        let (beside, alone) = split_by(
            ws,
            host,
            |exec| matches!(exec, Exec::Cpu(name) if super::cpu_baseline::is_multithreaded(name)),
        );
        let mut recorders = recorders.to_vec();
        let (beside_recorder, alone_recorder) = cpu_workers(&mut recorders, !beside.is_empty());
        let (beside, alone) = match &beside_recorder {
            Some(_) => (beside, alone),
            None => (Vec::new(), [beside, alone].concat()),
        };
        for (what, groups, r) in [
            (
                "single-threaded, beside the GPU work on CPU",
                &beside,
                beside_recorder.as_ref(),
            ),
            ("multi-threaded, after the GPU work, alone", &alone, None),
        ] {
            if !groups.is_empty() {
                let predicted: f64 = shard::costs_of(groups, &f.costs).iter().flatten().sum();
                eprintln!(
                    "CPU baselines: {} point(s), {what}{}, predicted {predicted:.0} s",
                    count(groups),
                    r.and_then(|r| r.cpus.as_ref())
                        .map(|c| format!(" {c}"))
                        .unwrap_or_default()
                );
            }
        }
        let per_gpu = per_gpu(&recorders, mine, &f.costs, &bundles);
        // A job whose points were dealt among shards or GPUs learns the sizes run elsewhere.
        let hints = |g: &JobGroup| -> BudgetHints {
            if !dealt {
                return BudgetHints::new();
            }
            let same = all.iter().filter(|a| a.experiment == g.experiment);
            let every: Vec<JobPoint> = same.flat_map(|a| a.points.iter().cloned()).collect();
            shard::budget_hints(g, f.recorded, &every)
        };
        let with_hints = |groups: Vec<JobGroup>| -> Vec<(JobGroup, BudgetHints)> {
            let hinted = |g: JobGroup| {
                let h = hints(&g);
                (g, h)
            };
            groups.into_iter().map(hinted).collect()
        };
        let mut together: Vec<Worker> = recorders
            .into_iter()
            .zip(per_gpu.into_iter().map(&with_hints))
            .collect();
        together.extend(beside_recorder.map(|r| (r, with_hints(beside))));
        Schedule {
            together,
            after: (alone_recorder, with_hints(alone)),
        }
    }

    /// Whether no worker has a point to run.
    pub fn is_empty(&self) -> bool {
        self.together
            .iter()
            .chain([&self.after])
            .all(|(_, groups)| groups.is_empty())
    }

    /// Runs the workers (those at once in threads): points run and failed, and the first error.
    pub fn run(&self, ws: &Workspace) -> (usize, usize, Option<EngineError>) {
        let mut results: Vec<Result<(usize, usize), EngineError>> = std::thread::scope(|scope| {
            let handles: Vec<_> = self
                .together
                .iter()
                .map(|(r, groups)| scope.spawn(|| r.record_groups(ws, groups)))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or(Err(EngineError::Panicked)))
                .collect()
        });
        let (alone, groups) = &self.after;
        if !groups.is_empty() {
            results.push(alone.record_groups(ws, groups));
        }
        let (mut ran, mut failed, mut error) = (0, 0, None);
        for r in results {
            match r {
                Ok((r, f)) => (ran, failed) = (ran + r, failed + f),
                Err(e) => _ = error.get_or_insert(e),
            }
        }
        (ran, failed, error)
    }
}

/// Pins the GPU workers to their CPUs and makes the CPU-baseline workers: one beside them on a
/// CPU of its own (when `beside` and the host can spare one), one after them on every CPU.
fn cpu_workers(recorders: &mut [Recorder], beside: bool) -> (Option<Recorder>, Recorder) {
    let split = cpus::allowed()
        .and_then(|c| cpus::split_for_baseline(&c, &cpus::core_of))
        .filter(|_| beside);
    let gpu_cpus = match &split {
        Some((gpu_cpus, _)) => Some(gpu_cpus.clone()),
        None => cpus::allowed(),
    };
    pin_gpu_workers(
        recorders,
        gpu_cpus.as_deref(),
        split.is_some(),
        &cpus::core_of,
    );
    let beside = split.map(|(_, host_cpu)| Recorder {
        cpus: Some(host_cpu.to_string()),
        ..recorders[0].clone()
    });
    let alone = Recorder {
        cpus: None,
        ..recorders[0].clone()
    };
    (beside, alone)
}

/// Gives each GPU worker a disjoint set of `gpu_cpus` (one's CPU work off another's launch cores);
/// else, when `pin_one` (a baseline runs beside them), all of `gpu_cpus` to each.
fn pin_gpu_workers(
    recorders: &mut [Recorder],
    gpu_cpus: Option<&[usize]>,
    pin_one: bool,
    core_of: CoreOf,
) {
    let Some(gpu_cpus) = gpu_cpus else {
        return;
    };
    match cpus::split_among(gpu_cpus, recorders.len(), core_of) {
        Some(sets) => {
            for (r, set) in recorders.iter_mut().zip(sets) {
                r.cpus = Some(cpus::format_list(&set));
            }
        }
        None if pin_one => {
            for r in recorders.iter_mut() {
                r.cpus = Some(cpus::format_list(gpu_cpus));
            }
        }
        None => {}
    }
}

/// The GPU points dealt among the GPUs' `recorders` by predicted cost (each share printed).
fn per_gpu(
    recorders: &[Recorder],
    groups: Vec<JobGroup>,
    costs: &HashMap<String, f64>,
    bundles: &Bundles,
) -> Vec<Vec<JobGroup>> {
    if recorders.len() <= 1 {
        return vec![groups];
    }
    let split = shard::split(
        &groups,
        &shard::costs_of(&groups, costs),
        bundles,
        recorders.len(),
    );
    split
        .into_iter()
        .zip(recorders)
        .map(|((groups, predicted), r)| {
            eprintln!(
                "GPU {}: {} point(s), predicted {predicted:.0} s{}",
                r.gpu.as_deref().unwrap_or("?"),
                count(&groups),
                r.cpus
                    .as_ref()
                    .map(|c| format!(", on CPUs {c}"))
                    .unwrap_or_default()
            );
            groups
        })
        .collect()
}

/// Splits the groups' points into (those whose variant's execution is not `pick`ed, those that are).
fn split_by(
    ws: &Workspace,
    groups: Vec<JobGroup>,
    pick: impl Fn(&Exec) -> bool,
) -> (Vec<JobGroup>, Vec<JobGroup>) {
    let (mut gpu, mut host) = (Vec::new(), Vec::new());
    for g in groups {
        let exp = ws.spec(&g.experiment).ok();
        let on_host = |p: &JobPoint| {
            exp.as_ref()
                .and_then(|e| e.variant(&p.variant))
                .is_some_and(|v| pick(&v.exec))
        };
        let (h, d): (Vec<JobPoint>, Vec<JobPoint>) = g.points.iter().cloned().partition(on_host);
        for (points, out) in [(d, &mut gpu), (h, &mut host)] {
            if !points.is_empty() {
                out.push(JobGroup {
                    points,
                    ..g.clone()
                });
            }
        }
    }
    (gpu, host)
}

/// How many points the groups hold.
pub fn count(groups: &[JobGroup]) -> usize {
    groups.iter().map(|g| g.points.len()).sum()
}

#[cfg(test)]
#[path = "schedule_tests.rs"]
mod tests;
