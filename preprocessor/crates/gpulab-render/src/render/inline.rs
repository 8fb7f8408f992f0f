//! An inline value (`{{#gpulab …}}` in prose): a result or an expression, shown as a cell shows it.

use super::fields::{MetricRef, variant_label};
use super::format::csv_number;
use super::html::escape;
use super::outcome::CellState;
use super::provenance::provenance_text;
use super::table::{TableCell, table_cell};
use super::table_html::{cell_marks, cell_parts};
use crate::directive::{Inline, Operand};
use crate::expr::Num;
use crate::results::device_matches;
use crate::results::view::{DeviceResults, DirectiveView};
use crate::value::Unit;
use std::collections::HashMap;

/// What an inline value shows.
#[derive(Debug, Clone)]
pub struct InlineValue {
    cell: TableCell,
    pub unit: Unit,
    /// Each result and where it comes from, for the tooltip.
    pub sources: Vec<String>,
}

impl InlineValue {
    /// The value, when every result it needs is recorded and verified.
    pub fn value(&self) -> Option<f64> {
        self.cell.state.value()
    }

    /// Why it shows no current value (`pending`, `failed`, `stale`, …); `None` when it is current.
    pub fn problem(&self) -> Option<&'static str> {
        match &self.cell.state {
            CellState::Missing | CellState::AwaitingCounters => Some("pending"),
            CellState::Failed(_) => Some("failed"),
            CellState::Skipped(_) => Some("skipped"),
            CellState::NotApplicable(_) => Some("not applicable"),
            CellState::NoValue | CellState::OutsideSweep | CellState::Text(_) => Some("no value"),
            CellState::Value(_) if self.cell.stale => Some("stale"),
            CellState::Value(_) => None,
        }
    }

    /// `<span class="gpulab-value gpulab-num" title="…" data-value="2241.3">2 241 GB/s</span>`.
    pub fn html(&self) -> String {
        let (mut classes, mut body, title) = cell_parts(&self.cell, self.unit);
        classes.insert(0, "gpulab-value");
        if self.cell.state == CellState::Missing {
            body = "awaiting a GPU run".into();
        }
        let symbol = self.unit.symbol();
        if self.value().is_some() && !matches!(self.unit, Unit::Percent | Unit::Ratio | Unit::Count)
        {
            body.push('\u{a0}');
            body.push_str(&escape(symbol));
        }
        let tip: Vec<String> = title.into_iter().chain(self.sources.clone()).collect();
        let data = self
            .value()
            .map(|v| format!(" data-value=\"{}\"", csv_number(v)))
            .unwrap_or_default();
        format!(
            "<span class=\"{}\" title=\"{}\"{data}>{body}{}</span>",
            classes.join(" "),
            escape(&tip.join("\n")).replace('\n', "&#10;"),
            // `~` (the noise mark) would start markdown's strikethrough in the paragraph.
            cell_marks(&self.cell).replace('~', "&#126;")
        )
    }
}

/// The inline value `inline` of `view`; a result naming no device is read on `default`, else the first.
pub fn inline_value(
    view: &DirectiveView<'_>,
    inline: &Inline,
    default: Option<&str>,
) -> InlineValue {
    let results: Vec<(TableCell, String)> = inline
        .operands
        .iter()
        .map(|op| operand(view, op, default))
        .collect();
    let lone = match inline.operands.as_slice() {
        [op] if inline.expr.source().trim() == op.var => Some(op),
        _ => None,
    };
    let unit = inline.unit.unwrap_or_else(|| match lone {
        Some(op) => MetricRef::resolve(view, &op.metric).unit,
        None => Unit::Count,
    });
    let cell = match (lone, results.first()) {
        (Some(_), Some((cell, _))) => cell.clone(),
        _ => combine(inline, &results),
    };
    InlineValue {
        cell,
        unit,
        sources: results.into_iter().map(|(_, s)| s).collect(),
    }
}

/// The device `name` names (a slug or a part of one), else `default`, else the first one shown.
fn device<'v, 'a>(
    view: &'v DirectiveView<'a>,
    name: Option<&str>,
    default: Option<&str>,
) -> Option<&'v DeviceResults<'a>> {
    match name {
        Some(n) => view
            .devices
            .iter()
            .find(|d| device_matches(n, &d.device.slug)),
        None => default
            .and_then(|s| view.devices.iter().find(|d| d.device.slug == s))
            .or(view.devices.first()),
    }
}

/// One result as a table cell shows it, and where it comes from.
fn operand(view: &DirectiveView<'_>, op: &Operand, default: Option<&str>) -> (TableCell, String) {
    let metric = MetricRef::resolve(view, &op.metric);
    let at: Vec<String> = op.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let what = format!(
        "{} ({}): {} at {}",
        variant_label(view, &op.variant),
        op.variant,
        metric.label,
        at.join(", ")
    );
    match device(view, op.device.as_deref(), default) {
        Some(d) => {
            let cell = d
                .cells
                .iter()
                .find(|c| c.variant == op.variant && c.axes == op.params);
            let source = format!("{what} · {}", provenance_text(&d.provenance));
            (table_cell(cell, &metric), source)
        }
        None => {
            let on = op.device.as_deref().unwrap_or("any device");
            let missing = TableCell::new(CellState::Missing);
            (missing, format!("{what} · not recorded on {on} yet"))
        }
    }
}

/// The expression's value over its results (else the first one's reason), with all their marks.
fn combine(inline: &Inline, results: &[(TableCell, String)]) -> TableCell {
    let mut concerns: Vec<_> = results
        .iter()
        .flat_map(|(c, _)| c.concerns.clone())
        .collect();
    concerns.sort();
    concerns.dedup();
    let quality: Vec<String> = results
        .iter()
        .filter_map(|(c, _)| c.quality.clone())
        .collect();
    let state = match results.iter().find(|(c, _)| c.state.value().is_none()) {
        Some((c, _)) => c.state.clone(),
        None => {
            let env: HashMap<String, Num> = inline
                .operands
                .iter()
                .zip(results)
                .filter_map(|(op, (c, _))| Some((op.var.clone(), Num::Float(c.state.value()?))))
                .collect();
            match inline.expr.eval(&env).map(Num::as_f64) {
                Ok(v) if v.is_finite() => CellState::Value(v),
                _ => CellState::NoValue,
            }
        }
    };
    TableCell {
        stale: results.iter().any(|(c, _)| c.stale),
        concerns,
        quality: (!quality.is_empty()).then(|| quality.join("; ")),
        ..TableCell::new(state)
    }
}
