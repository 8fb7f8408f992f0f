//! The cost model of a regeneration: predicts `record`'s wall time from the points, their
//! recordings and buffers, without a GPU (constants fitted to an H100 regeneration).

use crate::record::{Outcome, Point};
use crate::value::{ParamValue, params_order};
use std::collections::BTreeMap;

/// How a point is executed: in the GPU worker, or a CPU baseline beside it or alone after it.
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
    /// The point's parameter values (a job runs them in `params_order`).
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

/// Worker start, GPU context, spec load and compiles, per job (one job per experiment and lane).
const JOB_S: f64 = 0.5;
/// L2 flush, blocking kernel and event synchronisation per cold sample.
const SAMPLE_S: f64 = 15e-6;
/// Per point, per byte of its output (download into a reused buffer, comparison).
const OUT_S_PER_BYTE: f64 = 0.25e-9;
/// Per new buffer set, per byte (input generation and one upload).
const SET_S_PER_BYTE: f64 = 0.4e-9;
const MAC_INT_S: f64 = 1.0e-11;
const MAC_FLOAT_S: f64 = 2.2e-11;
const FORMULA_S: f64 = 7e-10;
const STREAMING_S_PER_BYTE: f64 = 0.1e-9;
/// Host cores: a reference computed by a worker pinned to one CPU takes this many times longer.
const HOST_CORES: f64 = 16.0;

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

/// Seconds of runs of a recorded point: samples, the warm-up run (unless a long cold run was the
/// first sample) and sample overheads.
pub(crate) fn runs_s(recorded: &Point) -> f64 {
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
    let warm_up = if only || (cold && batch >= 0.1) {
        0.0
    } else {
        batch
    };
    let overhead = if cold { n * SAMPLE_S } else { 0.0 };
    n * batch + warm_up + overhead
}

/// Seconds a worker spends once per buffer set of `f` (inputs, upload, CPU reference `cores` times
/// longer on a pinned worker).
pub fn set_s(f: &PointFacts, cores: f64) -> f64 {
    let bytes: u64 = f.set.iter().sum();
    bytes as f64 * SET_S_PER_BYTE + reference_s(f.reference) * cores
}

fn reference_s(r: RefWork) -> f64 {
    match r {
        RefWork::None => 0.0,
        RefWork::Macs { macs, int: true } => macs * MAC_INT_S,
        RefWork::Macs { macs, int: false } => macs * MAC_FLOAT_S,
        RefWork::Formula { work } => work * FORMULA_S,
        RefWork::Streaming { bytes } => bytes * STREAMING_S_PER_BYTE,
    }
}

/// Predicts a regeneration of `points`: one job per experiment and lane ([`Exec`]).
pub fn estimate(points: &[PointFacts]) -> Estimate {
    let mut out = Estimate::default();
    // Jobs: (experiment, lane) → the points in it, in order.
    let mut jobs: Vec<((String, Exec), Vec<&PointFacts>)> = Vec::new();
    for f in points {
        let key = (f.experiment.clone(), f.exec);
        match jobs.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(f),
            None => jobs.push((key, vec![f])),
        }
    }
    for ((experiment, lane), mut pts) in jobs {
        // A job runs parameter-major (`Recorder`).
        pts.sort_by(|a, b| params_order(&a.params, &b.params));
        let cores = if lane == Exec::CpuSingle {
            HOST_CORES
        } else {
            1.0
        };
        let mut s = JOB_S;
        // Inputs and references are made once per buffer set.
        let mut seen: Vec<&[u64]> = Vec::new();
        for f in &pts {
            if f.recorded
                .as_ref()
                .is_some_and(|r| r.outcome == Outcome::Skipped)
            {
                continue;
            }
            if !seen.contains(&f.set.as_slice()) {
                seen.push(&f.set);
                s += set_s(f, cores);
            }
            s += f.out_bytes as f64 * OUT_S_PER_BYTE;
            s += f.recorded.as_ref().map_or(0.0, runs_s);
        }
        let add = |l: &mut Lanes| match lane {
            Exec::CpuSingle => l.beside += s,
            Exec::CpuMulti => l.alone += s,
            Exec::Gpu => l.gpu += s,
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
