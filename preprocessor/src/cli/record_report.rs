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
mod tests {
    use super::*;

    #[test]
    fn implausible_points_are_named_and_the_rest_counted() {
        let counts = BTreeMap::from([
            (Concern::AbovePeak, 1),
            (Concern::Noisy, 3),
            (Concern::SampleCap, 2),
        ]);
        let named = vec![
            "  copy copy_vec4 N=1: bandwidth 3628 GB/s is 108 % of the 3352 GB/s theoretical peak"
                .to_string(),
        ];
        let out = lines(&counts, &named);
        assert_eq!(out.len(), 3);
        assert!(
            out[0].starts_with(
                "warning: 1 point(s) report a rate above the device's theoretical peak"
            )
        );
        assert!(out[1].contains("108 %"));
        assert_eq!(
            out[2],
            "quality of the points recorded: 3 ~ median less certain than the noise target (95 % \
             interval), 2 c stopped at the sample cap"
        );
        assert!(lines(&BTreeMap::new(), &[]).is_empty());
    }

    /// The two-GPU H200 machine's events timed the empty kernel at 4.54 µs, the calibration's
    /// host at 2.82 µs: `record` there said nothing of it.
    #[test]
    fn a_host_whose_events_add_more_than_the_calibrations_is_named() {
        let cal = event_offset::EventOffset {
            commit: None,
            date: "2026-11-24T01:55:46Z".into(),
            gpu: "Synthetic GPU X1".into(),
            ncu_version: "Version 2025.3.1.0".into(),
            events_ms: 0.00282,
            ncu_ms: 0.00147,
            offset_ms: 0.00135,
            gap_ms: None,
        };
        let note = host_note("synthetic-gpu", &mut [0.00454, 0.00450, 0.00460], &cal).unwrap();
        assert!(
            note.starts_with(
                "note: on this host the events time the empty kernel at 4.54 µs, against 2.82 µs"
            ),
            "{note}"
        );
        assert!(note.contains("about 1.72 µs longer here"), "{note}");
        assert!(note.contains("(3.07 µs per launch)"), "{note}");
        assert_eq!(
            host_note("synthetic-gpu", &mut [0.0029], &cal),
            None,
            "within 0.25 µs"
        );
        assert_eq!(
            host_note("synthetic-gpu", &mut [], &cal),
            None,
            "no point timed one"
        );
        let faster = host_note("synthetic-gpu", &mut [0.0024], &cal).unwrap();
        assert!(faster.contains("shorter here"), "{faster}");
    }

    #[test]
    fn an_uncalibrated_gpu_is_named_after_a_recording_and_a_calibrated_one_is_not() {
        let note = uncalibrated_note("synthetic-gpu", 3, false).unwrap();
        assert!(
            note.starts_with("note: synthetic-gpu has no event-overhead calibration"),
            "{note}"
        );
        assert!(note.contains("scripts/event_offset.py"));
        assert_eq!(uncalibrated_note("synthetic-gpu", 3, true), None);
        assert_eq!(uncalibrated_note("synthetic-gpu", 0, false), None);
    }
}
