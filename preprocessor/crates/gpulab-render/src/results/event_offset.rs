//! The event-overhead correction, computed when a time is [`shown`] and never stored.

use crate::metrics::{Source, builtin};
use crate::record::validate::DeviceSchema;
use crate::record::{DataDir, Outcome, Point, StoreError, Timing, TimingMode};
use serde::Deserialize;

/// `event_offset.json`, as the script writes it (unknown fields ignored), or as the ncu check copies it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct EventOffset {
    pub commit: Option<String>,
    pub date: String,
    #[serde(default)]
    pub gpu: String,
    #[serde(default)]
    pub ncu_version: String,
    /// The empty kernel's median time by the engine's events, ms.
    pub events_ms: f64,
    /// Its median `gpu__time_duration` under Nsight Compute, ms.
    pub ncu_ms: f64,
    /// `events_ms - ncu_ms`: what the event pair adds to one launch.
    pub offset_ms: f64,
    /// The gap between back-to-back launches that ncu's sum of durations does not count.
    #[serde(default)]
    pub gap_ms: Option<f64>,
}

impl EventOffset {
    /// A usable calibration: finite, and smaller than the empty kernel's own event time.
    fn is_sane(&self) -> bool {
        [self.events_ms, self.ncu_ms, self.offset_ms]
            .iter()
            .all(|x| x.is_finite())
            && self.ncu_ms > 0.0
            && self.offset_ms.abs() < self.events_ms
    }
}

/// What `scripts/event_offset.py` writes.
pub(crate) const SCHEMA: DeviceSchema = DeviceSchema {
    schemas: &[1],
    keys: concat!(
        "schema tool commit date gpu slug kernel ncu_version metric clock_control ",
        "cache_control events_ms events ncu_ms ncu_runs_ms offset_ms ",
        "events_two_launches_ms events_two_launches gap_ms ",
    ),
    date: "/date",
};

/// Reads a device's calibration; `None` when it has none.
pub fn load(data: &DataDir, slug: &str) -> Result<Option<EventOffset>, StoreError> {
    crate::record::store::read_device_file(
        data.root()
            .join(slug)
            .join("checks")
            .join("event_offset.json"),
        &SCHEMA,
    )
}

/// A timing as the book shows it: the stored statistics less the event overhead of one sample.
#[derive(Debug, Clone, PartialEq)]
pub struct Shown {
    /// The stored timing with median, quartiles, min and max less [`Shown::overhead_ms`].
    pub timing: Timing,
    /// What was subtracted from each statistic, when anything was.
    pub overhead_ms: Option<f64>,
}

/// The one event-overhead correction: `t` less what `cal` says the events added to each sample
/// (nothing off a CPU baseline, an unverified point, or a time it would take to zero).
pub fn correct(t: &Timing, outcome: Outcome, cal: Option<&EventOffset>) -> Shown {
    let overhead_ms = cal
        .filter(|c| c.is_sane() && outcome == Outcome::Ok && t.mode != TimingMode::Host)
        .map(|c| per_launch(c, t.empty_kernel_ms) / t.runs_per_sample.max(1) as f64)
        .filter(|d| t.median_ms - d > 0.0 && t.min_ms - d > 0.0);
    let mut timing = t.clone();
    if let Some(d) = overhead_ms {
        for x in [
            &mut timing.median_ms,
            &mut timing.min_ms,
            &mut timing.max_ms,
            &mut timing.q1_ms,
            &mut timing.q3_ms,
        ] {
            *x -= d;
        }
    }
    Shown {
        timing,
        overhead_ms,
    }
}

/// A point's timing as the book shows it (see [`correct`]); `None` when it has none.
pub fn shown(p: &Point, cal: Option<&EventOffset>) -> Option<Shown> {
    Some(correct(p.timing.as_ref()?, p.outcome, cal))
}

/// A metric of a verified point as the book shows it: a timing statistic from [`shown`], else stored.
pub fn metric(p: &Point, cal: Option<&EventOffset>, name: &str) -> Option<f64> {
    let base = name.split_once('.').map_or(name, |(b, _)| b);
    if builtin(base).is_some_and(|b| b.source == Source::Timing) {
        let suffix = name.split_once('.').map_or("", |(_, s)| s);
        return shown(p, cal)
            .filter(|_| p.outcome == Outcome::Ok)?
            .timing
            .stat(suffix);
    }
    p.metric(name)
}

/// The run's own empty kernel when plausible: longer than ncu's, at most [`RUN_EMPTY_KERNEL_MAX`] times the calibration's.
pub(crate) fn own_empty_kernel(cal: &EventOffset, empty_kernel_ms: Option<f64>) -> Option<f64> {
    empty_kernel_ms
        .filter(|e| e.is_finite() && *e > cal.ncu_ms && *e <= RUN_EMPTY_KERNEL_MAX * cal.events_ms)
}

/// What the events added to one launch: the run's own empty kernel less ncu's when plausible, else
/// the calibrated offset (timed on another host, which may add less or more).
pub fn per_launch(cal: &EventOffset, empty_kernel_ms: Option<f64>) -> f64 {
    own_empty_kernel(cal, empty_kernel_ms).map_or(cal.offset_ms, |e| e - cal.ncu_ms)
}

/// Beyond this many times the calibration's, a run's empty kernel is a disturbed measurement, not its host's overhead.
pub(crate) const RUN_EMPTY_KERNEL_MAX: f64 = 3.0;

#[cfg(test)]
#[path = "event_offset_tests.rs"]
mod tests;
