//! A plain-text table for the terminal (`mdbook-gpulab run`).

use super::outcome::CellState;
use crate::directive::TableSpec;
use crate::metrics::MetricInfo;
use crate::metrics::RelativeMetric;
use crate::results::view::{Cell, DeviceResults};
use crate::value::{ParamValue, Unit};
use std::collections::BTreeMap;

fn field(cell: &Cell, name: &str) -> ParamValue {
    if name == "variant" {
        ParamValue::Str(cell.variant.clone())
    } else {
        cell.axes
            .get(name)
            .cloned()
            .unwrap_or(ParamValue::Str(String::new()))
    }
}

fn distinct(cells: &[Cell], name: &str) -> Vec<ParamValue> {
    let mut out: Vec<ParamValue> = Vec::new();
    for c in cells {
        let v = field(c, name);
        if !out.contains(&v) {
            out.push(v);
        }
    }
    if name != "variant" {
        out.sort_by(|a, b| {
            a.sort_key()
                .partial_cmp(&b.sort_key())
                .unwrap_or(std::cmp::Ordering::Equal)
        });
    }
    out
}

/// Renders `spec` over one device's cells as aligned text.
pub fn text_table(
    spec: &TableSpec,
    results: &DeviceResults,
    metrics: &BTreeMap<String, MetricInfo>,
) -> String {
    let base = spec.value.split('.').next().unwrap_or(&spec.value);
    let unit = metrics
        .get(base)
        .map(|m| m.unit)
        .or_else(|| RelativeMetric::parse(&spec.value).map(|r| r.unit()))
        .unwrap_or(Unit::Count);
    let rows = distinct(&results.cells, &spec.rows);
    let cols = distinct(&results.cells, &spec.columns);
    let mut grid: Vec<Vec<String>> = Vec::new();
    // A unit the tool does not know (`ns`, `GOP/s`) is kept at the end of the metric's label.
    let unit_text = match unit.symbol() {
        "" => metrics
            .get(base)
            .and_then(|m| m.label.strip_suffix(')'))
            .and_then(|l| l.rsplit_once(" ("))
            .map(|(_, u)| u.to_string()),
        sym => Some(sym.to_string()),
    };
    let mut header = vec![match unit_text {
        Some(u) => format!("{} \\ {} ({u})", spec.rows, spec.value),
        None => format!("{} \\ {}", spec.rows, spec.value),
    }];
    header.extend(cols.iter().map(|c| c.to_string()));
    grid.push(header);
    for r in &rows {
        let mut line = vec![r.to_string()];
        for c in &cols {
            let cell = results
                .cells
                .iter()
                .find(|x| &field(x, &spec.rows) == r && &field(x, &spec.columns) == c);
            line.push(match CellState::of(cell, &spec.value) {
                CellState::Missing => "pending".into(),
                CellState::OutsideSweep => String::new(),
                CellState::Failed(_) => "FAILED".into(),
                CellState::Skipped(_) => "skipped".into(),
                CellState::NotApplicable(why) => why,
                CellState::Value(v) => super::format::format_value(v, unit),
                CellState::Text(t) => t,
                CellState::NoValue => "-".into(),
                CellState::AwaitingCounters => "awaiting counters".into(),
            });
            if cell.is_some_and(|c| c.stale) {
                line.last_mut().expect("just pushed").push_str(" (stale)");
            }
        }
        grid.push(line);
    }
    let widths: Vec<usize> = (0..grid[0].len())
        .map(|i| {
            grid.iter()
                .map(|l| l.get(i).map_or(0, |s| s.chars().count()))
                .max()
                .unwrap_or(0)
        })
        .collect();
    grid.iter()
        .map(|l| {
            l.iter()
                .enumerate()
                .map(|(i, s)| format!("{s:>w$}", w = widths[i]))
                .collect::<Vec<_>>()
                .join("  ")
        })
        .collect::<Vec<_>>()
        .join("\n")
}
