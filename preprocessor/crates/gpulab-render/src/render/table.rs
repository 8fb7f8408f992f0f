//! The data of a results table: rows × columns of cells for one metric, best per row, paper values.

use super::compare::{PaperValue, compare, paper_value};
use super::fields::{
    DEVICE, FieldValue, MetricRef, VARIANT, distinct_values, field_value, key_of, varying_fields,
};
use super::outcome::CellState;
use super::quality::{Concern, concerns, point_title};
use crate::directive::TableSpec;
use crate::results::view::{Cell, DeviceResults, DirectiveView};
use crate::value::Better;
use std::collections::BTreeMap;

/// One displayed cell.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TableCell {
    pub state: CellState,
    pub stale: bool,
    /// The best value of its row (as the metric's [`Better`] says), among at least two values.
    pub best: bool,
    pub paper: Option<PaperValue>,
    /// What marks the number (noise, sample cap, few samples, throttled, above peak); empty unless a value.
    pub concerns: Vec<Concern>,
    /// Sample count, spread and the concerns' reasons, for the tooltip (timed values only).
    pub quality: Option<String>,
}

/// One row: its key values (the rows field, then any other varying fields) and its cells.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TableRow {
    pub keys: Vec<FieldValue>,
    pub cells: Vec<TableCell>,
}

/// A table ready to be written as HTML or CSV.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TableModel {
    pub title: Option<String>,
    pub metric: MetricRef,
    /// Names of the key fields heading the row-key columns.
    pub row_fields: Vec<String>,
    pub column_field: String,
    pub columns: Vec<FieldValue>,
    /// How many of `columns`, from the first, the directive's `key` names.
    pub key_columns: usize,
    pub rows: Vec<TableRow>,
    /// Cells that have a paper value.
    pub paper_matches: usize,
    /// Cells left without the paper's value because its row (naming fewer axes) is shown already.
    pub paper_repeats: usize,
    /// The table's fields that those paper rows do not name (sorted, for the caption).
    pub paper_unnamed: Vec<String>,
}

impl TableModel {
    /// Arranges `device`'s cells as `spec` asks; several devices get a column each where they can.
    pub(crate) fn build(
        view: &DirectiveView<'_>,
        device: &DeviceResults<'_>,
        spec: &TableSpec,
    ) -> TableModel {
        let cells = &device.cells;
        let varies = |f: &str| distinct_values(view, cells, f).len() > 1;
        let by_device;
        let spec = if varies(DEVICE) && !varies(&spec.columns) && spec.rows != DEVICE {
            by_device = TableSpec {
                columns: DEVICE.into(),
                ..spec.clone()
            };
            &by_device
        } else {
            spec
        };
        let column_field = spec.columns.clone();
        let row_field = row_field(view, cells, spec);
        let mut row_fields: Vec<String> = [row_field.clone()]
            .into_iter()
            .filter(|f| !f.is_empty())
            .collect();
        row_fields.extend(varying_fields(view, cells, &[&row_field, &column_field]));

        let mut columns = distinct_values(view, cells, &column_field);
        let key_rank = |c: &FieldValue| spec.key.iter().position(|k| *k == c.raw_text());
        columns.sort_by_key(|c| key_rank(c).unwrap_or(usize::MAX));
        let key_columns = columns.iter().filter(|c| key_rank(c).is_some()).count();
        let grid = grid(view, cells, (&row_fields, &column_field), &columns);

        let metric = MetricRef::resolve(view, &spec.value);
        let (mut paper_matches, mut paper_repeats) = (0, 0);
        let mut paper_unnamed = std::collections::BTreeSet::new();
        // The paper rows already shown on each device (by address), so that none repeats its number.
        let mut shown_rows: std::collections::HashSet<(*const crate::papers::PaperRow, &str)> =
            std::collections::HashSet::new();
        let table_fields: Vec<&String> = row_fields.iter().chain([&column_field]).collect();
        let rows = grid
            .into_iter()
            .map(|(keys, by_column)| {
                let mut cells: Vec<TableCell> = (0..columns.len())
                    .map(|i| {
                        let cell = by_column.get(&i).copied();
                        let mut shown = table_cell(cell, &metric);
                        shown.paper = cell.zip(view.paper).and_then(|(cell, paper)| {
                            let value = paper_value(paper, &metric, &cell.variant, &cell.axes)?;
                            let row = paper.lookup(&cell.variant, &cell.axes)?;
                            if !shown_rows.insert((row as *const _, cell.device.slug.as_str())) {
                                paper_repeats += 1;
                                paper_unnamed.extend(
                                    table_fields
                                        .iter()
                                        .filter(|f| {
                                            cell.axes.contains_key(f.as_str())
                                                && !row.axes.contains_key(f.as_str())
                                        })
                                        .map(|f| f.to_string()),
                                );
                                return None;
                            }
                            Some(compare(
                                value,
                                shown.state.value(),
                                metric.unit,
                                paper.no_speedup().is_none(),
                            ))
                        });
                        paper_matches += usize::from(shown.paper.is_some());
                        shown
                    })
                    .collect();
                mark_best(&mut cells, metric.better);
                TableRow { keys, cells }
            })
            .collect();

        TableModel {
            title: spec.title.clone(),
            metric,
            row_fields,
            column_field,
            columns,
            key_columns,
            rows,
            paper_matches,
            paper_repeats,
            paper_unnamed: paper_unnamed.into_iter().collect(),
        }
    }

    pub(crate) fn any_stale(&self) -> bool {
        self.rows.iter().flat_map(|r| &r.cells).any(|c| c.stale)
    }
}

impl TableCell {
    /// A cell in `state`, with no marks.
    pub(crate) fn new(state: CellState) -> TableCell {
        TableCell {
            state,
            stale: false,
            best: false,
            paper: None,
            concerns: Vec::new(),
            quality: None,
        }
    }
}

/// How a table shows `metric` of `cell` (without the paper's value).
pub(crate) fn table_cell(cell: Option<&Cell<'_>>, metric: &MetricRef) -> TableCell {
    let state = CellState::of(cell, &metric.name);
    // A compile-time attribute or a count is not noisy: no timing marks.
    let point = cell
        .and_then(|c| Some((c.point?, c)))
        .filter(|_| metric.uses_time)
        .filter(|_| matches!(state, CellState::Value(_)));
    TableCell {
        stale: cell.is_some_and(|c| c.stale),
        concerns: point
            .map(|(p, c)| concerns(p, c.device))
            .unwrap_or_default(),
        quality: point.and_then(|(p, c)| point_title(p, c.calibration, c.device)),
        ..TableCell::new(state)
    }
}

/// The cells by row (values of `row_fields`) and column index; the first cell of a place is kept.
fn grid<'c, 'v>(
    view: &DirectiveView<'_>,
    cells: &'c [Cell<'v>],
    (row_fields, column_field): (&[String], &str),
    columns: &[FieldValue],
) -> BTreeMap<Vec<FieldValue>, BTreeMap<usize, &'c Cell<'v>>> {
    let mut grid: BTreeMap<Vec<FieldValue>, BTreeMap<usize, &Cell<'_>>> = BTreeMap::new();
    for cell in cells {
        let keys = key_of(view, cell, row_fields);
        let column = field_value(view, cell, column_field)
            .and_then(|value| columns.iter().position(|c| *c == value));
        if let (Some(keys), Some(column)) = (keys, column) {
            grid.entry(keys).or_default().entry(column).or_insert(cell);
        }
    }
    grid
}

/// The rows field: as given, else the first axis with several values that is not the columns field.
pub fn row_field(view: &DirectiveView<'_>, cells: &[Cell<'_>], spec: &TableSpec) -> String {
    if !spec.rows.is_empty() {
        return spec.rows.clone();
    }
    let axes = view
        .directive
        .axes
        .iter()
        .map(|a| a.name.as_str())
        .filter(|n| *n != spec.columns);
    let varying = varying_fields(view, cells, &[&spec.columns]);
    varying
        .into_iter()
        .find(|f| f != VARIANT)
        .or_else(|| axes.clone().next().map(str::to_string))
        .unwrap_or_else(|| if spec.columns == VARIANT { "" } else { VARIANT }.into())
}

fn mark_best(cells: &mut [TableCell], better: Option<Better>) {
    let values: Vec<f64> = cells.iter().filter_map(|c| c.state.value()).collect();
    let Some(better) = better.filter(|_| values.len() >= 2) else {
        return;
    };
    let best = match better {
        Better::Higher => values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        Better::Lower => values.iter().copied().fold(f64::INFINITY, f64::min),
    };
    for cell in cells {
        cell.best = cell.state.value() == Some(best);
    }
}

#[cfg(test)]
#[path = "table_tests.rs"]
mod tests;
