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
/// The defaults are much shorter than nvbench's (0.5 s minimum time, 15 s timeout per measurement): a
/// handbook has hundreds of points and must regenerate in minutes, and its kernels are memory-bound
/// microbenchmarks whose times settle within a few dozen launches. Points that stay noisy are stopped
/// by the timeout and their noise is recorded (and shown) rather than hidden.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StopRule {
    /// Never converge with fewer samples (10: enough for a meaningful median and quartiles).
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

/// Why sampling stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StopReason {
    /// Enough samples, low enough noise, enough measured time.
    Converged,
    /// `max_samples` reached.
    MaxSamples,
    /// `timeout_s` elapsed (the noise target may not have been met).
    Timeout,
}

impl StopRule {
    /// Whether to stop after `samples` (milliseconds each) taken over `elapsed_s` seconds of wall time.
    /// Checked in this order: converged, max samples, timeout. `None` means take another sample; it is
    /// always `None` with no samples (a hung kernel is the caller's watchdog's business).
    pub fn check(&self, samples: &[f64], elapsed_s: f64) -> Option<StopReason> {
        let n = samples.len();
        if n == 0 {
            return None;
        }
        if n >= self.min_samples.max(1) {
            let measured_s = samples.iter().sum::<f64>() / 1000.0;
            let (_, noise) = mean_and_noise(samples);
            if noise <= self.noise_target && measured_s >= self.min_time_s {
                return Some(StopReason::Converged);
            }
        }
        if n >= self.max_samples.max(1) {
            return Some(StopReason::MaxSamples);
        }
        if elapsed_s >= self.timeout_s {
            return Some(StopReason::Timeout);
        }
        None
    }
}

/// Ratio above which [`drift`] suggests the clocks dropped during the measurement.
pub const THROTTLE_DRIFT: f64 = 1.05;

/// Throttling heuristic: the median of the last quarter of the samples (in the order taken) over the
/// median of the first quarter. A GPU that heats up and lowers its clocks makes later samples slower, so
/// a ratio above [`THROTTLE_DRIFT`] (5 %) suggests throttling; below 1 means the first samples were slow
/// (warm-up). Returns 1.0 (no evidence) with fewer than 8 samples, or when the ratio is not a finite
/// positive number.
pub fn drift(samples: &[f64]) -> f64 {
    if samples.len() < 8 {
        return 1.0;
    }
    let q = samples.len() / 4;
    let (Some(first), Some(last)) = (median(&samples[..q]), median(&samples[samples.len() - q..]))
    else {
        return 1.0;
    };
    let ratio = last / first;
    if ratio.is_finite() && ratio > 0.0 {
        ratio
    } else {
        1.0
    }
}

/// `drift(samples) > THROTTLE_DRIFT`.
pub fn throttled(samples: &[f64]) -> bool {
    drift(samples) > THROTTLE_DRIFT
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1.0)
    }

    #[test]
    fn summary_of_known_samples() {
        // Sorted: 1 2 3 4 5 6 7 8 9 10 (given unsorted).
        let s = summarize(&[7.0, 1.0, 10.0, 3.0, 5.0, 2.0, 9.0, 4.0, 6.0, 8.0]).unwrap();
        assert_eq!(s.samples, 10);
        assert_eq!((s.min, s.max), (1.0, 10.0));
        assert!(close(s.median, 5.5));
        // Type 7: h = 9 * 0.25 = 2.25 → 3 + 0.25 = 3.25; h = 6.75 → 7.75.
        assert!(close(s.q1, 3.25), "{}", s.q1);
        assert!(close(s.q3, 7.75), "{}", s.q3);
        assert!(close(s.mean, 5.5));
        // Sample sd of 1..10 = sqrt(55/6).
        assert!(close(s.noise, (55.0f64 / 6.0).sqrt() / 5.5), "{}", s.noise);
    }

    #[test]
    fn odd_count_median_is_middle_element() {
        let s = summarize(&[3.0, 1.0, 2.0]).unwrap();
        assert_eq!(s.median, 2.0);
        assert_eq!(s.q1, 1.5);
        assert_eq!(s.q3, 2.5);
    }

    #[test]
    fn single_and_constant_samples() {
        let s = summarize(&[2.5]).unwrap();
        assert_eq!(
            (s.median, s.min, s.max, s.q1, s.q3, s.mean, s.noise),
            (2.5, 2.5, 2.5, 2.5, 2.5, 2.5, 0.0)
        );
        assert_eq!(s.samples, 1);
        let c = summarize(&[4.0; 7]).unwrap();
        assert_eq!(c.noise, 0.0);
        assert_eq!(c.median, 4.0);
        let z = summarize(&[-1.0, 1.0]).unwrap();
        assert_eq!(z.mean, 0.0);
        assert!(z.noise.is_infinite());
    }

    #[test]
    fn empty_and_non_finite_are_rejected() {
        assert_eq!(summarize(&[]), None);
        assert_eq!(summarize(&[1.0, f64::NAN]), None);
        assert_eq!(summarize(&[f64::INFINITY]), None);
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[5.0, 1.0, 3.0, 2.0]), Some(2.5));
    }

    #[test]
    fn noise_is_stable_for_large_offsets() {
        // Naive sum-of-squares would lose all precision here.
        let s = summarize(&[1e9 + 1.0, 1e9 + 2.0, 1e9 + 3.0]).unwrap();
        assert!(close(s.noise, 1.0 / (1e9 + 2.0)), "{}", s.noise);
    }

    #[test]
    fn default_rule_values() {
        let r = StopRule::default();
        assert_eq!(r.min_samples, 10);
        assert_eq!(r.max_samples, 1000);
        assert_eq!(r.noise_target, 0.005);
        assert_eq!(r.min_time_s, 0.05);
        assert_eq!(r.timeout_s, 2.0);
    }

    #[test]
    fn converges_only_with_enough_samples_low_noise_and_time() {
        let r = StopRule::default();
        // 10 quiet samples of 10 ms = 0.1 s of GPU time.
        let quiet = [10.0; 10];
        assert_eq!(r.check(&quiet, 0.2), Some(StopReason::Converged));
        assert_eq!(r.check(&quiet[..9], 0.2), None, "below min_samples");
        // Quiet but only 10 × 1 ms = 0.01 s measured: keep going.
        assert_eq!(r.check(&[1.0; 10], 0.1), None);
        assert_eq!(r.check(&[1.0; 50], 0.3), Some(StopReason::Converged));
        // Noisy: 10 ms ± 10 %.
        let noisy: Vec<f64> = (0..20)
            .map(|i| if i % 2 == 0 { 9.0 } else { 11.0 })
            .collect();
        assert_eq!(r.check(&noisy, 0.5), None);
    }

    #[test]
    fn max_samples_and_timeout() {
        let r = StopRule {
            max_samples: 20,
            ..StopRule::default()
        };
        let noisy: Vec<f64> = (0..20)
            .map(|i| if i % 2 == 0 { 9.0 } else { 11.0 })
            .collect();
        assert_eq!(r.check(&noisy, 0.5), Some(StopReason::MaxSamples));
        assert_eq!(r.check(&noisy[..19], 0.5), None);
        assert_eq!(r.check(&noisy[..19], 2.0), Some(StopReason::Timeout));
        // A single slow sample past the timeout stops, even below min_samples.
        assert_eq!(r.check(&[3000.0], 3.0), Some(StopReason::Timeout));
        // Nothing measured yet: never stop.
        assert_eq!(r.check(&[], 100.0), None);
        // Converged wins over the other reasons.
        assert_eq!(r.check(&[10.0; 20], 5.0), Some(StopReason::Converged));
        // A zero max_samples cannot stop before the first sample, and stops right after it.
        let z = StopRule {
            max_samples: 0,
            ..StopRule::default()
        };
        assert_eq!(z.check(&[], 0.0), None);
        assert_eq!(z.check(&[1.0], 0.0), Some(StopReason::MaxSamples));
        // NaN samples never count as converged.
        let mut nan = vec![10.0; 10];
        nan[3] = f64::NAN;
        assert_eq!(StopRule::default().check(&nan, 0.1), None);
    }

    #[test]
    fn drift_detects_slowdown() {
        let steady = [1.0; 16];
        assert_eq!(drift(&steady), 1.0);
        assert!(!throttled(&steady));
        let mut slowing = vec![1.0; 12];
        slowing.extend([1.2; 4]);
        assert!(close(drift(&slowing), 1.2));
        assert!(throttled(&slowing));
        let mut warmup = vec![2.0; 4];
        warmup.extend([1.0; 12]);
        assert!(close(drift(&warmup), 0.5));
        assert!(!throttled(&warmup));
        assert_eq!(drift(&[1.0, 5.0, 9.0]), 1.0, "too few samples");
        assert_eq!(drift(&[0.0; 8]), 1.0, "0/0 is no evidence");
    }
}
