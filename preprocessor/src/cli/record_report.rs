//! What `record` says about the quality of the points it just recorded: numbers that cannot be true
//! (a rate above the device's theoretical peak) by name, the other concerns as counts, and whether
//! the GPU's event overhead is calibrated (the page shows short kernels' raw event times if not).

use crate::record::{DataDir, Point};
use crate::render::quality::{Concern, above_peak, concerns};
use crate::results::{derive_metrics, event_offset};
use crate::workspace::FoundDirective;
use std::collections::BTreeMap;

/// The report's lines for the points of `device` recorded at or after `since`, or none.
pub fn report(
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
    for (name, exp) in &experiments {
        let Ok(Some(mut rec)) = data.load(device, name) else {
            continue;
        };
        if let Some(c) = &calibration {
            event_offset::apply(&mut rec, c);
        }
        derive_metrics(&mut rec, exp);
        for p in rec.points.iter().filter(|p| p.recorded_at >= since) {
            recorded += 1;
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
    out
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
            "quality of the points recorded: 3 ~ noise above the target, 2 c stopped at the sample cap"
        );
        assert!(lines(&BTreeMap::new(), &[]).is_empty());
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
