//! Limits on what a book may ask for, checked before anything is allocated, planned or launched:
//! axis lengths, points per directive and per book, buffer bytes, launch dimensions, loop counts.

/// Values one axis may have (a list or a range).
pub const MAX_AXIS_VALUES: usize = 10_000;
/// Points (variants × axis combinations) one directive may ask for.
pub const MAX_POINTS_PER_DIRECTIVE: u64 = 20_000;
/// Points the whole book may ask for.
pub const MAX_POINTS_PER_BOOK: u64 = 200_000;
/// Bytes of all buffers of one point when no device is known (`max_buffer_bytes` in book.toml
/// overrides it); a live run also checks them against the device's memory.
pub const DEFAULT_MAX_BUFFER_BYTES: u64 = 80 << 30;
/// Launches one point may make (a host `loop` count).
pub const MAX_LAUNCHES: i64 = 1_000_000;
/// CUDA's launch limits (every GPU since compute capability 3.0).
pub const MAX_BLOCK: [u64; 3] = [1024, 1024, 64];
pub const MAX_THREADS_PER_BLOCK: u64 = 1024;
pub const MAX_GRID: [u64; 3] = [(1 << 31) - 1, 65_535, 65_535];
/// Dynamic shared memory a block may ask for (the H100's and H200's opt-in maximum).
pub const MAX_SHARED_BYTES: u64 = 232_448;
/// Longest `measure.timeout_s` / `budget_s` accepted, seconds.
pub const MAX_SECONDS: f64 = 24.0 * 3600.0;
/// Most timed samples a point may ask for.
pub const MAX_SAMPLES: usize = 100_000;

/// Values of the device variables used when `check` evaluates expressions without a GPU
/// (the handbook's H100); a live run uses the real device's.
pub const NOMINAL_DEVICE_VARS: &[(&str, i64)] = &[
    ("SM_COUNT", 132),
    ("L2_BYTES", 52_428_800),
    ("MAX_THREADS", 1024),
];

/// Checks measurement rules (from a directive's `measure` or book.toml): each violation a message
/// naming the key.
pub fn measure_problems(
    timeout_s: Option<f64>,
    min_samples: Option<usize>,
    max_samples: Option<usize>,
    noise: Option<f64>,
) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(t) = timeout_s
        && let Some(why) = seconds_problem(t)
    {
        out.push(format!("`timeout_s = {t}` {why}"));
    }
    for (key, n) in [("min_samples", min_samples), ("max_samples", max_samples)] {
        match n {
            Some(0) => out.push(format!("`{key} = 0`: at least one sample is needed")),
            Some(n) if n > MAX_SAMPLES => {
                out.push(format!("`{key} = {n}` is more than {MAX_SAMPLES}"))
            }
            _ => {}
        }
    }
    if let (Some(lo), Some(hi)) = (min_samples, max_samples)
        && lo > hi
    {
        out.push(format!(
            "`min_samples = {lo}` is more than `max_samples = {hi}`"
        ));
    }
    if let Some(n) = noise
        && !(n.is_finite() && (0.0..1.0).contains(&n))
    {
        out.push(format!(
            "`noise = {n}` must be a fraction from 0 to 1 (0.005 is 0.5 %)"
        ));
    }
    out
}

/// Why a duration in seconds is unusable, if it is.
pub fn seconds_problem(s: f64) -> Option<String> {
    if !s.is_finite() {
        Some("is not a finite number of seconds".into())
    } else if s <= 0.0 {
        Some("must be more than 0 seconds".into())
    } else if s > MAX_SECONDS {
        Some(format!("is more than {MAX_SECONDS} seconds (a day)"))
    } else {
        None
    }
}

/// `a * b` for point counts, `None` on overflow.
pub fn mul_count(a: u64, b: u64) -> Option<u64> {
    a.checked_mul(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measure_rules_that_cannot_work_are_refused() {
        assert!(measure_problems(Some(2.0), Some(5), Some(50), Some(0.01)).is_empty());
        assert_eq!(measure_problems(Some(f64::NAN), None, None, None).len(), 1);
        assert_eq!(measure_problems(Some(-1.0), None, None, None).len(), 1);
        assert_eq!(measure_problems(Some(0.0), None, None, None).len(), 1);
        assert_eq!(measure_problems(None, Some(0), None, None).len(), 1);
        let p = measure_problems(None, Some(10), Some(5), None);
        assert_eq!(p, ["`min_samples = 10` is more than `max_samples = 5`"]);
        assert_eq!(
            measure_problems(None, None, None, Some(f64::INFINITY)).len(),
            1
        );
        assert_eq!(measure_problems(None, None, None, Some(-0.1)).len(), 1);
    }
}
