//! Resolving the fields a table or chart names: axes, `variant`, and metrics with units.

use crate::metrics::RelativeMetric;
use crate::metrics::{default_label, known_unit};
use crate::results::view::{Cell, DirectiveView};
use crate::value::{Better, ParamValue, Unit};
use std::cmp::Ordering;

/// The pseudo-field naming a cell's variant.
pub(crate) const VARIANT: &str = "variant";
/// The pseudo-field naming a cell's device: the key that puts several GPUs side by side.
pub(crate) const DEVICE: &str = "device";

/// One value of a field, ordered for display (variants in display order, axis values by sort key).
#[derive(Debug, Clone)]
pub(crate) struct FieldValue {
    order: (u8, f64, String),
    /// The raw value (`160`, `shared_2d`).
    pub raw: ParamValue,
    /// What a reader sees (`160`, `Shared memory, 2D grid`).
    pub label: String,
}

impl PartialEq for FieldValue {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for FieldValue {}
impl PartialOrd for FieldValue {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for FieldValue {
    fn cmp(&self, other: &Self) -> Ordering {
        let (a, b) = (&self.order, &other.order);
        a.0.cmp(&b.0)
            .then(a.1.total_cmp(&b.1))
            .then_with(|| a.2.cmp(&b.2))
    }
}

impl FieldValue {
    /// The value as plain text (`160`, `shared_2d`), for CSV and attributes.
    pub(crate) fn raw_text(&self) -> String {
        self.raw.to_string()
    }

    /// The numeric value, for numeric chart axes.
    pub(crate) fn as_f64(&self) -> Option<f64> {
        self.raw.as_f64()
    }
}

/// The value of `field` in a cell; `None` when the cell has no such axis.
pub(crate) fn field_value(
    view: &DirectiveView<'_>,
    cell: &Cell<'_>,
    field: &str,
) -> Option<FieldValue> {
    if field == DEVICE {
        let slug = &cell.device.slug;
        let position = view.devices.iter().position(|d| &d.device.slug == slug);
        return Some(FieldValue {
            order: (0, position.unwrap_or(usize::MAX) as f64, slug.clone()),
            raw: ParamValue::Str(slug.clone()),
            label: cell.device.name.clone(),
        });
    }
    if field == VARIANT {
        let mut labels = view.variant_labels.iter();
        let position = labels.position(|(name, _)| name == &cell.variant);
        let order = position.unwrap_or(usize::MAX) as f64;
        return Some(FieldValue {
            order: (0, order, cell.variant.clone()),
            raw: ParamValue::Str(cell.variant.clone()),
            label: variant_label(view, &cell.variant),
        });
    }
    let value = cell.axes.get(field)?;
    Some(FieldValue {
        order: value.sort_key(),
        raw: value.clone(),
        label: value.to_string(),
    })
}

/// The cell's values of `fields`; `None` when it lacks one.
pub(crate) fn key_of(
    view: &DirectiveView<'_>,
    cell: &Cell<'_>,
    fields: &[String],
) -> Option<Vec<FieldValue>> {
    fields.iter().map(|f| field_value(view, cell, f)).collect()
}

/// The display label of a variant name.
pub(crate) fn variant_label(view: &DirectiveView<'_>, variant: &str) -> String {
    view.variant_labels
        .iter()
        .find(|(name, _)| name == variant)
        .map(|(_, label)| label.clone())
        .unwrap_or_else(|| variant.to_string())
}

/// Sorted distinct values of `field` over the cells.
pub(crate) fn distinct_values<'c, 'p: 'c>(
    view: &DirectiveView<'_>,
    cells: impl IntoIterator<Item = &'c Cell<'p>>,
    field: &str,
) -> Vec<FieldValue> {
    let mut values: Vec<FieldValue> = cells
        .into_iter()
        .filter_map(|c| field_value(view, c, field))
        .collect();
    values.sort();
    values.dedup();
    values
}

/// The axes, `variant` and `device` (not in `exclude`) with several values over the cells.
pub(crate) fn varying_fields(
    view: &DirectiveView<'_>,
    cells: &[Cell<'_>],
    exclude: &[&str],
) -> Vec<String> {
    let axes = view.directive.axes.iter().map(|a| a.name.as_str());
    axes.chain([VARIANT, DEVICE])
        .filter(|name| !exclude.contains(name))
        .filter(|name| distinct_values(view, cells, name).len() > 1)
        .map(str::to_string)
        .collect()
}

/// A metric as named in a table or chart (`time_ms`, `time_ms.min`), with its label and unit.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct MetricRef {
    /// Full name with suffix, as given to [`crate::record::Point::metric`].
    pub name: String,
    /// Name without the statistic suffix.
    pub base: String,
    pub label: String,
    pub unit: Unit,
    /// Its cells carry the timing's quality marks ([`crate::metrics::MetricInfo::uses_time`]).
    pub uses_time: bool,
    pub better: Option<Better>,
}

impl MetricRef {
    /// Resolves a metric name against the view's metric table, then the built-in metrics.
    pub(crate) fn resolve(view: &DirectiveView<'_>, name: &str) -> MetricRef {
        let (base, suffix) = name.split_once('.').unwrap_or((name, ""));
        // Relative metrics (`speedup:…`, never with a `.`) are in `view.metrics` by full name.
        let (label, unit, uses_time, better) = match view.metrics.get(base) {
            Some(info) => (info.label.clone(), info.unit, info.uses_time, info.better),
            None => {
                let unit = known_unit(base).unwrap_or(Unit::Count);
                (default_label(base), unit, true, unit.better())
            }
        };
        let label = match stat_label(suffix) {
            Some(stat) => format!("{label}, {stat}"),
            None => label,
        };
        MetricRef {
            name: name.to_string(),
            base: base.to_string(),
            label,
            unit,
            uses_time,
            better,
        }
    }

    /// `time (ms)`, or the bare label for unit-less counts.
    pub(crate) fn header(&self) -> String {
        match self.unit.symbol() {
            "" => self.label.clone(),
            unit => format!("{} ({unit})", self.label),
        }
    }

    /// Whether a paper's plain number compares: the median, and not a relative metric.
    pub(crate) fn is_plain(&self) -> bool {
        RelativeMetric::parse(&self.name).is_none()
            && matches!(self.name.split_once('.'), None | Some((_, "median")))
    }
}

fn stat_label(suffix: &str) -> Option<&'static str> {
    Some(match suffix {
        "min" => "min",
        "max" => "max",
        "q1" => "1st quartile",
        "q3" => "3rd quartile",
        _ => return None,
    })
}
