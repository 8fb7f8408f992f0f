//! The cost model of a regeneration: predicts the wall time of `record` from the points to run,
//! their recordings (samples, median, why sampling stopped) and their buffers, for an engine
//! [`Profile`] (what the engine caches, overlaps and counts). Pure: it needs no GPU, so changes to
//! the engine can be weighed before a GPU run. Calibrated on the H100 run of 16e018a
//! (`scripts/regen-logs/h100-16e018a-part*.log`, 810 s): the per-point cost outside the samples
//! there was 1.1 s per GB of the point's buffers (fresh host copies page-faulted on every point),
//! plus inputs and CPU references recomputed whenever the parameters changed.

use crate::record::{Outcome, Point};
use crate::value::{ParamValue, params_order};
use std::collections::BTreeMap;

/// How a point is executed, for the schedule: GPU points run in the GPU worker; CPU baselines
/// run beside it (single-threaded, on a CPU of their own) or after it, alone (multi-threaded).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exec {
    Gpu,
    CpuSingle,
    CpuMulti,
}

/// The work of a point's CPU reference.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RefWork {
    /// Checked against another variant (on the GPU): no CPU work.
    None,
    /// A matrix product: multiply-adds, integer or floating point.
    Macs { macs: f64, int: bool },
    /// The `formula` reference: elements × the formula's length in characters.
    Formula { work: f64 },
    /// A streaming reference (transpose, gather, reductions): bytes of its inputs.
    Streaming { bytes: f64 },
}

/// What the model needs to know of one point to run.
#[derive(Debug, Clone)]
pub struct PointFacts {
    pub experiment: String,
    /// The job group (experiment and measurement rules) of the point: one worker job each before
    /// issue 11, one per experiment since.
    pub group: usize,
    /// The point's parameter values (a job runs them in `params_order`; inputs and references
    /// were recomputed whenever they changed).
    pub params: BTreeMap<String, ParamValue>,
    pub exec: Exec,
    /// Its buffers' lengths in bytes (the buffer set: what inputs and references depend on).
    pub set: Vec<u64>,
    /// Bytes of its output buffers.
    pub out_bytes: u64,
    pub reference: RefWork,
    /// Its latest recording (on this kind of GPU if any, else another): what it will cost.
    pub recorded: Option<Point>,
}

/// What an engine does, with its constants (seconds).
#[derive(Debug, Clone, PartialEq)]
pub struct Profile {
    pub name: &'static str,
    /// Worker start, GPU context, spec load and compiles, per job.
    pub job_s: f64,
    /// L2 flush, blocking kernel and event synchronisation per cold sample.
    pub sample_s: f64,
    /// Per point, per byte of all its buffers (upload, output download, copies, comparison).
    pub point_s_per_byte: f64,
    /// Per point, per byte of its output (download into a reused buffer, comparison).
    pub out_s_per_byte: f64,
    /// Per new buffer set, per byte (input generation and one upload).
    pub set_s_per_byte: f64,
    pub mac_int_s: f64,
    pub mac_float_s: f64,
    pub formula_s: f64,
    pub streaming_s_per_byte: f64,
    /// Host cores: a reference computed by a worker pinned to one CPU takes this many times longer.
    pub host_cores: f64,
    /// One job per experiment (not per experiment and rules).
    pub job_per_experiment: bool,
    /// Inputs and references kept per buffer set (not recomputed when only the parameters change).
    pub cache_by_set: bool,
    /// A cold verification run of at least 0.1 s counts as the first sample.
    pub long_first_run_is_sample: bool,
    /// A CPU baseline's first run of at least 0.1 s counts as its first sample (the engine does so
    /// since 9a82b10; the fitted profiles predate the change and keep charging it).
    pub long_first_host_run_is_sample: bool,
    /// Single-threaded CPU baselines beside the GPU work; multi-threaded ones after it.
    pub baselines_beside: bool,
}

/// The engine of 16e018a (the recordings of this session), fitted to its H100 log.
pub const ENGINE_16E018A: Profile = Profile {
    name: "16e018a",
    job_s: 0.5,
    sample_s: 15e-6,
    point_s_per_byte: 1.1e-9,
    out_s_per_byte: 0.0,
    set_s_per_byte: 0.25e-9,
    mac_int_s: 2.9e-11,
    mac_float_s: 4.3e-11,
    formula_s: 7e-10,
    streaming_s_per_byte: 0.1e-9,
    host_cores: 16.0,
    job_per_experiment: false,
    cache_by_set: false,
    long_first_run_is_sample: false,
    long_first_host_run_is_sample: false,
    baselines_beside: false,
};

/// This engine (issue 11). Its new constants are predictions until a GPU run measures them: an
/// output download into a reused buffer at ~4 GB/s with its comparison, one upload per buffer set,
/// and the AVX2 matrix products (measured 2.8× faster for i32, 1.9× for f64 on one core here).
pub const ENGINE_NOW: Profile = Profile {
    name: "now",
    point_s_per_byte: 0.0,
    out_s_per_byte: 0.25e-9,
    set_s_per_byte: 0.4e-9,
    mac_int_s: 1.0e-11,
    mac_float_s: 2.2e-11,
    job_per_experiment: true,
    cache_by_set: true,
    long_first_run_is_sample: true,
    baselines_beside: true,
    ..ENGINE_16E018A
};

/// The floor under today's rules: this engine's schedule with every overhead at zero, so only the
/// time the measured code itself runs while it is measured counts (samples, and a verification run
/// that is not also the first sample). No engine can regenerate faster without other rules.
pub const FLOOR: Profile = Profile {
    name: "floor",
    job_s: 0.0,
    sample_s: 0.0,
    point_s_per_byte: 0.0,
    out_s_per_byte: 0.0,
    set_s_per_byte: 0.0,
    mac_int_s: 0.0,
    mac_float_s: 0.0,
    formula_s: 0.0,
    streaming_s_per_byte: 0.0,
    long_first_host_run_is_sample: true,
    ..ENGINE_NOW
};

/// Predicted seconds of one experiment in each lane of the schedule.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Lanes {
    /// The GPU worker(s).
    pub gpu: f64,
    /// Single-threaded CPU baselines beside the GPU work.
    pub beside: f64,
    /// Multi-threaded CPU baselines after the GPU work, alone.
    pub alone: f64,
}

/// The prediction: per experiment (first-seen order) and in total.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Estimate {
    pub experiments: Vec<(String, usize, Lanes)>,
    pub lanes: Lanes,
}

impl Estimate {
    /// Wall time: the GPU lane and the baselines beside it run together; the alone lane after.
    pub fn total_s(&self) -> f64 {
        self.lanes.gpu.max(self.lanes.beside) + self.lanes.alone
    }
}

/// Seconds of runs of a recorded point under `p` (samples, the warm-up run, sample overheads).
pub fn runs_s(recorded: &Point, p: &Profile) -> f64 {
    let Some(t) = recorded
        .timing
        .as_ref()
        .filter(|_| recorded.outcome == Outcome::Ok)
    else {
        return 0.0;
    };
    let batch = t.median_ms / 1e3 * t.runs_per_sample.max(1) as f64;
    if !batch.is_finite() || batch < 0.0 {
        return 0.0;
    }
    let n = t.samples as f64;
    let only = t.samples == 1 && t.stop == Some(crate::stats::StopReason::Timeout);
    let cold = t.mode == crate::record::TimingMode::Cold;
    let host = t.mode == crate::record::TimingMode::Host;
    let first_is_sample =
        (cold && p.long_first_run_is_sample) || (host && p.long_first_host_run_is_sample);
    let warm_up = if only || (first_is_sample && batch >= 0.1) {
        0.0
    } else {
        batch
    };
    let overhead = if cold { n * p.sample_s } else { 0.0 };
    n * batch + warm_up + overhead
}

/// Seconds a worker spends once per buffer set of `f` (input generation and upload, and its CPU
/// reference), whichever of the set's points it runs first; `cores`: how many times longer the
/// reference takes there (a worker pinned to one CPU).
pub fn set_s(f: &PointFacts, p: &Profile, cores: f64) -> f64 {
    let bytes: u64 = f.set.iter().sum();
    bytes as f64 * p.set_s_per_byte + reference_s(f.reference, p) * cores
}

fn reference_s(r: RefWork, p: &Profile) -> f64 {
    match r {
        RefWork::None => 0.0,
        RefWork::Macs { macs, int: true } => macs * p.mac_int_s,
        RefWork::Macs { macs, int: false } => macs * p.mac_float_s,
        RefWork::Formula { work } => work * p.formula_s,
        RefWork::Streaming { bytes } => bytes * p.streaming_s_per_byte,
    }
}

/// A job of the schedule: experiment, job group (before one job per experiment), lane (0 GPU,
/// 1 beside, 2 alone).
type JobKey = (String, Option<usize>, u8);

/// Predicts a regeneration of `points` (in the order `record` plans them) by `p`.
pub fn estimate(points: &[PointFacts], p: &Profile) -> Estimate {
    let mut out = Estimate::default();
    // Jobs: (experiment, group or none, lane) → the points in it, in order.
    let mut jobs: Vec<(JobKey, Vec<&PointFacts>)> = Vec::new();
    for f in points {
        let lane = match (p.baselines_beside, f.exec) {
            (true, Exec::CpuSingle) => 1,
            (true, Exec::CpuMulti) => 2,
            _ => 0,
        };
        let key = (
            f.experiment.clone(),
            (!p.job_per_experiment).then_some(f.group),
            lane,
        );
        match jobs.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(f),
            None => jobs.push((key, vec![f])),
        }
    }
    for ((experiment, _, lane), mut pts) in jobs {
        // Both engines run a job parameter-major (`Recorder`).
        pts.sort_by(|a, b| params_order(&a.params, &b.params));
        let cores = if lane == 1 { p.host_cores } else { 1.0 };
        let mut s = p.job_s;
        let mut seen: Vec<&[u64]> = Vec::new();
        let mut previous: Option<&BTreeMap<String, ParamValue>> = None;
        for f in &pts {
            if f.recorded
                .as_ref()
                .is_some_and(|r| r.outcome == Outcome::Skipped)
            {
                continue;
            }
            let bytes: u64 = f.set.iter().sum();
            let new_inputs = if p.cache_by_set {
                let new = !seen.contains(&f.set.as_slice());
                if new {
                    seen.push(&f.set);
                }
                new
            } else {
                previous != Some(&f.params)
            };
            if new_inputs {
                s += set_s(f, p, cores);
            }
            previous = Some(&f.params);
            s += bytes as f64 * p.point_s_per_byte + f.out_bytes as f64 * p.out_s_per_byte;
            s += f.recorded.as_ref().map_or(0.0, |r| runs_s(r, p));
        }
        let add = |l: &mut Lanes| match lane {
            1 => l.beside += s,
            2 => l.alone += s,
            _ => l.gpu += s,
        };
        add(&mut out.lanes);
        match out
            .experiments
            .iter_mut()
            .find(|(e, _, _)| *e == experiment)
        {
            Some((_, n, l)) => {
                *n += pts.len();
                add(l);
            }
            None => {
                let mut l = Lanes::default();
                add(&mut l);
                out.experiments.push((experiment, pts.len(), l));
            }
        }
    }
    out
}

#[cfg(test)]
#[path = "estimate_tests.rs"]
mod tests;
