//! Axis planning: ranges and tick positions in drawing space (log axes are drawn in log10 space).

use std::ops::Range;

/// How an axis maps data to drawing space, and where its ticks go (in drawing space).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AxisPlan {
    pub range: Range<f64>,
    /// Labelled ticks (and bold grid lines).
    pub ticks: Vec<f64>,
    /// Unlabelled light grid lines.
    pub minor: Vec<f64>,
    pub log: bool,
}

impl AxisPlan {
    /// Data value → drawing space; `None` for values a log axis cannot show (≤ 0) or non-finite.
    pub(crate) fn to_draw(&self, value: f64) -> Option<f64> {
        if !value.is_finite() {
            return None;
        }
        if self.log {
            (value > 0.0).then(|| value.log10())
        } else {
            Some(value)
        }
    }

    /// Drawing space → data value (for tick labels).
    pub(crate) fn to_data(&self, draw: f64) -> f64 {
        if self.log { 10f64.powf(draw) } else { draw }
    }
}

/// Categories at 0, 1, …, n−1 with half a slot of margin on each side.
pub(crate) fn categorical(count: usize) -> AxisPlan {
    let n = count.max(1) as f64;
    AxisPlan {
        range: -0.5..n - 0.5,
        ticks: (0..count).map(|i| i as f64).collect(),
        minor: Vec::new(),
        log: false,
    }
}

/// A numeric axis over `values`, from 0 if `zero_based`, ticked at the values if `data_ticks` and few.
pub(super) fn numeric(
    values: &[f64],
    log: bool,
    zero_based: bool,
    data_ticks: bool,
) -> Option<AxisPlan> {
    let shown: Vec<f64> = values
        .iter()
        .copied()
        .filter(|v| v.is_finite() && (!log || *v > 0.0))
        .collect();
    let (min, max) = shown.iter().copied().fold(None, crate::results::extend)?;
    if data_ticks && let Some(plan) = at_values(&shown, log) {
        return Some(plan);
    }
    if log && let Some(plan) = pow2_axis(&shown) {
        return Some(plan);
    }
    Some(if log {
        log_axis(min, max)
    } else {
        linear_axis(min, max, zero_based)
    })
}

/// Ticks at the data values themselves: ≤ 12 distinct values, evenly enough spaced to read.
fn at_values(values: &[f64], log: bool) -> Option<AxisPlan> {
    let mut ticks: Vec<f64> = values
        .iter()
        .map(|v| if log { v.log10() } else { *v })
        .collect();
    ticks.sort_by(f64::total_cmp);
    ticks.dedup();
    if ticks.len() < 2 || ticks.len() > 12 {
        return None;
    }
    let span = ticks[ticks.len() - 1] - ticks[0];
    let min_gap = ticks
        .windows(2)
        .map(|w| w[1] - w[0])
        .fold(f64::INFINITY, f64::min);
    if span <= 0.0 || min_gap < span / 24.0 {
        return None;
    }
    let pad = span * 0.04;
    Some(AxisPlan {
        range: ticks[0] - pad..ticks[ticks.len() - 1] + pad,
        ticks,
        minor: Vec::new(),
        log,
    })
}

fn linear_axis(min: f64, max: f64, zero_based: bool) -> AxisPlan {
    let from_zero = zero_based && min >= 0.0;
    let (mut low, mut high) = (if from_zero { 0.0 } else { min }, max);
    if high <= low {
        let pad = if max == 0.0 { 1.0 } else { max.abs() * 0.1 };
        if !from_zero {
            low -= pad;
        }
        high += pad;
    }
    let step = nice_step((high - low) / 5.0);
    let start = (low / step).floor() * step;
    let end = (high / step).ceil() * step;
    let count = ((end - start) / step).round() as usize;
    let ticks = (0..=count)
        .map(|i| start + i as f64 * step)
        .map(|t| clean(t, step))
        .collect();
    AxisPlan {
        range: start..end,
        ticks,
        minor: Vec::new(),
        log: false,
    }
}

/// Whether every value is a power of two, one ≥ 1024 (labelled in binary multiples, `128 Mi`).
pub(crate) fn all_powers_of_two(values: &[f64]) -> bool {
    !values.is_empty()
        && values.iter().any(|v| *v >= 1024.0)
        && values
            .iter()
            .all(|v| *v >= 1.0 && v.fract() == 0.0 && (*v as u64).is_power_of_two())
}

/// A log axis over powers of two with ticks at powers of two (at most 10 labelled).
fn pow2_axis(values: &[f64]) -> Option<AxisPlan> {
    if !all_powers_of_two(values) {
        return None;
    }
    let exps: Vec<i32> = values.iter().map(|v| v.log2().round() as i32).collect();
    let (lo, hi) = (*exps.iter().min()?, *exps.iter().max()?);
    if hi <= lo {
        return None;
    }
    let every = ((hi - lo) as usize / 9).max(1);
    let mut ticks = Vec::new();
    let mut minor = Vec::new();
    for (i, e) in (lo..=hi).enumerate() {
        let t = e as f64 * 2f64.log10();
        if i % every == 0 {
            ticks.push(t)
        } else {
            minor.push(t)
        }
    }
    let (start, end) = (lo as f64 * 2f64.log10(), hi as f64 * 2f64.log10());
    let pad = (end - start) * 0.04;
    Some(AxisPlan {
        range: start - pad..end + pad,
        ticks,
        minor,
        log: true,
    })
}

/// A log axis over the data (padded, at least 2× wide), ticked at decades and, over few, multiples.
fn log_axis(min: f64, max: f64) -> AxisPlan {
    let (mut lo, mut hi) = (min.log10(), max.log10());
    if hi - lo < 0.3 {
        let mid = (lo + hi) / 2.0;
        lo = mid - 0.15;
        hi = mid + 0.15;
    }
    let pad = (hi - lo) * 0.05;
    let (lo, hi) = (lo - pad, hi + pad);
    let span = hi - lo;
    let decades = (lo.ceil() as i32..=hi.floor() as i32).collect::<Vec<_>>();
    let every = decades.len().div_ceil(8).max(1);
    let mut ticks: Vec<f64> = decades.iter().step_by(every).map(|d| *d as f64).collect();
    let mut minor = Vec::new();
    // Multiples labelled: 2× and 5× over ≤ 2 decades; when that leaves < 3 ticks, 2× and 5×, then every one.
    let labelled: &[i32] = if span <= 2.0 { &[2, 5] } else { &[] };
    let (mut twos_fives, mut extra) = (Vec::new(), Vec::new());
    for d in (lo.floor() as i32)..(hi.ceil() as i32) {
        for m in 2..10 {
            let t = d as f64 + (m as f64).log10();
            if t > lo && t < hi {
                if labelled.contains(&m) {
                    ticks.push(t);
                } else if span <= 7.0 && (m == 2 || m == 5) {
                    twos_fives.push(t);
                } else if span <= 7.0 {
                    extra.push(t);
                }
            }
        }
    }
    for more in [&mut twos_fives, &mut extra] {
        if ticks.len() < 3 {
            ticks.append(more);
        } else {
            minor.append(more);
        }
    }
    ticks.sort_by(f64::total_cmp);
    AxisPlan {
        range: lo..hi,
        ticks,
        minor,
        log: true,
    }
}

/// Makes labelled ticks grid lines (every other, third, …) until no labels collide over `axis_px`.
pub(crate) fn thin_labels(plan: &mut AxisPlan, fmt: &dyn Fn(&f64) -> String, axis_px: f64) {
    let span = plan.range.end - plan.range.start;
    if plan.ticks.len() < 2 || span <= 0.0 {
        return;
    }
    let px = |t: f64| (t - plan.range.start) / span * axis_px;
    let width = |t: &f64| super::frame::text_px(&fmt(t)) as f64;
    let collides = |ticks: &[f64]| {
        ticks
            .windows(2)
            .any(|w| px(w[1]) - px(w[0]) < (width(&w[0]) + width(&w[1])) / 2.0 + 8.0)
    };
    let all = plan.ticks.clone();
    let mut every = 1;
    let mut kept = all.clone();
    while collides(&kept) && every < all.len() {
        every += 1;
        kept = all.iter().copied().step_by(every).collect();
        let last = all[all.len() - 1];
        if kept.last() != Some(&last) {
            while kept.len() > 1 && collides(&[kept[kept.len() - 1], last]) {
                kept.pop();
            }
            kept.push(last);
        }
    }
    if every > 1 {
        plan.minor
            .extend(all.iter().copied().filter(|t| !kept.contains(t)));
        plan.ticks = kept;
    }
}

/// 1, 2, 2.5 or 5 × 10^k, at least `raw`.
fn nice_step(raw: f64) -> f64 {
    if !raw.is_finite() || raw <= 0.0 {
        return 1.0;
    }
    let magnitude = 10f64.powf(raw.log10().floor());
    let fraction = raw / magnitude;
    let nice = [1.0, 2.0, 2.5, 5.0, 10.0]
        .into_iter()
        .find(|n| *n >= fraction - 1e-9)
        .unwrap_or(10.0);
    nice * magnitude
}

/// Removes float noise from a tick (`0.30000000000000004` → `0.3`).
fn clean(tick: f64, step: f64) -> f64 {
    let decimals = (-step.log10().floor()).max(0.0) as i32 + 2;
    let scale = 10f64.powi(decimals);
    (tick * scale).round() / scale
}

#[cfg(test)]
#[path = "axis_tests.rs"]
mod tests;
