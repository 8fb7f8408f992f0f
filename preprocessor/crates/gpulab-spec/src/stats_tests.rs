//! Tests of `stats`.

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
fn throttled_is_decided_from_the_clock() {
    assert!(!throttled_by_clock(1980, 1980));
    assert!(
        !throttled_by_clock(1500, 1980),
        "76 % of the maximum is not throttled"
    );
    assert!(throttled_by_clock(1400, 1980));
    assert!(!throttled_by_clock(100, 0), "unknown maximum: no evidence");
}

#[test]
fn min_time_rule_completes_long_points_with_few_samples() {
    let r = StopRule::default();
    // 200 ms kernels: 3 quiet samples = 0.6 s ≥ 0.5 s.
    assert_eq!(
        r.check(&[200.0, 200.1, 199.9], 0.8),
        Some(StopReason::MinTime)
    );
    assert_eq!(
        r.check(&[200.0, 200.1], 0.6),
        None,
        "two samples of 200 ms are too little measured time"
    );
    // 300 ms: two quiet samples (0.6 s) complete; a single one never does.
    assert_eq!(r.check(&[300.0, 300.2], 0.6), Some(StopReason::MinTime));
    assert_eq!(r.check(&[600.0], 0.6), None);
    assert_eq!(r.check(&[300.0, 330.0], 0.6), None, "noisy");
    // 100 ms: 3 samples = 0.3 s is not enough measured time yet; 5 are.
    assert_eq!(r.check(&[100.0; 3], 0.4), None);
    assert_eq!(r.check(&[100.0; 5], 0.6), Some(StopReason::MinTime));
    // Noisy long samples do not complete by the min-time rule.
    assert_eq!(r.check(&[200.0, 260.0, 180.0], 0.8), None);
    assert!(StopReason::MinTime.is_complete() && StopReason::Converged.is_complete());
    assert!(!StopReason::MaxSamples.is_complete() && !StopReason::NoiseStable.is_complete());
}

#[test]
fn noise_that_settles_above_the_target_stops_early() {
    let r = StopRule::default();
    // A kernel alternating 9 / 11 µs: 10 % noise, stable from the start; stops at the first check
    // after 64 noise estimates (80 samples), not at the 1000-sample cap.
    let noisy: Vec<f64> = (0..200)
        .map(|i| if i % 2 == 0 { 0.009 } else { 0.011 })
        .collect();
    let stop = (1..=noisy.len()).find_map(|n| r.check(&noisy[..n], 0.01).map(|s| (n, s)));
    assert_eq!(stop, Some((80, StopReason::NoiseStable)));
    // Noise still changing (a slow drift upwards): not stable.
    let drifting: Vec<f64> = (0..80).map(|i| 1.0 + (i * i) as f64 * 1e-3).collect();
    assert!(!noise_is_stable(&drifting));
    assert!(!noise_is_stable(&noisy[..68]), "too few estimates");
}
