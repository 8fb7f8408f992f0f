//! Measurement statistics: median, quartiles and noise of timing samples; when to stop sampling.
//!
//! Modelled on nvbench (relative standard deviation as the noise measure, a noise target plus minimum
//! measured time and a timeout) and criterion (robust statistics: we report the median, not the mean).

/// Summary of a set of samples (milliseconds, usually).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    pub median: f64,
    pub min: f64,
    pub max: f64,
    /// First quartile (25th percentile).
    pub q1: f64,
    /// Third quartile (75th percentile).
    pub q3: f64,
    pub mean: f64,
    /// Relative standard deviation: sample standard deviation (n − 1) over |mean|. 0 for a single sample
    /// (no spread can be measured; `samples == 1` says so).
    pub noise: f64,
    pub samples: usize,
}

/// Summarises `samples`. `None` when empty or when any sample is NaN or infinite.
///
/// Quantiles use linear interpolation between closest ranks (Hyndman & Fan type 7, the default of NumPy
/// and R): for p ∈ [0, 1], h = (n − 1)·p, and the quantile is x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋+1] − x[⌊h⌋]) over
/// the sorted samples. The median is the same rule at p = 0.5 (the usual median).
pub fn summarize(samples: &[f64]) -> Option<Summary> {
    if samples.is_empty() || samples.iter().any(|x| !x.is_finite()) {
        return None;
    }
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let (mean, noise) = mean_and_noise(samples);
    Some(Summary {
        median: quantile_sorted(&sorted, 0.5),
        min: sorted[0],
        max: sorted[sorted.len() - 1],
        q1: quantile_sorted(&sorted, 0.25),
        q3: quantile_sorted(&sorted, 0.75),
        mean,
        noise,
        samples: samples.len(),
    })
}

/// Type-7 quantile of already sorted, non-empty samples (see [`summarize`]).
fn quantile_sorted(sorted: &[f64], p: f64) -> f64 {
    let h = (sorted.len() - 1) as f64 * p.clamp(0.0, 1.0);
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(sorted.len() - 1);
    sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
}

/// Mean and relative standard deviation in two passes (numerically stable). `samples` is non-empty.
fn mean_and_noise(samples: &[f64]) -> (f64, f64) {
    let n = samples.len() as f64;
    let mean = samples.iter().sum::<f64>() / n;
    if samples.len() < 2 {
        return (mean, 0.0);
    }
    let var = samples.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    let sd = var.sqrt();
    let noise = if sd == 0.0 {
        0.0
    } else if mean == 0.0 {
        f64::INFINITY
    } else {
        sd / mean.abs()
    };
    (mean, noise)
}

/// Median of `samples` (NaN-tolerant: NaNs sort last). `None` when empty.
pub fn median(samples: &[f64]) -> Option<f64> {
    if samples.is_empty() {
        return None;
    }
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    Some(quantile_sorted(&sorted, 0.5))
}

/// When to stop taking samples of one point.
///
/// Two ways to complete, both needing the noise (relative standard deviation) within the target:
/// - **converged**: at least `min_samples` samples summing to at least `min_time_s` of measured time;
/// - **min-time rule** (nvbench's `min-time`): the samples sum to at least [`MIN_TIME_RULE_S`] (0.5 s, nvbench's
///   default) with at least [`MIN_TIME_RULE_SAMPLES`] of them, so a 200 ms kernel stops after 3 samples instead of 10,
///   and a 300 ms one after 2.
///
/// Otherwise sampling stops at `max_samples`, at `timeout_s`, or (nvbench's noise-stability rule) when the
/// noise has settled: after more than [`STABLE_WINDOW`] noise estimates, checked every [`STABLE_EVERY`]
/// samples, their relative standard deviation is below 5 %. Settled above the target, such a point is
/// incomplete and marked on the page with the reason; settled within it (a short kernel whose samples
/// had not reached `min_time_s`), it is not marked.
///
/// The defaults are shorter than nvbench's (10 samples and 0.5 s, 15 s timeout): a handbook has hundreds of
/// points and must regenerate in minutes, and its kernels are memory-bound microbenchmarks whose times settle
/// within a few dozen launches.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StopRule {
    /// Samples needed to converge below the min-time rule's time (10: enough for a meaningful median and quartiles).
    pub min_samples: usize,
    /// Stop after this many samples whatever the noise (1000).
    pub max_samples: usize,
    /// Relative standard deviation to reach (0.005 = 0.5 %, as nvbench).
    pub noise_target: f64,
    /// Summed sample time (seconds of GPU time) wanted before converging (0.05 s), so that very short
    /// kernels are not judged on a handful of microseconds.
    pub min_time_s: f64,
    /// Wall-clock limit for the whole measurement (2 s); stops even below `min_samples`, if any sample
    /// was taken.
    pub timeout_s: f64,
}

/// The min-time rule's measured time: nvbench's default `min-time`.
pub(crate) const MIN_TIME_RULE_S: f64 = 0.5;
/// The fewest samples the min-time rule accepts: two, whose spread is the noise checked against the
/// target (issue 11: a third run of a kernel of a second or more costs more than it tells; nvbench's
/// min-time rule has no sample minimum of its own).
pub(crate) const MIN_TIME_RULE_SAMPLES: usize = 2;
/// Noise estimates (one per sample from the 5th on) needed before the noise-stability rule applies.
pub(crate) const STABLE_WINDOW: usize = 64;
/// How often (in samples) the noise-stability rule is checked.
pub(crate) const STABLE_EVERY: usize = 16;
/// Noise estimates are stable when their relative standard deviation is below this (nvbench's 5 %).
pub(crate) const STABLE_SPREAD: f64 = 0.05;
/// Samples before the first noise estimate (nvbench's `min_samples_for_noise_estimate`).
const FIRST_NOISE_ESTIMATE: usize = 5;

impl Default for StopRule {
    fn default() -> Self {
        StopRule {
            min_samples: 10,
            max_samples: 1000,
            noise_target: 0.005,
            min_time_s: 0.05,
            timeout_s: 2.0,
        }
    }
}

/// Why sampling stopped (recorded on every timing as `stop`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// Enough samples, low enough noise, enough measured time: complete.
    Converged,
    /// The min-time rule: few samples of a long kernel, noise within the target: complete.
    MinTime,
    /// The noise settled (nvbench's stability rule): incomplete when above the target.
    NoiseStable,
    /// `max_samples` reached without meeting the noise target: incomplete.
    MaxSamples,
    /// `timeout_s` elapsed (the noise target or the sample count may not have been met).
    Timeout,
}

impl StopReason {
    /// Whether the point met the stopping rule (its noise within the target).
    pub fn is_complete(self) -> bool {
        matches!(self, StopReason::Converged | StopReason::MinTime)
    }
}

impl StopRule {
    /// Whether to stop after `samples` (milliseconds each) taken over `elapsed_s` seconds of wall time.
    /// Checked in this order: converged, min-time rule, max samples, timeout, noise stable. `None` means take
    /// another sample; it is always `None` with no samples (a hung kernel is the caller's watchdog's business).
    pub fn check(&self, samples: &[f64], elapsed_s: f64) -> Option<StopReason> {
        let n = samples.len();
        if n == 0 {
            return None;
        }
        let measured_s = samples.iter().sum::<f64>() / 1000.0;
        let quiet = n >= 2 && mean_and_noise(samples).1 <= self.noise_target;
        if quiet && n >= self.min_samples.max(1) && measured_s >= self.min_time_s {
            return Some(StopReason::Converged);
        }
        if quiet && n >= MIN_TIME_RULE_SAMPLES && measured_s >= MIN_TIME_RULE_S {
            return Some(StopReason::MinTime);
        }
        if n >= self.max_samples.max(1) {
            return Some(StopReason::MaxSamples);
        }
        if elapsed_s >= self.timeout_s {
            return Some(StopReason::Timeout);
        }
        if n.is_multiple_of(STABLE_EVERY) && noise_is_stable(samples) {
            return Some(StopReason::NoiseStable);
        }
        None
    }
}

/// nvbench's noise-stability test: the noise estimates of every prefix from the 5th sample on (the last
/// 512, as nvbench keeps) number more than [`STABLE_WINDOW`] and vary by less than [`STABLE_SPREAD`]
/// (relative standard deviation). One pass with Welford's update.
pub(crate) fn noise_is_stable(samples: &[f64]) -> bool {
    if samples.len() < FIRST_NOISE_ESTIMATE + STABLE_WINDOW {
        return false;
    }
    let (mut mean, mut m2) = (0.0f64, 0.0f64);
    let mut noises = Vec::with_capacity(samples.len());
    for (i, &x) in samples.iter().enumerate() {
        let k = (i + 1) as f64;
        let d = x - mean;
        mean += d / k;
        m2 += d * (x - mean);
        if i + 1 >= FIRST_NOISE_ESTIMATE {
            let noise = (m2 / (k - 1.0)).sqrt() / mean.abs();
            if !noise.is_finite() {
                return false;
            }
            noises.push(noise);
        }
    }
    let tail = &noises[noises.len().saturating_sub(512)..];
    let (_, spread) = mean_and_noise(tail);
    spread < STABLE_SPREAD
}

/// A point ran throttled when its lowest SM clock read during the samples is below this fraction of the
/// device's maximum SM clock (nvbench's default `throttle-threshold`, 75 %).
pub(crate) const THROTTLE_CLOCK_FRACTION: f64 = 0.75;

/// Whether a lowest SM clock of `min_sm_mhz` (read during the samples) means throttling on a device whose
/// maximum SM clock is `max_sm_mhz`.
pub fn throttled_by_clock(min_sm_mhz: u32, max_sm_mhz: u32) -> bool {
    max_sm_mhz > 0 && (min_sm_mhz as f64) < THROTTLE_CLOCK_FRACTION * max_sm_mhz as f64
}

#[cfg(test)]
#[path = "stats_tests.rs"]
mod tests;
