//! Axis planning: ranges and tick positions in drawing space (log axes are drawn in log10 space).

use std::ops::Range;

/// How an axis maps data to drawing space, and where its ticks go (in drawing space).
#[derive(Debug, Clone, PartialEq)]
pub struct AxisPlan {
    pub range: Range<f64>,
    /// Labelled ticks (and bold grid lines).
    pub ticks: Vec<f64>,
    /// Unlabelled light grid lines.
    pub minor: Vec<f64>,
    pub log: bool,
}

impl AxisPlan {
    /// Data value → drawing space; `None` for values a log axis cannot show (≤ 0) or non-finite.
    pub fn to_draw(&self, value: f64) -> Option<f64> {
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
    pub fn to_data(&self, draw: f64) -> f64 {
        if self.log { 10f64.powf(draw) } else { draw }
    }
}

/// Categories at 0, 1, …, n−1 with half a slot of margin on each side.
pub fn categorical(count: usize) -> AxisPlan {
    let n = count.max(1) as f64;
    AxisPlan {
        range: -0.5..n - 0.5,
        ticks: (0..count).map(|i| i as f64).collect(),
        minor: Vec::new(),
        log: false,
    }
}

/// A numeric axis over `values` (data space). `zero_based` starts a linear axis at 0 when every
/// value is ≥ 0; `data_ticks` puts ticks at the values themselves when there are few of them.
/// `None` when no value can be shown.
pub fn numeric(values: &[f64], log: bool, zero_based: bool, data_ticks: bool) -> Option<AxisPlan> {
    let shown: Vec<f64> = values
        .iter()
        .copied()
        .filter(|v| v.is_finite() && (!log || *v > 0.0))
        .collect();
    let min = shown.iter().copied().fold(f64::INFINITY, f64::min);
    let max = shown.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if shown.is_empty() {
        return None;
    }
    if data_ticks && let Some(plan) = at_values(&shown, log) {
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

fn log_axis(min: f64, max: f64) -> AxisPlan {
    let mut lo = min.log10().floor();
    let mut hi = max.log10().ceil();
    if hi <= lo {
        lo -= 0.5;
        hi += 0.5;
    }
    let decades = (lo.ceil() as i32..=hi.floor() as i32).collect::<Vec<_>>();
    let every = decades.len().div_ceil(8).max(1);
    let mut ticks: Vec<f64> = decades.iter().step_by(every).map(|d| *d as f64).collect();
    let mut minor = Vec::new();
    let span = hi - lo;
    for d in (lo.floor() as i32)..(hi.ceil() as i32) {
        for m in 2..10 {
            let t = d as f64 + (m as f64).log10();
            if t > lo && t < hi {
                if span <= 2.0 && (m == 2 || m == 5) {
                    ticks.push(t);
                } else if span <= 6.0 {
                    minor.push(t);
                }
            }
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
mod tests {
    use super::*;

    #[test]
    fn linear_ticks_are_nice_and_zero_based() {
        let plan = numeric(&[3.0, 17.0], false, true, false).unwrap();
        assert_eq!(plan.range, 0.0..20.0);
        assert_eq!(plan.ticks, vec![0.0, 5.0, 10.0, 15.0, 20.0]);
        let plan = numeric(&[0.1, 0.3], false, false, false).unwrap();
        assert!(plan.ticks.contains(&0.2), "{:?}", plan.ticks);
        let flat = numeric(&[2.0, 2.0], false, false, false).unwrap();
        assert!(flat.range.start < 2.0 && flat.range.end > 2.0);
    }

    #[test]
    fn log_axis_spans_decades() {
        let plan = numeric(&[1e-3, 0.5, 1e3], true, false, false).unwrap();
        assert_eq!(plan.range, -3.0..3.0);
        assert_eq!(plan.ticks, vec![-3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0]);
        assert!(!plan.minor.is_empty());
        assert_eq!(plan.to_draw(-1.0), None);
        assert!((plan.to_data(2.0) - 100.0).abs() < 1e-9);
        assert!(numeric(&[0.0, -1.0], true, false, false).is_none());
        let wide = numeric(&[1e-12, 1e12], true, false, false).unwrap();
        assert!(wide.ticks.len() <= 9);
    }

    #[test]
    fn data_ticks_for_few_values() {
        let plan = numeric(&[160.0, 320.0, 640.0, 1280.0], true, false, true).unwrap();
        assert_eq!(plan.ticks.len(), 4);
        assert!((plan.to_data(plan.ticks[1]) - 320.0).abs() < 1e-9);
        // crowded on a linear axis: falls back to nice ticks
        let plan = numeric(&[1.0, 2.0, 1000.0], false, true, true).unwrap();
        assert_eq!(plan.ticks[0], 0.0);
    }

    #[test]
    fn categories() {
        let plan = categorical(3);
        assert_eq!(plan.ticks, vec![0.0, 1.0, 2.0]);
        assert_eq!(plan.range, -0.5..2.5);
    }
}
