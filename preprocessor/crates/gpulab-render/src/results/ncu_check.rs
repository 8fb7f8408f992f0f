//! The Nsight Compute check (```` ```gpulab-ncu-check ````): `checks/ncu.json` and its verdicts.

use super::event_offset::{self, EventOffset};
use crate::record::validate::DeviceSchema;
use crate::record::{DataDir, Outcome, StoreError, Timing, TimingMode};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// `data/<slug>/checks/ncu.json`, as the script writes it (unknown fields, such as old verdicts, ignored).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct NcuCheckFile {
    pub commit: Option<String>,
    pub date: String,
    pub ncu_version: String,
    pub gpu: String,
    pub clock_control: String,
    pub cache_control: BTreeMap<String, String>,
    pub runs_per_point: usize,
    pub targets: Targets,
    pub seconds: f64,
    /// What compiled the kernels the check timed (absent: CuPy, in older checks).
    #[serde(default)]
    pub code: Option<String>,
    /// The GPU's event-overhead calibration when the check ran, if it had one.
    #[serde(default)]
    pub event_offset: Option<EventOffset>,
    /// The engine's own run of the checked points in the same call (absent in older checks).
    #[serde(default)]
    pub same_run: Option<SameRunInfo>,
    pub points: Vec<NcuPoint>,
}

/// How the check timed the points with the engine in its own call.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct SameRunInfo {
    pub command: String,
    pub points_recorded: usize,
    pub seconds: f64,
}

/// What the engine measured of a checked point: the facts a verdict is computed from.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
pub struct EngineTime {
    /// The engine's median as measured.
    pub engine_raw_ms: f64,
    /// Its fastest sample (absent in older checks).
    #[serde(default)]
    pub min_ms: Option<f64>,
    #[serde(default = "one")]
    pub runs_per_sample: usize,
    /// The empty kernel its run timed (`own_empty_kernel_ms` in older checks).
    #[serde(default, alias = "own_empty_kernel_ms")]
    pub empty_kernel_ms: Option<f64>,
}

fn one() -> usize {
    1
}

/// The engine's time of one checked point in the check's own call, beside ncu's.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct SameRunPoint {
    /// `ok`, or the engine's outcome (a failed point has no time and is outside the target).
    pub outcome: String,
    /// Why it failed: a line, or a recording's `{"kind", "message"}` as it stands in the recording.
    #[serde(default)]
    pub failure: Option<serde_json::Value>,
    /// What it measured (a point that failed: nothing).
    #[serde(flatten)]
    pub time: Option<EngineTime>,
    /// For a point outside its target: ncu's median of the engine's own launches of it.
    #[serde(default)]
    pub ncu_engine_launches_ms: Option<f64>,
}

impl SameRunPoint {
    /// The failure as one line (empty when there is none).
    pub(crate) fn failure_text(&self) -> String {
        match &self.failure {
            None | Some(serde_json::Value::Null) => String::new(),
            Some(serde_json::Value::String(s)) => s.clone(),
            Some(serde_json::Value::Object(o)) => ["kind", "message"]
                .iter()
                .filter_map(|k| o.get(*k))
                .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
                .collect::<Vec<_>>()
                .join(": "),
            Some(other) => other.to_string(),
        }
    }
}

/// The allowed deviations: `long` at or above `short_below_us`, `short` below.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Targets {
    pub long: f64,
    pub short: f64,
    pub short_below_us: f64,
}

/// One checked point.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct NcuPoint {
    pub experiment: String,
    pub variant: String,
    pub params: BTreeMap<String, serde_json::Value>,
    pub mode: String,
    pub launches: usize,
    /// ncu's median over the runs of the sum of the point's launches.
    pub ncu_ms: f64,
    /// The recording's timing of the point.
    #[serde(flatten)]
    pub recorded: EngineTime,
    /// A multi-launch cold point whose L2 the script flushed once per run, as the engine per sample.
    #[serde(default)]
    pub flushed_by_script: bool,
    /// The engine's time in the check's own call (the verdict when present).
    #[serde(default)]
    pub same_run: Option<SameRunPoint>,
}

/// The engine against ncu for one timing of a point, as the page shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    pub engine_raw_ms: f64,
    /// The engine's median less the event overhead and the gaps between launches.
    pub engine_ms: f64,
    /// What the correction subtracted per sample (0: nothing).
    pub overhead_ms: f64,
    /// The run's own empty kernel, when the correction used it (else the calibration's offset).
    pub empty_kernel_ms: Option<f64>,
    pub gaps_ms: f64,
    /// `engine_ms / ncu_ms`, and whether it is within the target.
    pub ratio: f64,
    pub within: bool,
    /// `engine_raw_ms / ncu_ms`, and whether it is within the target.
    pub ratio_raw: f64,
    pub within_raw: bool,
}

/// A checked point with its verdicts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row<'a> {
    #[serde(skip)]
    pub point: &'a NcuPoint,
    /// The allowed deviation of its kernel's length.
    pub target: f64,
    /// Against the recording.
    pub recorded: Verdict,
    /// Against the engine in the check's own call (`None`: not run, or it failed).
    pub same_call: Option<Verdict>,
    /// The same call's engine ÷ ncu on the engine's own launches, and whether it is within.
    pub engine_launches: Option<(f64, bool)>,
}

impl Row<'_> {
    /// What the point is judged on: the same call's run if any (`None`: it failed), else the recording.
    fn judged(&self) -> Option<&Verdict> {
        match &self.point.same_run {
            Some(_) => self.same_call.as_ref(),
            None => Some(&self.recorded),
        }
    }

    /// Whether the point is within its target.
    pub fn verdict(&self) -> bool {
        self.judged().is_some_and(|v| v.within)
    }

    /// The engine ÷ ncu ratio the verdict is on.
    pub(crate) fn verdict_ratio(&self) -> Option<f64> {
        self.judged().map(|v| v.ratio)
    }
}

impl NcuCheckFile {
    /// Every point with its verdicts.
    pub fn rows(&self) -> Vec<Row<'_>> {
        self.points.iter().map(|p| self.row(p)).collect()
    }

    fn row<'a>(&self, p: &'a NcuPoint) -> Row<'a> {
        let target = if p.ncu_ms * 1e3 < self.targets.short_below_us {
            self.targets.short
        } else {
            self.targets.long
        };
        let same_call = p
            .same_run
            .as_ref()
            .filter(|s| s.outcome == "ok")
            .and_then(|s| s.time.as_ref())
            .map(|t| self.verdict(p, t, target));
        let engine_launches = same_call
            .as_ref()
            .zip(p.same_run.as_ref().and_then(|s| s.ncu_engine_launches_ms))
            .map(|(v, ms)| {
                let ratio = v.engine_ms / ms;
                (ratio, (ratio - 1.0).abs() <= target)
            });
        Row {
            point: p,
            target,
            recorded: self.verdict(p, &p.recorded, target),
            same_call,
            engine_launches,
        }
    }

    /// One timing `t` of `p` against ncu: corrected as the book corrects a recorded median, less the
    /// calibrated gap once per launch after a sample's first (`n·r − 1` per sample of `r` runs).
    fn verdict(&self, p: &NcuPoint, t: &EngineTime, target: f64) -> Verdict {
        let raw = t.engine_raw_ms;
        let timing = Timing {
            median_ms: raw,
            min_ms: t.min_ms.unwrap_or(raw),
            runs_per_sample: t.runs_per_sample,
            empty_kernel_ms: t.empty_kernel_ms,
            mode: if p.mode == "hot" {
                TimingMode::Hot
            } else {
                TimingMode::Cold
            },
            ..Timing::default()
        };
        let cal = self.event_offset.as_ref();
        let overhead_ms = event_offset::correct(&timing, Outcome::Ok, cal)
            .overhead_ms
            .unwrap_or(0.0);
        let r = t.runs_per_sample.max(1);
        let gaps_ms = cal
            .and_then(|c| c.gap_ms)
            .map_or(0.0, |g| g.max(0.0) * (p.launches * r - 1) as f64 / r as f64);
        let engine_ms = raw - overhead_ms - gaps_ms;
        let within = |ratio: f64| (ratio - 1.0).abs() <= target;
        Verdict {
            engine_raw_ms: raw,
            engine_ms,
            overhead_ms,
            empty_kernel_ms: cal
                .filter(|_| overhead_ms > 0.0)
                .and_then(|c| event_offset::own_empty_kernel(c, t.empty_kernel_ms)),
            gaps_ms,
            ratio: engine_ms / p.ncu_ms,
            within: within(engine_ms / p.ncu_ms),
            ratio_raw: raw / p.ncu_ms,
            within_raw: within(raw / p.ncu_ms),
        }
    }
}

/// One device: its slug and its check, when one was run.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceCheck {
    pub slug: String,
    pub file: Option<NcuCheckFile>,
    /// Why its check file cannot be read (a corrupt file spoils only this device's part).
    pub unreadable: Option<String>,
}

/// What `scripts/ncu_check.py` writes (schema 2; 1 in older checks).
pub(crate) const SCHEMA: DeviceSchema = DeviceSchema {
    schemas: &[1, 2],
    keys: concat!(
        "schema tool commit date ncu_version gpu slug driver cupy metric clock_control ",
        "cache_control cold_flush code warmup_runs runs_per_point targets seconds ",
        "event_offset same_run not_checked summary points ",
    ),
    date: "/date",
};

/// Reads a device's check; `None` when it has none.
pub fn load(data_root: &Path, slug: &str) -> Result<Option<NcuCheckFile>, StoreError> {
    crate::record::store::read_device_file(
        data_root.join(slug).join("checks").join("ncu.json"),
        &SCHEMA,
    )
}

/// Every device with a data folder, with its check, none, or why it cannot be read.
pub fn device_checks(data: &DataDir) -> Result<Vec<DeviceCheck>, StoreError> {
    Ok(data
        .devices()?
        .into_iter()
        .map(|slug| {
            let (file, unreadable) = match load(data.root(), &slug) {
                Ok(file) => (file, None),
                Err(e) => (None, Some(e.to_string())),
            };
            DeviceCheck {
                slug,
                file,
                unreadable,
            }
        })
        .collect())
}

#[cfg(test)]
#[path = "ncu_check_tests.rs"]
mod tests;
