//! [`ChartData`] from a device's cells, as a directive's `chart = { … }` asks.

use super::{ChartData, ChartPoint, PointValue, Series, Tip, ValueAxis, XAxis, XScale};
use crate::directive::{ChartKind, ChartSpec};
use crate::metrics::TIME_MS;
use crate::render::fields::{
    DEVICE, FieldValue, MetricRef, VARIANT, distinct_values, field_value, key_of, varying_fields,
};
use crate::render::outcome::CellState;
use crate::render::quality::{concerns, point_tip};
use crate::results::view::{Cell, DeviceResults, DirectiveView};
use std::collections::BTreeMap;

/// One chart's worth of data (a heat map may be split into several, one per extra field value).
#[derive(Debug, Clone, PartialEq)]
pub struct SweepData {
    /// For a heat map split by fields it does not show: "variant = Shared memory, M = 16".
    pub facet: Option<String>,
    x: XAxis,
    value: ValueAxis,
    series: Vec<Series>,
    series_label: String,
}

impl ChartData for SweepData {
    fn x_axis(&self) -> XAxis {
        self.x.clone()
    }
    fn value_axis(&self) -> ValueAxis {
        self.value.clone()
    }
    fn series(&self) -> Vec<Series> {
        self.series.clone()
    }
    fn series_label(&self) -> String {
        self.series_label.clone()
    }
}

impl SweepData {
    /// The data of `spec` over `device`'s cells: one entry per chart (a heat map's facets: several).
    pub fn build(
        view: &DirectiveView<'_>,
        device: &DeviceResults<'_>,
        spec: &ChartSpec,
    ) -> Vec<SweepData> {
        let cells = &device.cells;
        match spec.kind {
            ChartKind::Line | ChartKind::Bar => {
                let metric = MetricRef::resolve(view, &spec.y);
                let mut series_fields: Vec<String> = spec.series.iter().cloned().collect();
                let mut exclude: Vec<&str> = vec![&spec.x];
                exclude.extend(series_fields.iter().map(String::as_str));
                let extra = varying_fields(view, cells, &exclude);
                series_fields.extend(extra);
                let all: Vec<&Cell<'_>> = cells.iter().collect();
                let series_label = series_fields.join(", ");
                vec![Self::one(
                    view,
                    &all,
                    spec,
                    &metric,
                    &series_fields,
                    series_label,
                    None,
                )]
            }
            ChartKind::Heatmap => {
                let metric = MetricRef::resolve(view, spec.value.as_deref().unwrap_or(TIME_MS));
                let facet_fields = varying_fields(view, cells, &[&spec.x, &spec.y]);
                let mut facets: BTreeMap<Vec<FieldValue>, Vec<&Cell<'_>>> = BTreeMap::new();
                for cell in cells {
                    if let Some(key) = key_of(view, cell, &facet_fields) {
                        facets.entry(key).or_default().push(cell);
                    }
                }
                let rows = std::slice::from_ref(&spec.y);
                facets
                    .into_iter()
                    .map(|(key, group)| {
                        let facet =
                            (!facet_fields.is_empty()).then(|| describe(&facet_fields, &key));
                        Self::one(view, &group, spec, &metric, rows, spec.y.clone(), facet)
                    })
                    .collect()
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn one(
        view: &DirectiveView<'_>,
        cells: &[&Cell<'_>],
        spec: &ChartSpec,
        metric: &MetricRef,
        series_fields: &[String],
        series_label: String,
        facet: Option<String>,
    ) -> SweepData {
        let xs = distinct_values(view, cells.iter().copied(), &spec.x);
        let numeric = spec.x != VARIANT
            && spec.kind == ChartKind::Line
            && xs.iter().all(|v| v.as_f64().is_some());
        let scale = match numeric {
            true => XScale::Numeric { log: spec.log_x },
            false => XScale::Categorical(xs.iter().map(|v| v.label.clone()).collect()),
        };

        let mut by_series: BTreeMap<Vec<FieldValue>, Vec<ChartPoint>> = BTreeMap::new();
        for cell in cells {
            let key = key_of(view, cell, series_fields);
            let (Some(key), Some(x)) = (key, field_value(view, cell, &spec.x)) else {
                continue;
            };
            let x = match numeric {
                true => x.as_f64().unwrap_or(0.0),
                false => xs.iter().position(|v| *v == x).unwrap_or(0) as f64,
            };
            let value = match CellState::of(Some(cell), &metric.name) {
                CellState::Value(v) => PointValue::Value(v),
                CellState::Failed(_) => PointValue::Failed,
                CellState::Skipped(_) | CellState::NotApplicable(_) => PointValue::Skipped,
                CellState::NoValue
                | CellState::AwaitingCounters
                | CellState::Missing
                | CellState::OutsideSweep
                | CellState::Text(_) => PointValue::Missing,
            };
            let tip = match (&value, cell.point.filter(|_| metric.uses_time)) {
                (PointValue::Value(_), Some(point)) => {
                    point_tip(point, cell.calibration, cell.device).map(|text| Tip {
                        flagged: !concerns(point, cell.device).is_empty(),
                        text,
                    })
                }
                _ => None,
            };
            by_series
                .entry(key)
                .or_default()
                .push(ChartPoint { x, value, tip });
        }
        let series = by_series
            .into_iter()
            .map(|(key, points)| Series {
                name: series_name(series_fields, &key, metric, spec.kind == ChartKind::Heatmap),
                points,
            })
            .collect();
        SweepData {
            facet,
            x: XAxis {
                label: spec.x.clone(),
                scale,
            },
            value: ValueAxis {
                label: metric.header(),
                unit: metric.unit,
                log: spec.log_y,
                better: metric.better,
            },
            series,
            series_label,
        }
    }
}

/// A series' name: its field values ("Shared memory, M = 16"), or the metric; a heat map's row: bare.
fn series_name(fields: &[String], key: &[FieldValue], metric: &MetricRef, rows: bool) -> String {
    if fields.is_empty() {
        return metric.label.clone();
    }
    fields
        .iter()
        .zip(key)
        .map(|(field, value)| {
            if [VARIANT, DEVICE].contains(&field.as_str()) || rows {
                value.label.clone()
            } else {
                format!("{field} = {}", value.label)
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// "variant = Shared memory, M = 16"
fn describe(fields: &[String], key: &[FieldValue]) -> String {
    fields
        .iter()
        .zip(key)
        .map(|(f, v)| format!("{f} = {}", v.label))
        .collect::<Vec<_>>()
        .join(", ")
}
