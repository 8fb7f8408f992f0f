//! What `record` says about the quality of the points it just recorded.

use crate::record::{DataDir, Point};
use crate::render::quality::{Concern, above_peak, concerns};
use crate::results::{derive_metrics, event_offset};
use crate::workspace::FoundDirective;
use std::collections::BTreeMap;

/// The report's lines for the points of `device` recorded at or after `since`, or none.
pub(super) fn report(
    data: &DataDir,
    found: &[FoundDirective],
    device: &str,
    since: chrono::DateTime<chrono::Utc>,
) -> Vec<String> {
    let mut experiments = BTreeMap::new();
    for f in found {
        if let Ok((_, exp)) = &f.parsed {
            experiments.insert(exp.name.clone(), exp.clone());
        }
    }
    let mut counts: BTreeMap<Concern, usize> = BTreeMap::new();
    let mut implausible = Vec::new();
    // The numbers as the page shows them: less the calibrated event overhead, where there is one.
    let calibration = event_offset::load(data, device).unwrap_or_else(|e| {
        eprintln!("warning: {e}; the counts below use uncorrected times");
        None
    });
    let mut recorded = 0;
    let mut empty_kernel_ms = Vec::new();
    for (name, exp) in &experiments {
        let Ok(Some(mut rec)) = data.load(device, name) else {
            continue;
        };
        derive_metrics(&mut rec, exp, calibration.as_ref());
        for p in rec.points.iter().filter(|p| p.recorded_at >= since) {
            recorded += 1;
            empty_kernel_ms.extend(p.timing.as_ref().and_then(|t| t.empty_kernel_ms));
            for c in concerns(p, &rec.device) {
                *counts.entry(c).or_default() += 1;
            }
            if let Some(why) = above_peak(p, &rec.device) {
                implausible.push(format!("  {name} {}: {why}", describe(p)));
            }
        }
    }
    let mut out = lines(&counts, &implausible);
    out.extend(uncalibrated_note(device, recorded, calibration.is_some()));
    if let Some(c) = &calibration {
        out.extend(host_note(device, &mut empty_kernel_ms, c));
    }
    out
}

/// The least difference (µs) from the calibration's empty kernel that `record` mentions (one host spreads 0.2 µs).
const HOST_NOTE_US: f64 = 0.25;

/// Said when this run's empty kernel is at least [`HOST_NOTE_US`] away from `device`'s calibration.
fn host_note(
    device: &str,
    empty_kernel_ms: &mut [f64],
    cal: &event_offset::EventOffset,
) -> Option<String> {
    empty_kernel_ms.sort_by(f64::total_cmp);
    let here = *empty_kernel_ms.get(empty_kernel_ms.len() / 2)?;
    let (here_us, there_us) = (here * 1e3, cal.events_ms * 1e3);
    ((here_us - there_us).abs() >= HOST_NOTE_US).then(|| {
        format!(
            "note: on this host the events time the empty kernel at {here_us:.2} µs, against \
             {there_us:.2} µs where {device}'s event-overhead calibration was made: short \
             kernels read about {:.2} µs {} here than there; the page subtracts this run's own \
             overhead ({:.2} µs per launch) from these points (How we measure, \"The overhead \
             belongs to the host\")",
            (here_us - there_us).abs(),
            if here_us > there_us {
                "longer"
            } else {
                "shorter"
            },
            event_offset::per_launch(cal, Some(here)) * 1e3
        )
    })
}

/// Said after `recorded` points were recorded on a GPU without an event-overhead calibration.
fn uncalibrated_note(device: &str, recorded: usize, calibrated: bool) -> Option<String> {
    (recorded > 0 && !calibrated).then(|| format!(
        "note: {device} has no event-overhead calibration (data/{device}/checks/event_offset.json): \
         the page shows raw event times, about a microsecond long for short kernels; with Nsight \
         Compute installed, `python3 scripts/event_offset.py` measures it (see How we measure)"
    ))
}

fn lines(counts: &BTreeMap<Concern, usize>, implausible: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    if !implausible.is_empty() {
        out.push(format!(
            "warning: {} point(s) report a rate above the device's theoretical peak (a wrong byte/FLOP count, \
             or data served from a cache): marked ‼ on the page",
            implausible.len()
        ));
        out.extend(implausible.iter().cloned());
    }
    let rest: Vec<String> = counts
        .iter()
        .filter(|(c, _)| **c != Concern::AbovePeak)
        .map(|(c, n)| format!("{n} {} {}", c.mark(), c.meaning()))
        .collect();
    if !rest.is_empty() {
        out.push(format!(
            "quality of the points recorded: {}",
            rest.join(", ")
        ));
    }
    out
}

/// "copy_vec4 N=1048576"
fn describe(p: &Point) -> String {
    let params: Vec<String> = p.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("{} {}", p.variant, params.join(" "))
}

#[cfg(test)]
#[path = "record_report_tests.rs"]
mod tests;
