//! How good each number is: its samples and spread, the concerns that mark it, and their summary.

use super::format::trim_zeros;
use crate::record::{DeviceRecord, Outcome, Point, Timing};
use crate::results::event_offset::{EventOffset, Shown, shown};
use crate::stats::StopReason;

/// The noise target and minimum samples assumed for recordings made before they were recorded.
const OLD_NOISE_TARGET: f64 = 0.005;
const OLD_MIN_SAMPLES: usize = 10;
const OLD_SAMPLE_CAP: usize = 1000;

/// Why a number is marked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Concern {
    /// The derived bandwidth or FLOP rate exceeds the device's theoretical peak.
    AbovePeak,
    /// The median's 95 % interval ([`median_uncertainty`]) wider than the noise target.
    Noisy,
    /// Sampling hit the sample cap without meeting the noise target.
    SampleCap,
    /// Fewer samples than the minimum, without the min-time rule's completion.
    FewSamples,
    /// The SM clock fell below 75 % of its maximum, or NVML reported a thermal/hardware slowdown.
    Throttled,
    /// Measured by an older method ([`crate::record::MEASURE_METHOD`]).
    OlderMethod,
}

impl Concern {
    pub const ALL: [Concern; 6] = [
        Concern::AbovePeak,
        Concern::Noisy,
        Concern::SampleCap,
        Concern::FewSamples,
        Concern::Throttled,
        Concern::OlderMethod,
    ];

    /// The compact marker shown after the value.
    pub fn mark(self) -> &'static str {
        match self {
            Concern::AbovePeak => "‼",
            Concern::Noisy => "~",
            Concern::SampleCap => "c",
            Concern::FewSamples => "f",
            Concern::Throttled => "t",
            Concern::OlderMethod => "o",
        }
    }

    /// What the marker means (the provenance line's legend).
    pub fn meaning(self) -> &'static str {
        match self {
            Concern::AbovePeak => {
                "above the device's theoretical peak (a wrong byte/FLOP count or cached data)"
            }
            Concern::Noisy => "median less certain than the noise target (95 % interval)",
            Concern::SampleCap => "stopped at the sample cap",
            Concern::FewSamples => "fewer samples than the minimum",
            Concern::Throttled => "GPU clocks throttled",
            Concern::OlderMethod => {
                "measured the older way (an L2 flush that left dirty lines for the kernel to write back): left out of the claims until mdbook-gpulab record measures it again"
            }
        }
    }
}

/// The concerns of one point (none for failed, skipped or untimed points).
pub fn concerns(point: &Point, device: &DeviceRecord) -> Vec<Concern> {
    let mut out = Vec::new();
    if point.outcome != Outcome::Ok {
        return out;
    }
    if above_peak(point, device).is_some() {
        out.push(Concern::AbovePeak);
    }
    let Some(t) = &point.timing else { return out };
    let target = t.noise_target.unwrap_or(OLD_NOISE_TARGET);
    let min_samples = t.min_samples.unwrap_or(OLD_MIN_SAMPLES);
    let complete = t.stop.is_some_and(StopReason::is_complete);
    // A NaN noise (no finite summary) counts as above the target.
    let uncertainty = median_uncertainty(t);
    if t.samples >= 2 && (uncertainty > target || uncertainty.is_nan()) {
        out.push(Concern::Noisy);
    }
    let capped = match t.stop {
        Some(stop) => stop == StopReason::MaxSamples,
        None => t.samples >= OLD_SAMPLE_CAP && t.noise > target,
    };
    if capped {
        out.push(Concern::SampleCap);
    }
    if t.samples < min_samples && !complete {
        out.push(Concern::FewSamples);
    }
    if t.throttled {
        out.push(Concern::Throttled);
    }
    if !point.measured_the_current_way() {
        out.push(Concern::OlderMethod);
    }
    out
}

/// The relative half-width of the median's 95 % confidence interval (1.96 × 1.2533 × noise ÷ √samples).
pub(crate) fn median_uncertainty(t: &Timing) -> f64 {
    1.96 * 1.2533 * t.noise / (t.samples.max(1) as f64).sqrt()
}

/// "bandwidth 3628 GB/s is 108 % of the 3352 GB/s theoretical peak", when a derived rate exceeds its peak.
pub fn above_peak(point: &Point, device: &DeviceRecord) -> Option<String> {
    let over = |metric: &str, peak: Option<f64>, what: &str, unit: &str| {
        let value = point.metrics.get(metric)?.value;
        let peak = peak.filter(|p| *p > 0.0)?;
        (value > peak).then(|| {
            format!(
                "{what} {value:.0} {unit} is {:.0} % of the {peak:.0} {unit} theoretical peak",
                100.0 * value / peak
            )
        })
    };
    over(
        "gbps",
        device.theoretical_bandwidth_gbps,
        "bandwidth",
        "GB/s",
    )
    .or_else(|| {
        over(
            "gflops",
            Some(device.fp32_peak_gflops),
            "FP32 rate",
            "GFLOP/s",
        )
    })
}

/// A tooltip's "median of 37 samples · IQR 1.02–1.05 ms · noise 0.31 % (target 0.5 %) · …".
pub(crate) fn sample_summary(t: &Timing, overhead_ms: Option<f64>) -> String {
    let mut parts = vec![format!(
        "median of {} sample{}",
        t.samples,
        if t.samples == 1 { "" } else { "s" }
    )];
    if t.runs_per_sample > 1 {
        parts.push(format!("{} runs per sample (hot)", t.runs_per_sample));
    }
    parts.push(format!("IQR {}–{} ms", sig(t.q1_ms), sig(t.q3_ms)));
    if let Some(d) = overhead_ms {
        parts.push(format!(
            "less {} µs of event overhead (calibrated against Nsight Compute)",
            sig(d * 1e3)
        ));
    }
    let target = t.noise_target.unwrap_or(OLD_NOISE_TARGET);
    parts.push(format!(
        "noise {:.2} % (target {} %)",
        100.0 * t.noise,
        trim(100.0 * target)
    ));
    if let Some(stop) = t.stop {
        parts.push(
            match stop {
                StopReason::Converged => "converged",
                StopReason::MinTime => "complete by the min-time rule",
                // The stability rule also stops a short kernel within the target short of the min time.
                StopReason::NoiseStable if t.noise <= target => {
                    "stopped: noise settled within the target"
                }
                StopReason::NoiseStable => "stopped: noise settled above the target",
                StopReason::MaxSamples => "stopped at the sample cap",
                StopReason::Timeout => "stopped by the timeout",
            }
            .to_string(),
        );
    }
    if t.blocked {
        parts.push("behind the blocking kernel".into());
    }
    if let Some(c) = &t.clocks {
        let (lo, hi) = c.sm_mhz;
        parts.push(match lo == hi {
            true => format!("SM {lo} MHz"),
            false => format!("SM {lo}–{hi} MHz"),
        });
    }
    if let Some(cpu) = &t.cpu {
        parts.push(format!("CPU {cpu}"));
    }
    parts.join(" · ")
}

/// The tooltip of a table cell: its sample summary, then each concern's reason.
pub(crate) fn point_title(
    point: &Point,
    cal: Option<&EventOffset>,
    device: &DeviceRecord,
) -> Option<String> {
    let s = ok_timing(point, cal)?;
    Some(sample_summary(&s.timing, s.overhead_ms) + &concern_reasons(point, device))
}

/// The tooltip of a chart point, shorter than a cell's, then each concern's reason.
pub(crate) fn point_tip(
    point: &Point,
    cal: Option<&EventOffset>,
    device: &DeviceRecord,
) -> Option<String> {
    let Shown { timing: t, .. } = ok_timing(point, cal)?;
    let target = t.noise_target.unwrap_or(OLD_NOISE_TARGET);
    Some(format!(
        "{} sample{} · IQR {}–{} ms · noise {:.2} % (target {} %){}",
        t.samples,
        if t.samples == 1 { "" } else { "s" },
        sig(t.q1_ms),
        sig(t.q3_ms),
        100.0 * t.noise,
        trim(100.0 * target),
        concern_reasons(point, device)
    ))
}

/// The timing of a verified point, as shown.
fn ok_timing(point: &Point, cal: Option<&EventOffset>) -> Option<Shown> {
    shown(point, cal).filter(|_| point.outcome == Outcome::Ok)
}

/// "; ~ noise above the target" for each concern of the point.
fn concern_reasons(point: &Point, device: &DeviceRecord) -> String {
    let mut text = String::new();
    for c in concerns(point, device) {
        let reason = match (c, &point.timing) {
            (Concern::AbovePeak, _) => above_peak(point, device).unwrap_or_default(),
            (Concern::Noisy, Some(t)) => format!(
                "median known to ±{:.2} % (95 %), less well than the {} % noise target",
                100.0 * median_uncertainty(t),
                trim(100.0 * t.noise_target.unwrap_or(OLD_NOISE_TARGET))
            ),
            (other, _) => other.meaning().to_string(),
        };
        text.push_str(&format!("; {} {reason}", c.mark()));
    }
    text
}

/// The markers of `concerns`, as HTML (empty when none).
pub(crate) fn marks_html(concerns: &[Concern]) -> String {
    if concerns.is_empty() {
        return String::new();
    }
    let marks: String = concerns.iter().map(|c| c.mark()).collect();
    format!(
        "<sup class=\"gpulab-q\">{}</sup>",
        crate::render::html::escape(&marks)
    )
}

/// The provenance line's "quality: of 40 timed points, 3 ~ …" for the points shown, or `None` when none is marked.
pub(crate) fn quality_summary<'a>(
    points: impl Iterator<Item = &'a Point>,
    device: &DeviceRecord,
) -> Option<String> {
    let mut counts = [0usize; Concern::ALL.len()];
    let mut timed = 0;
    for p in points {
        timed += usize::from(p.outcome == Outcome::Ok && p.timing.is_some());
        for c in concerns(p, device) {
            counts[c as usize] += 1;
        }
    }
    let parts: Vec<String> = Concern::ALL
        .iter()
        .zip(counts)
        .filter(|(_, n)| *n > 0)
        .map(|(c, n)| format!("{n} {} {}", c.mark(), c.meaning()))
        .collect();
    (!parts.is_empty()).then(|| {
        format!(
            "quality: of {timed} timed point{}, {}",
            if timed == 1 { "" } else { "s" },
            parts.join(", ")
        )
    })
}

/// A number with 4 significant digits, trailing zeros trimmed.
fn sig(x: f64) -> String {
    if !x.is_finite() {
        return "?".into();
    }
    let digits = (3 - x.abs().max(1e-12).log10().floor() as i32).max(0) as usize;
    trim_zeros(&format!("{x:.digits$}")).to_string()
}

fn trim(x: f64) -> String {
    trim_zeros(&format!("{x:.3}")).to_string()
}

#[cfg(test)]
#[path = "quality_tests.rs"]
mod tests;
