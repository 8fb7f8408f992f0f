//! A table's data as CSV (full precision; failed cells as `failed`) and its download link.

use super::fields::VARIANT;
use super::format::csv_number;
use super::html::{csv_data_uri, escape};
use super::outcome::CellState;
use super::table::TableModel;

/// The table in wide form (with `<column> paper` columns), values at full precision.
pub(crate) fn table_csv(model: &TableModel) -> String {
    let with_paper = model.paper_matches > 0;
    let mut header: Vec<String> = model.row_fields.clone();
    for column in &model.columns {
        let name = if model.column_field == VARIANT {
            column.raw_text()
        } else {
            format!("{}={}", model.column_field, column.raw_text())
        };
        let paper_name = format!("{name} paper");
        header.push(name);
        if with_paper {
            header.push(paper_name);
        }
    }
    let mut out = csv_line(&header);
    for row in &model.rows {
        let mut fields: Vec<String> = row.keys.iter().map(|k| k.raw_text()).collect();
        for cell in &row.cells {
            fields.push(match &cell.state {
                CellState::Value(v) => csv_number(*v),
                CellState::Failed(_) => "failed".into(),
                CellState::Text(t) => t.clone(),
                CellState::Skipped(_) => "skipped".into(),
                CellState::NotApplicable(_) => "not applicable".into(),
                CellState::NoValue
                | CellState::Missing
                | CellState::OutsideSweep
                | CellState::AwaitingCounters => String::new(),
            });
            if with_paper {
                fields.push(cell.paper.map(|p| csv_number(p.value)).unwrap_or_default());
            }
        }
        out.push_str(&csv_line(&fields));
    }
    out
}

fn csv_line(fields: &[String]) -> String {
    let mut line = fields
        .iter()
        .map(|f| quote(f))
        .collect::<Vec<_>>()
        .join(",");
    line.push('\n');
    line
}

fn quote(field: &str) -> String {
    if field.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_string()
    }
}

/// `<a download="exp.csv" href="data:text/csv;…">CSV</a>`.
pub(crate) fn csv_download_html(csv: &str, file_name: &str) -> String {
    format!(
        "<p class=\"gpulab-table-actions\"><a class=\"gpulab-csv\" download=\"{}\" href=\"{}\">⤓ CSV</a></p>",
        escape(file_name),
        escape(&csv_data_uri(csv))
    )
}

#[cfg(test)]
#[path = "csv_tests.rs"]
mod tests;
