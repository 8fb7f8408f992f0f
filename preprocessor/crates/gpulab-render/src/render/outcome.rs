//! What a cell shows for a metric: a value, a failure, a skip, or nothing recorded.

use crate::metrics::{RelativeMetric, Source, builtin};
use crate::record::{FailureKind, Outcome, Point};
use crate::results::view::Cell;

/// The displayable state of one cell for one metric.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum CellState {
    /// A verified, timed value.
    Value(f64),
    /// Measured, but this metric was not computed for it.
    NoValue,
    /// Compile, launch or verification failed; the reason for a tooltip.
    Failed(String),
    /// Not run; the short reason (`budget`).
    Skipped(String),
    /// This GPU cannot run it; what it needs ("needs sm_90 (Hopper)").
    NotApplicable(String),
    /// Nothing recorded.
    Missing,
    /// No such point: this combination of values is not part of the sweep.
    OutsideSweep,
    /// A textual attribute (the occupancy limiter).
    Text(String),
    /// A hardware-counter metric of a point whose counters are not recorded (on its code) yet.
    AwaitingCounters,
}

impl CellState {
    /// The state of `cell` (if any) for `metric`; a verified point's relative metric is its value
    /// against the baseline, or [`CellState::NoValue`].
    pub(crate) fn of(cell: Option<&Cell<'_>>, metric: &str) -> CellState {
        let Some(cell) = cell else {
            return CellState::OutsideSweep;
        };
        match cell.point {
            None => CellState::Missing,
            Some(point) if RelativeMetric::parse(metric).is_some() => match point.outcome {
                Outcome::Ok => match cell.relative.get(metric) {
                    Some(v) if v.is_finite() => CellState::Value(*v),
                    _ => CellState::NoValue,
                },
                _ => CellState::of_point(cell, point, metric),
            },
            Some(point) => CellState::of_point(cell, point, metric),
        }
    }

    /// The state of `cell`'s recorded `point` for `metric`.
    fn of_point(cell: &Cell<'_>, point: &Point, metric: &str) -> CellState {
        match point.outcome {
            Outcome::Ok if builtin(metric).is_some_and(|b| b.source == Source::Text) => {
                match point.attributes.as_ref().and_then(|a| a.occupancy.as_ref()) {
                    Some(o) => CellState::Text(o.limiter.clone()),
                    None => CellState::NoValue,
                }
            }
            Outcome::Ok => match cell.metric(metric) {
                Some(v) if v.is_finite() => CellState::Value(v),
                _ if is_counter_metric(metric) && !has_current_counters(point) => {
                    CellState::AwaitingCounters
                }
                _ => CellState::NoValue,
            },
            Outcome::Failed => CellState::Failed(failure_text(point)),
            Outcome::Skipped => match &point.failure {
                Some(f) if f.kind == FailureKind::NotApplicable => {
                    CellState::NotApplicable(f.message.clone())
                }
                _ => CellState::Skipped(skip_reason(point)),
            },
        }
    }

    pub(crate) fn value(&self) -> Option<f64> {
        match self {
            CellState::Value(v) => Some(*v),
            _ => None,
        }
    }
}

fn is_counter_metric(metric: &str) -> bool {
    let base = metric.split('.').next().unwrap_or(metric);
    builtin(base).is_some_and(|b| matches!(b.source, Source::Counters(_)))
}

/// Whether `point` holds hardware counters measured on its current code.
pub(crate) fn has_current_counters(point: &Point) -> bool {
    point
        .counters
        .as_ref()
        .is_some_and(|c| c.current_for(&point.key))
}

/// "wrong result: max error 3 (first bad index 17)" — the failure kind's label, message and index.
pub(crate) fn failure_text(point: &Point) -> String {
    let mut text = match &point.failure {
        Some(f) if f.message.trim().is_empty() => f.kind.label().to_string(),
        Some(f) => format!("{}: {}", f.kind.label(), f.message.trim()),
        None => "failed".to_string(),
    };
    if let Some(index) = point.verification.as_ref().and_then(|v| v.first_bad_index)
        && !text.contains("first bad index")
    {
        text.push_str(&format!(" (first bad index {index})"));
    }
    text
}

/// "budget" for a point skipped by the time budget, else why it was not run.
fn skip_reason(point: &Point) -> String {
    match &point.failure {
        Some(f) if f.kind == FailureKind::Budget => "budget".into(),
        Some(f) if !f.message.trim().is_empty() => f.message.trim().into(),
        Some(f) => f.kind.label().into(),
        None => "not run".into(),
    }
}
