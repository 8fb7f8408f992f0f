//! Our numbers beside a paper's: the paper's value for a cell and the speed-up vs the paper.

use super::fields::MetricRef;
use super::html::escape;
use crate::papers::PaperTable;
use crate::value::{ParamValue, Unit};
use std::collections::BTreeMap;

/// The paper's number for one cell and how ours compares.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PaperValue {
    /// In our metric's unit.
    pub value: f64,
    /// Speed-up vs the paper (> 1: ours better); `None` without both values or for a unit not a speed.
    pub speedup: Option<f64>,
}

/// The paper's value for `metric` at (variant, axes) in our unit (s ↔ ms), if it has one.
pub(crate) fn paper_value(
    paper: &PaperTable,
    metric: &MetricRef,
    variant: &str,
    axes: &BTreeMap<String, ParamValue>,
) -> Option<f64> {
    if !metric.is_plain() {
        return None;
    }
    let row = paper.lookup(variant, axes)?;
    let value = *row.metrics.get(&metric.base)?;
    let paper_unit = paper.unit_of(&metric.base).unwrap_or(metric.unit);
    convert(value, paper_unit, metric.unit)
}

/// Compares our value with the paper's (`comparable`: unless [`PaperTable::no_speedup`]).
pub fn compare(paper: f64, ours: Option<f64>, unit: Unit, comparable: bool) -> PaperValue {
    let speedup = ours
        .filter(|_| comparable && unit.is_speed())
        .and_then(|ours| {
            let ratio = if unit.better() == Some(crate::value::Better::Higher) {
                ours / paper
            } else {
                paper / ours
            };
            (ratio.is_finite() && ratio > 0.0).then_some(ratio)
        });
    PaperValue {
        value: paper,
        speedup,
    }
}

fn convert(value: f64, from: Unit, to: Unit) -> Option<f64> {
    match (from, to) {
        (a, b) if a == b => Some(value),
        (Unit::Seconds, Unit::Millis) => Some(value * 1e3),
        (Unit::Millis, Unit::Seconds) => Some(value / 1e3),
        _ => None,
    }
}

/// "paper: GeForce 9600M GT (widuch2010, Table 3)" with how to read the second line.
pub(crate) fn caption_html(paper: &PaperTable, unit: Unit, matched: usize) -> String {
    let head = paper_label_html(paper);
    if matched == 0 {
        return format!("{head} — no value of the paper matches these cells");
    }
    if let Some(why) = paper.no_speedup() {
        return format!(
            "{head} — second line: the paper's value; no speed-up is shown: {}",
            escape(why)
        );
    }
    if !unit.is_speed() {
        return format!(
            "{head} — second line: the paper's value (not a speed, so no speed-up is shown)"
        );
    }
    let how = if unit.better() == Some(crate::value::Better::Higher) {
        "ours ÷ paper"
    } else {
        "paper ÷ ours"
    };
    format!(
        "{head} — second line: the paper's value · speed-up vs paper ({how}; &gt; 1: ours better)"
    )
}

/// "paper: GeForce 9600M GT (widuch2010, Table 3)", the GPU and the source in the tooltip.
fn paper_label_html(paper: &PaperTable) -> String {
    let gpu = paper.gpu().unwrap_or("GPU not stated");
    let short_gpu = paper.gpu_short().map_or(gpu, |(name, _)| name);
    let mut tooltip = gpu.to_string();
    if let Some(source) = paper.meta.get("source") {
        tooltip.push_str(" · ");
        tooltip.push_str(source);
    }
    format!(
        "<span class=\"gpulab-paper-label\" title=\"{}\">paper: {} ({})</span>",
        escape(&tooltip),
        escape(short_gpu),
        escape(&paper.citation())
    )
}

/// The caption of a table whose metric the paper's table has no numbers for (or gives in words).
pub(crate) fn no_column_html(paper: &PaperTable, metric: &str, label: &str) -> String {
    let in_words = paper.info_columns.iter().any(|c| c == metric);
    format!(
        "{} — the paper's table gives {} {}",
        paper_label_html(paper),
        if in_words {
            "in words, not as a number,"
        } else {
            "no number for"
        },
        escape(label)
    )
}

#[cfg(test)]
#[path = "compare_tests.rs"]
mod tests;
