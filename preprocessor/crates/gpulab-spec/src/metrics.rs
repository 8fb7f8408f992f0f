//! Metrics as values with units: the registry of built-in metrics and device variables
//! (`metrics/registry.rs`), how a metric is labelled (`MetricInfo`) and the relative metrics
//! (`speedup:…`, `pct_of:…`).

pub mod counters;
pub mod registry;

pub use registry::{
    ATTRIBUTE_VARS, Attribute, BUILTINS, Builtin, DEVICE_VARS, DeviceVar, STAT_SUFFIXES, Source,
    TIME_MS, builtin, default_label, known_unit,
};

use crate::value::{Better, Unit};

/// How a metric is labelled and formatted.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricInfo {
    pub label: String,
    pub unit: Unit,
    /// Computed from the point's time (a timing statistic, a rate, a relative metric): its cells
    /// carry the timing's quality marks. A kernel attribute, a count or a FLOP-per-byte ratio
    /// does not.
    pub uses_time: bool,
    /// Which way it improves; `None`: no cell of it is shaded best.
    pub better: Option<Better>,
}

/// How a relative metric compares a cell with its baseline cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RelativeKind {
    /// `speedup:<baseline>`: baseline time ÷ this time (×).
    Speedup,
    /// `pct_of:<baseline>`: 100 × baseline time ÷ this time (%).
    PctOf,
}

/// The cell a relative metric compares with, at the same axis values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Baseline {
    /// A variant of the directive, by name.
    Variant(String),
    /// The variant before this one in the directive's `variants` order.
    Previous,
}

/// A metric computed at render time from two recorded points of the same directive:
/// `speedup:<variant>`, `speedup:previous` or `pct_of:<variant>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelativeMetric {
    pub kind: RelativeKind,
    pub baseline: Baseline,
}

/// The baseline keyword that names the previous variant of the directive.
pub(crate) const PREVIOUS: &str = "previous";

impl RelativeMetric {
    /// Parses `speedup:<x>` / `pct_of:<x>`; `None` for any other name (a plain metric). The
    /// baseline is not checked against a directive here (see `directive::validate`).
    pub fn parse(name: &str) -> Option<RelativeMetric> {
        let (prefix, baseline) = name.split_once(':')?;
        let kind = match prefix {
            "speedup" => RelativeKind::Speedup,
            "pct_of" => RelativeKind::PctOf,
            _ => return None,
        };
        let baseline = match baseline {
            PREVIOUS => Baseline::Previous,
            other => Baseline::Variant(other.to_string()),
        };
        Some(RelativeMetric { kind, baseline })
    }

    /// The prefix as written (`speedup`, `pct_of`).
    pub fn prefix(&self) -> &'static str {
        match self.kind {
            RelativeKind::Speedup => "speedup",
            RelativeKind::PctOf => "pct_of",
        }
    }

    pub fn unit(&self) -> Unit {
        match self.kind {
            RelativeKind::Speedup => Unit::Ratio,
            RelativeKind::PctOf => Unit::Percent,
        }
    }

    /// "speed-up over <label>", "speed-up over the previous variant", "of <label>" (the unit
    /// adds the "%", as for `pct_bw`). `baseline_label` is the baseline variant's label.
    pub fn label(&self, baseline_label: &str) -> String {
        let what = match &self.baseline {
            Baseline::Previous => "the previous variant",
            Baseline::Variant(_) => baseline_label,
        };
        match self.kind {
            RelativeKind::Speedup => format!("speed-up over {what}"),
            RelativeKind::PctOf => format!("of {what}"),
        }
    }

    /// The baseline variant of `variant` among the directive's `variants` (display order);
    /// `None` for the first variant with `previous`.
    pub fn baseline_of<'v>(&self, variant: &str, variants: &'v [String]) -> Option<&'v str> {
        match &self.baseline {
            Baseline::Variant(name) => variants.iter().find(|v| *v == name).map(String::as_str),
            Baseline::Previous => {
                let i = variants.iter().position(|v| v == variant)?;
                i.checked_sub(1).map(|j| variants[j].as_str())
            }
        }
    }

    /// The value from the two median times (ms); `None` unless both are positive and finite.
    pub fn value(&self, baseline_ms: f64, this_ms: f64) -> Option<f64> {
        let ok = |t: f64| t.is_finite() && t > 0.0;
        if !ok(baseline_ms) || !ok(this_ms) {
            return None;
        }
        let ratio = baseline_ms / this_ms;
        Some(match self.kind {
            RelativeKind::Speedup => ratio,
            RelativeKind::PctOf => 100.0 * ratio,
        })
    }
}
