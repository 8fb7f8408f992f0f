//! The HTML of a results table: units in headers, best per row, failed and skipped cells, paper ratios.

use super::compare::{PaperValue, caption_html, no_column_html};
use super::csv::{csv_download_html, table_csv};
use super::fields::{DEVICE, VARIANT};
use super::format::format_value;
use super::html::escape;
use super::outcome::CellState;
use super::quality::marks_html;
use super::table::{TableCell, TableModel};
use crate::papers::PaperTable;
use crate::value::Unit;
use std::fmt::Write as _;

/// Writes `model` as a `<table>` followed by its CSV download link (`csv_name`, e.g. `exp.csv`).
pub(crate) fn table_html(model: &TableModel, paper: Option<&PaperTable>, csv_name: &str) -> String {
    let mut out =
        String::from("<div class=\"gpulab-table-wrap\">\n<table class=\"gpulab-table\">\n");
    if let Some(title) = &model.title {
        let _ = writeln!(out, "<caption>{}</caption>", escape(title));
    }
    write_head(&mut out, model);
    out.push_str("<tbody>\n");
    for row in &model.rows {
        out.push_str("<tr>");
        for key in &row.keys {
            let _ = write!(
                out,
                "<th scope=\"row\" title=\"{}\">{}</th>",
                escape(&key.raw_text()),
                escape(&key.label)
            );
        }
        for (i, cell) in row.cells.iter().enumerate() {
            write_cell(&mut out, cell, model.metric.unit, i < model.key_columns);
        }
        out.push_str("</tr>\n");
    }
    if model.rows.is_empty() {
        let span = model.row_fields.len() + model.columns.len().max(1);
        let _ = writeln!(
            out,
            "<tr><td colspan=\"{span}\" class=\"gpulab-missing\">no cells to show</td></tr>"
        );
    }
    out.push_str("</tbody>\n");
    write_foot(&mut out, model, paper);
    out.push_str("</table>\n");
    out.push_str(&csv_download_html(&table_csv(model), csv_name));
    out.push_str("\n</div>");
    out
}

fn write_head(out: &mut String, model: &TableModel) {
    out.push_str("<thead>\n<tr>");
    for field in &model.row_fields {
        let _ = write!(
            out,
            "<th rowspan=\"2\" scope=\"col\">{}</th>",
            escape(field)
        );
    }
    let _ = writeln!(
        out,
        "<th colspan=\"{}\" scope=\"colgroup\" class=\"gpulab-metric\">{}</th></tr>",
        model.columns.len().max(1),
        escape(&model.metric.header())
    );
    out.push_str("<tr>");
    for (i, column) in model.columns.iter().enumerate() {
        let label = match [VARIANT, DEVICE].contains(&model.column_field.as_str()) {
            true => column.label.clone(),
            false => format!("{} = {}", model.column_field, column.label),
        };
        let _ = write!(
            out,
            "<th scope=\"col\"{} title=\"{}\">{}</th>",
            key_class(i < model.key_columns),
            escape(&column.raw_text()),
            escape(&label)
        );
    }
    if model.columns.is_empty() {
        out.push_str("<th></th>");
    }
    out.push_str("</tr>\n</thead>\n");
}

/// The class of a column the directive's `key` names (the browser test checks it is in view).
fn key_class(key: bool) -> &'static str {
    if key { " class=\"gpulab-key\"" } else { "" }
}

fn write_cell(out: &mut String, cell: &TableCell, unit: Unit, key: bool) {
    let (parts, body, title) = cell_parts(cell, unit);
    let mut classes = vec!["gpulab-cell"];
    if key {
        classes.push("gpulab-key");
    }
    classes.extend(parts);
    let _ = write!(out, "<td class=\"{}\"", classes.join(" "));
    if let Some(title) = title {
        let _ = write!(out, " title=\"{}\"", escape(&title));
    }
    out.push('>');
    out.push_str(&body);
    out.push_str(&cell_marks(cell));
    if let Some(paper) = &cell.paper {
        write_paper_line(out, paper, unit);
    }
    out.push_str("</td>");
}

/// What a cell (a table's or an inline value's) shows: its classes, HTML text and tooltip.
pub(crate) fn cell_parts(
    cell: &TableCell,
    unit: Unit,
) -> (Vec<&'static str>, String, Option<String>) {
    let title = |t: &str| Some(t.to_string());
    let (class, body, title) = match &cell.state {
        CellState::Value(v) => {
            let value = escape(&format_value(*v, unit));
            (Some("gpulab-num"), value, cell.quality.clone())
        }
        CellState::Text(t) => (None, escape(t), None),
        CellState::NoValue => (
            Some("gpulab-missing"),
            "—".to_string(),
            title("no value for this metric"),
        ),
        CellState::Failed(reason) => (Some("gpulab-failed"), "✗ failed".into(), title(reason)),
        CellState::Skipped(reason) => (
            Some("gpulab-skipped"),
            format!("skipped ({})", escape(reason)),
            Some(format!("not run: {reason}")),
        ),
        CellState::NotApplicable(why) => (
            Some("gpulab-skipped"),
            escape(why),
            Some(format!("not applicable on this GPU: {why}")),
        ),
        CellState::AwaitingCounters => (
            Some("gpulab-pending"),
            "awaiting counters".to_string(),
            title(
                "hardware counters not recorded yet: awaiting a GPU run (mdbook-gpulab record --counters)",
            ),
        ),
        CellState::Missing => (
            Some("gpulab-pending"),
            "pending".to_string(),
            title("not recorded yet: awaiting a GPU run"),
        ),
        CellState::OutsideSweep => (
            Some("gpulab-outside"),
            String::new(),
            title("not part of this sweep"),
        ),
    };
    let mut classes: Vec<&'static str> = class.into_iter().collect();
    if cell.best && matches!(cell.state, CellState::Value(_)) {
        classes.push("gpulab-best");
    }
    let mut title = title;
    if cell.stale {
        classes.push("gpulab-stale");
        let note = "recorded with an older kernel or spec";
        title = Some(match title {
            Some(t) => format!("{t}; {note}"),
            None => note.to_string(),
        });
    }
    (classes, body, title)
}

/// The quality marks and the stale mark after a cell's text.
pub(crate) fn cell_marks(cell: &TableCell) -> String {
    let mut out = marks_html(&cell.concerns);
    if cell.stale {
        out.push_str("<sup class=\"gpulab-stale-mark\">†</sup>");
    }
    out
}

fn write_paper_line(out: &mut String, paper: &PaperValue, unit: Unit) {
    let _ = write!(
        out,
        "<span class=\"gpulab-paper\">paper {}",
        escape(&format_value(paper.value, unit))
    );
    if let Some(speedup) = paper.speedup {
        let _ = write!(
            out,
            " · <span class=\"gpulab-ratio\" title=\"speed-up vs paper\">{}</span>",
            escape(&format_value(speedup, Unit::Ratio))
        );
    }
    out.push_str("</span>");
}

fn write_foot(out: &mut String, model: &TableModel, paper: Option<&PaperTable>) {
    let span = model.row_fields.len() + model.columns.len().max(1);
    let mut notes = Vec::new();
    if let Some(paper) = paper
        && model.metric.is_plain()
    {
        notes.push(match paper.has_metric(&model.metric.base) {
            true => caption_html(paper, model.metric.unit, model.paper_matches),
            false => no_column_html(paper, &model.metric.base, &model.metric.label),
        });
        if model.paper_repeats > 0 {
            notes.push(format!(
                "each of the paper's values is shown once, in the first cell it matches: its table does not state {}",
                escape(&model.paper_unnamed.join(", "))
            ));
        }
    }
    if model.any_stale() {
        notes.push("† recorded with an older kernel or spec; run <code>mdbook-gpulab record</code> to refresh".into());
    }
    if notes.is_empty() {
        return;
    }
    out.push_str("<tfoot>\n");
    for note in notes {
        let _ = writeln!(
            out,
            "<tr><td colspan=\"{span}\" class=\"gpulab-table-note\">{note}</td></tr>"
        );
    }
    out.push_str("</tfoot>\n");
}
