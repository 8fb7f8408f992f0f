//! The Nsight Compute check (```` ```gpulab-ncu-check ````): per device, `data/<slug>/checks/ncu.json`
//! (written on the GPU by `scripts/ncu_check.py`): ncu's time of each checked point beside the engine's
//! recorded median and the engine's median in the check's own call, with the check's provenance.

use crate::record::{DataDir, StoreError};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

/// `data/<slug>/checks/ncu.json`, as the script writes it (unknown fields ignored).
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
    /// What compiled the kernels the check timed (the engine's own machine code, or the script's
    /// CuPy compile); absent in older checks, which compiled them with CuPy.
    #[serde(default)]
    pub code: Option<String>,
    /// The event-overhead calibration the check subtracted (as the book does), if the GPU had one.
    #[serde(default)]
    pub event_offset: Option<OffsetUsed>,
    /// The engine's own run of the checked points in the same call, on the same GPU (checks since
    /// the same-call comparison; older ones compared with the recordings only).
    #[serde(default)]
    pub same_run: Option<SameRunInfo>,
    pub points: Vec<NcuPoint>,
}

/// How the check timed the points with the engine in its own call (`mdbook-gpulab record` in a
/// scratch copy of the book without those points).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct SameRunInfo {
    pub command: String,
    pub points_recorded: usize,
    pub seconds: f64,
}

impl SameRunPoint {
    /// The failure as one line (empty when there is none).
    pub fn failure_text(&self) -> String {
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

/// The engine's time of one checked point in the check's own call, beside ncu's.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct SameRunPoint {
    /// `ok`, or the engine's outcome (a failed point has no time and is outside the target).
    pub outcome: String,
    /// Why it failed: a line, or a recording's `{"kind", "message"}` as it stands in the recording.
    #[serde(default)]
    pub failure: Option<serde_json::Value>,
    #[serde(default)]
    pub engine_raw_ms: Option<f64>,
    /// Less the event overhead, as the book shows a recorded median.
    #[serde(default)]
    pub engine_ms: Option<f64>,
    #[serde(default)]
    pub ratio: Option<f64>,
    pub within: bool,
    /// The calibrated gaps between a multi-launch point's launches, subtracted for the comparison
    /// (ncu's sum of durations does not count them).
    #[serde(default)]
    pub launch_gaps_ms: Option<f64>,
    /// The empty kernel this run timed, when its overhead (less ncu's empty kernel) was subtracted
    /// instead of the calibrated one; `None`: the calibration's, or nothing (and in checks before
    /// per-run overheads).
    #[serde(default)]
    pub own_empty_kernel_ms: Option<f64>,
    /// What was subtracted from this run's median as the events' overhead (0: nothing).
    #[serde(default)]
    pub event_offset_ms: Option<f64>,
    /// For a point outside its target: ncu's median of the engine's own launches of it, and the
    /// engine's time against that (a difference of timing, not of launch, when this is outside too).
    #[serde(default)]
    pub ncu_engine_launches_ms: Option<f64>,
    #[serde(default)]
    pub ratio_engine_launches: Option<f64>,
    #[serde(default)]
    pub within_engine_launches: Option<bool>,
}

/// The calibration a check applied (`data/<slug>/checks/event_offset.json` at the time).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct OffsetUsed {
    pub offset_ms: f64,
    pub date: String,
    /// Nsight Compute's time of the empty kernel in that calibration: what a run's own empty kernel
    /// is reduced by (absent in older checks).
    #[serde(default)]
    pub ncu_ms: Option<f64>,
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
    /// The engine's median as the book shows it: the recorded median less the event overhead,
    /// when the check had a calibration (older checks: the recorded median).
    pub engine_ms: f64,
    /// `engine_ms / ncu_ms`.
    pub ratio: f64,
    pub target: f64,
    pub within: bool,
    /// The recorded median, before the event overhead was subtracted (checks with a calibration).
    #[serde(default)]
    pub engine_raw_ms: Option<f64>,
    /// `engine_raw_ms / ncu_ms`, and whether it was within the target.
    #[serde(default)]
    pub ratio_raw: Option<f64>,
    #[serde(default)]
    pub within_raw: Option<bool>,
    /// The calibrated gaps between a multi-launch point's launches, subtracted from `engine_ms`.
    #[serde(default)]
    pub launch_gaps_ms: Option<f64>,
    /// The empty kernel the recording's own run timed, when its overhead was subtracted instead of
    /// the calibrated one (see [`SameRunPoint::own_empty_kernel_ms`]).
    #[serde(default)]
    pub own_empty_kernel_ms: Option<f64>,
    /// What was subtracted from the recorded median as the events' overhead (0: nothing).
    #[serde(default)]
    pub event_offset_ms: Option<f64>,
    /// A cold point of several launches whose L2 the script flushed once per run of the sequence
    /// (ncu's `--cache-control none`), as the engine does per sample.
    #[serde(default)]
    pub flushed_by_script: bool,
    /// The engine's time in the check's own call (the verdict when present).
    #[serde(default)]
    pub same_run: Option<SameRunPoint>,
}

impl NcuPoint {
    /// Whether the point is within its target: against the engine in the same call when the check
    /// ran it, else against the recording.
    pub fn verdict(&self) -> bool {
        self.same_run.as_ref().map_or(self.within, |s| s.within)
    }

    /// The engine ÷ ncu ratio the verdict is on (`None`: the same-call run failed).
    pub fn verdict_ratio(&self) -> Option<f64> {
        match &self.same_run {
            Some(s) => s.ratio,
            None => Some(self.ratio),
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

/// Reads a device's check; `None` when it has none.
pub fn load(data_root: &Path, slug: &str) -> Result<Option<NcuCheckFile>, StoreError> {
    crate::record::store::read_json_if_present(data_root.join(slug).join("checks").join("ncu.json"))
}

/// Every device with a data folder, with its check, none, or why it cannot be read.
pub fn device_checks(data: &DataDir) -> Result<Vec<DeviceCheck>, StoreError> {
    Ok(data
        .devices()?
        .into_iter()
        .map(|slug| match load(data.root(), &slug) {
            Ok(file) => DeviceCheck {
                slug,
                file,
                unreadable: None,
            },
            Err(e) => DeviceCheck {
                slug,
                file: None,
                unreadable: Some(e.to_string()),
            },
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_check_is_none_and_a_present_one_loads() {
        let dir = std::env::temp_dir().join(format!("gpulab-ncu-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("gpu-a/checks")).unwrap();
        std::fs::create_dir_all(dir.join("gpu-b")).unwrap();
        std::fs::write(
            dir.join("gpu-a/checks/ncu.json"),
            r#"{"schema": 1, "commit": "abc", "date": "2026-11-23T18:00:00Z", "ncu_version": "Version 2025.3",
               "gpu": "GPU A", "clock_control": "none", "cache_control": {"cold": "all", "hot": "none"},
               "runs_per_point": 7, "targets": {"long": 0.02, "short": 0.05, "short_below_us": 10},
               "seconds": 42.0, "points": [{"experiment": "copy", "variant": "v", "params": {"N": 1},
               "mode": "cold", "launches": 1, "ncu_ms": 1.0, "engine_ms": 1.01, "ratio": 1.01,
               "target": 0.02, "within": true, "extra": "ignored"}]}"#,
        )
        .unwrap();
        let checks = device_checks(&DataDir::new(&dir)).unwrap();
        assert_eq!(checks.len(), 2);
        // A same-call point that failed, its failure as the recording holds it (an object) or as
        // the script writes it (a line): both load.
        for failure in [
            r#"{"kind": "mismatch", "message": "element 3"}"#,
            r#""mismatch: element 3""#,
        ] {
            let row: NcuPoint = serde_json::from_str(&format!(
                r#"{{"experiment": "copy", "variant": "v", "params": {{"N": 1}}, "mode": "cold",
                   "launches": 1, "ncu_ms": 1.0, "engine_ms": 1.01, "ratio": 1.01, "target": 0.02,
                   "within": true, "same_run": {{"outcome": "failed", "failure": {failure},
                   "within": false}}}}"#
            ))
            .unwrap();
            let same = row.same_run.as_ref().unwrap();
            assert_eq!(same.failure_text(), "mismatch: element 3");
            assert!(!row.verdict());
        }
        assert_eq!(checks[0].file.as_ref().unwrap().points[0].ratio, 1.01);
        assert!(checks[1].file.is_none());
        std::fs::write(dir.join("gpu-a/checks/ncu.json"), "{").unwrap();
        assert!(matches!(
            load(&dir, "gpu-a"),
            Err(StoreError::Unparsable { .. })
        ));
        // A corrupt check spoils its own device only.
        let checks = device_checks(&DataDir::new(&dir)).unwrap();
        assert!(checks[0].file.is_none());
        assert!(
            checks[0]
                .unreadable
                .as_deref()
                .is_some_and(|m| m.contains("cannot be parsed")),
            "{checks:?}"
        );
        assert!(checks[1].unreadable.is_none());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
