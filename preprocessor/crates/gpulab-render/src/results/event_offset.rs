//! A device's event-overhead calibration, subtracted from its event-timed points on loading.
//! `data/<slug>/checks/event_offset.json`, written on the GPU by `scripts/event_offset.py`: how much
//! longer the engine's events time an empty kernel than Nsight Compute's `gpu__time_duration`
//! does; a point whose worker timed the empty kernel itself uses that events side instead (the
//! overhead differs between hosts). The recordings keep the raw times.

use crate::record::{DataDir, Outcome, Recording, SampleClock, StoreError, TimingMode};
use serde::Deserialize;

/// `event_offset.json`, as the script writes it (unknown fields ignored).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct EventOffset {
    pub commit: Option<String>,
    pub date: String,
    pub gpu: String,
    pub ncu_version: String,
    /// The empty kernel's median time by the engine's events, ms.
    pub events_ms: f64,
    /// Its median `gpu__time_duration` under Nsight Compute, ms.
    pub ncu_ms: f64,
    /// `events_ms - ncu_ms`: what the event pair adds to one launch.
    pub offset_ms: f64,
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

/// Reads a device's calibration; `None` when it has none.
pub fn load(data: &DataDir, slug: &str) -> Result<Option<EventOffset>, StoreError> {
    crate::record::store::read_json_if_present(
        data.root()
            .join(slug)
            .join("checks")
            .join("event_offset.json"),
    )
}

/// Subtracts the calibration from every verified, event-timed GPU point of `rec`: once per sample,
/// so a hot sample of `r` runs (a batch's time / `r`) loses `offset / r`. Left as they are: CPU
/// baselines, samples timed by the kernel clock, points already corrected, and a point whose
/// median would fall to zero or below (nothing the engine launches is that short). An insane
/// calibration (not finite, or larger than the empty kernel's own time) changes nothing.
pub fn apply(rec: &mut Recording, cal: &EventOffset) {
    if !cal.is_sane() {
        return;
    }
    for p in &mut rec.points {
        if p.outcome != Outcome::Ok {
            continue;
        }
        let Some(t) = p.timing.as_mut() else {
            continue;
        };
        if t.mode == TimingMode::Host
            || t.clock == Some(SampleClock::Kernel)
            || t.event_offset_ms.is_some()
        {
            continue;
        }
        let d = per_launch(cal, t.empty_kernel_ms) / t.runs_per_sample.max(1) as f64;
        if t.median_ms - d <= 0.0 || t.min_ms - d <= 0.0 {
            continue;
        }
        for x in [
            &mut t.median_ms,
            &mut t.min_ms,
            &mut t.max_ms,
            &mut t.q1_ms,
            &mut t.q3_ms,
        ] {
            *x -= d;
        }
        t.event_offset_ms = Some(d);
    }
}

/// What the events added to one launch of a point: its own run's empty kernel (`empty_kernel_ms`,
/// timed by the worker on the point's host) less the device's Nsight Compute duration of it, when
/// the run timed one that is longer than that duration and at most [`RUN_EMPTY_KERNEL_MAX`] times
/// the calibration's; else the device's calibrated offset (whose
/// events side was timed on the calibration's host, which may add less or more per launch).
pub fn per_launch(cal: &EventOffset, empty_kernel_ms: Option<f64>) -> f64 {
    match empty_kernel_ms {
        Some(e) if e.is_finite() && e > cal.ncu_ms && e <= RUN_EMPTY_KERNEL_MAX * cal.events_ms => {
            e - cal.ncu_ms
        }
        _ => cal.offset_ms,
    }
}

/// A run's empty kernel more than this many times the calibration's is taken for a disturbed
/// measurement (a GPU still clocking up, another process's work), not for its host's overhead:
/// the H200 host with the largest overhead seen read 1.6 times its calibration's.
pub const RUN_EMPTY_KERNEL_MAX: f64 = 3.0;

#[cfg(test)]
#[path = "event_offset_tests.rs"]
mod tests;
