//! The job a worker subprocess runs and the messages it streams back, one JSON line each.

use crate::key::PointKey;
use crate::record::{DeviceRecord, Point, TimingMode};
use crate::value::ParamValue;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Measurement rules for a job (book defaults with a directive's overrides applied).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct MeasureRules {
    pub min_samples: usize,
    pub max_samples: usize,
    pub noise: f64,
    pub min_time_s: f64,
    pub timeout_s: f64,
    /// Cold (L2 flushed per sample) or hot (no flush, launches batched).
    pub mode: TimingMode,
    /// Points whose single run exceeds this are not timed further (CPU baselines, long sequences).
    pub budget_s: f64,
}

impl Default for MeasureRules {
    fn default() -> Self {
        let s = crate::stats::StopRule::default();
        MeasureRules {
            min_samples: s.min_samples,
            max_samples: s.max_samples,
            noise: s.noise_target,
            min_time_s: s.min_time_s,
            timeout_s: s.timeout_s,
            mode: TimingMode::Cold,
            budget_s: 20.0,
        }
    }
}

/// One point to run.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct JobPoint {
    pub variant: String,
    pub params: BTreeMap<String, ParamValue>,
    /// The key without the device, which the recorder adds once the worker names it.
    pub key: PointKey,
    /// This point's rules when they differ from the job's (another directive's `measure`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<MeasureRules>,
    /// Seconds its kernel runs, as a verified recording predicts (`shard::set_predictions`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub predicted_s: Option<f64>,
}

impl JobPoint {
    /// A point that follows its job's rules.
    pub fn new(variant: &str, params: &BTreeMap<String, ParamValue>, key: &PointKey) -> JobPoint {
        JobPoint {
            variant: variant.to_string(),
            params: params.clone(),
            key: key.clone(),
            rules: None,
            predicted_s: None,
        }
    }

    /// The rules this point is measured by in `job`.
    pub(crate) fn rules_in<'a>(&'a self, job: &'a Job) -> &'a MeasureRules {
        self.rules.as_ref().unwrap_or(&job.rules)
    }
}

/// The product of a point's numeric parameters: the budget rule's and cost model's size proxy.
pub fn size_of(params: &BTreeMap<String, ParamValue>) -> f64 {
    params
        .values()
        .filter_map(|v| v.as_f64())
        .map(|x| x.abs().max(1.0))
        .product()
}

/// Per variant, a recorded (size, seconds per run) that the budget rule starts from.
pub(crate) type BudgetHints = BTreeMap<String, (f64, f64)>;

/// What the parent sends a worker on stdin.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Job {
    pub root: PathBuf,
    pub kernels_dir: PathBuf,
    pub cache_dir: PathBuf,
    pub experiment: String,
    pub points: Vec<JobPoint>,
    pub rules: MeasureRules,
    pub commit: Option<String>,
    /// The recording run's id (one per `record` or live build), stamped on every point.
    #[serde(default)]
    pub run: Option<String>,
    /// Per variant, a recorded (size, seconds per run) from other shards (`shard::budget_hints`).
    #[serde(default)]
    pub budget_hints: BudgetHints,
    /// The profiled pass (`record --counters`): each point's launches run once, untimed.
    #[serde(default)]
    pub profile: bool,
}

/// What a worker prints on stdout, one per line.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Message {
    /// First line: the device the worker opened.
    Device(DeviceRecord),
    /// A point is starting (the watchdog and the progress bar use it).
    Start { index: usize },
    /// The running point's kernel starts or stops running (the watchdog scales in between).
    Kernel { running: bool },
    /// A point finished (ok, failed or skipped).
    Point { index: usize, point: Box<Point> },
    /// A point's launches ran once for the profiler: each launch's kernel, or why not.
    Profiled {
        index: usize,
        kernels: Vec<String>,
        error: Option<String>,
    },
    /// The worker's last line: where its time went.
    Phases(super::phases::PhaseTimes),
    /// The worker cannot run at all (no GPU, no libcuda): the whole job fails with this.
    Fatal { message: String },
}
