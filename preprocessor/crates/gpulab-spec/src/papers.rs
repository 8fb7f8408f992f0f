//! The papers' published numbers: `data/papers/<key>/<item>.csv` with `#` metadata lines.
//!
//! Format (DESIGN.md): `# key: value` metadata lines, then a header row whose columns are axis
//! names, `variant`, and metric columns (those named in `# units:` or built-in metric names).
//! Axis cells parse as [`ParamValue`] (int, else float, else string); metric cells as `f64`;
//! an empty cell is absent. `# mirror:` adds a variant read from the printed cells with two axes
//! swapped ([`mirror`]).

mod mirror;

use crate::metrics::known_unit;
use crate::record::store::PAPERS_DIR;
use crate::value::{ParamValue, Unit};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One paper table, long format: each row a variant at some axis values with metric columns.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PaperTable {
    /// `widuch2010/table3`
    pub id: String,
    /// `# key: value` metadata (paper, item, gpu, source, units, note).
    pub meta: BTreeMap<String, String>,
    pub rows: Vec<PaperRow>,
    /// Columns after `variant` that hold words, not numbers (`limiter`): not compared.
    pub info_columns: Vec<String>,
}

/// One row of a paper table.
#[derive(Debug, Clone, PartialEq)]
pub struct PaperRow {
    /// Its 1-based line in the file (a `# mirror:` row: the mirrored row's).
    pub line: usize,
    pub variant: String,
    pub axes: BTreeMap<String, ParamValue>,
    pub metrics: BTreeMap<String, f64>,
}

/// Errors loading a paper table; each names the file (and line, where there is one).
#[derive(Debug, thiserror::Error)]
pub enum PaperError {
    #[error("invalid paper id `{id}`: expected `<paper>/<table>` (letters, digits, `_`, `-`, `.`)")]
    InvalidId { id: String },
    #[error("{path} resolves outside the book's data folder (a symlink?)")]
    Outside { path: PathBuf },
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}:{line}: {message}")]
    Syntax {
        path: PathBuf,
        line: usize,
        message: String,
    },
}

impl PaperTable {
    /// Loads `<data_dir>/papers/<id>.csv`, e.g. `id = "widuch2010/table3"`.
    pub fn load(data_dir: &Path, id: &str) -> Result<PaperTable, PaperError> {
        let path = paper_path(data_dir, id)?;
        if path.exists() && !crate::confine::is_inside(&path, &[data_dir]) {
            return Err(PaperError::Outside { path });
        }
        let text = crate::confine::read_regular_file(&path).map_err(|source| PaperError::Io {
            path: path.clone(),
            source,
        })?;
        PaperTable::parse(id, &path, &text)
    }

    /// Parses the text of a paper CSV; `path` is only used in error messages.
    pub fn parse(id: &str, path: &Path, text: &str) -> Result<PaperTable, PaperError> {
        let syntax = |line: usize, message: String| PaperError::Syntax {
            path: path.to_path_buf(),
            line,
            message,
        };
        let mut meta = BTreeMap::new();
        let mut header: Option<Header> = None;
        let mut rows = Vec::new();
        // (variant, axes) of each row read so far, with its line: a repeated row is an error
        // (lookups would silently take the first).
        let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        let mut lines: Vec<usize> = Vec::new();
        // A spreadsheet's UTF-8 byte-order mark would otherwise become part of the first name.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        for (index, raw) in text.lines().enumerate() {
            let line_no = index + 1;
            let line = raw.trim_end_matches('\r');
            if line.trim().is_empty() {
                continue;
            }
            if let Some(comment) = line.trim_start().strip_prefix('#') {
                if header.is_none()
                    && let Some((key, value)) = comment.split_once(':')
                {
                    meta.insert(key.trim().to_string(), value.trim().to_string());
                }
                continue;
            }
            let fields = split_csv_line(line).map_err(|m| syntax(line_no, m))?;
            match &header {
                None => {
                    let units = parse_units(meta.get("units").map(String::as_str));
                    header = Some(Header::new(fields, &units).map_err(|m| syntax(line_no, m))?);
                }
                Some(h) => {
                    let row = h.row(fields, line_no).map_err(|m| syntax(line_no, m))?;
                    let first = seen.insert(row_key(&row), line_no).or_else(|| {
                        // A row that leaves an axis blank matches every value of it, so it
                        // overlaps any row of its variant that agrees on the axes it names.
                        rows.iter()
                            .zip(&lines)
                            .find(|(other, _)| overlaps(other, &row))
                            .map(|(_, l)| *l)
                    });
                    if let Some(first) = first {
                        return Err(syntax(
                            line_no,
                            format!(
                                "repeats the variant and axes of line {first} (`{}`{}): give each once",
                                row.variant,
                                row.axes
                                    .iter()
                                    .map(|(k, v)| format!(", {k} = {v}"))
                                    .collect::<String>()
                            ),
                        ));
                    }
                    rows.push(row);
                    lines.push(line_no);
                }
            }
        }
        if header.is_none() {
            return Err(syntax(
                text.lines().count().max(1),
                "no header row (`axis,…,variant,metric,…`)".into(),
            ));
        }
        if let Some(line) = meta.get("mirror") {
            add_mirrored(line, &mut rows).map_err(|m| syntax(1, m))?;
        }
        let info_columns = header
            .iter()
            .flat_map(|h| &h.columns)
            .filter_map(|c| match c {
                Column::Info(name) => Some(name.clone()),
                _ => None,
            })
            .collect();
        Ok(PaperTable {
            id: id.to_string(),
            meta,
            rows,
            info_columns,
        })
    }

    /// The first row naming a variant `experiment` lacks (`variants`: its variants), as a
    /// message with the row's line: such a row would never be compared, silently.
    pub fn unknown_variant(&self, experiment: &str, variants: &[&str]) -> Option<String> {
        let row = self
            .rows
            .iter()
            .find(|r| !variants.contains(&r.variant.as_str()))?;
        let hint = crate::diagnostic::did_you_mean(&row.variant, variants.iter().copied())
            .map_or_else(String::new, |h| format!("; {h}"));
        Some(format!(
            "line {} names variant `{}`, which experiment `{experiment}` does not have (it has: {}){hint}",
            row.line,
            row.variant,
            variants.join(", ")
        ))
    }

    /// The GPU the paper measured on (`# gpu:`).
    pub fn gpu(&self) -> Option<&str> {
        self.meta.get("gpu").map(String::as_str)
    }

    /// The GPU's name without its description (`GeForce 9600M GT` of `GeForce 9600M GT (32 cores,
    /// …)`), and whether the paper names one: a table measured on none (`none (CPU: Intel Core 2
    /// Duo P8400 2.2 GHz, …)`) gives the machine in the parentheses up to its first comma, unnamed.
    pub fn gpu_short(&self) -> Option<(&str, bool)> {
        let gpu = self.gpu()?;
        let (name, rest) = gpu.split_once(" (").unwrap_or((gpu, ""));
        let name = name.trim();
        if name.is_empty() || name.starts_with("none") || name.starts_with("not ") {
            let machine = rest
                .trim_end_matches(')')
                .split(',')
                .next()
                .unwrap_or("")
                .trim();
            return Some((if machine.is_empty() { name } else { machine }, false));
        }
        Some((name, true))
    }

    /// Why a ratio of our values to this table's is no speed-up, from `# no-speed-up: <why>` (e.g. the
    /// paper does not state the size it measured); `None` when speed-ups may be shown.
    pub fn no_speedup(&self) -> Option<&str> {
        self.meta.get("no-speed-up").map(String::as_str)
    }

    /// The unit of a metric column: from `# units:` when it is one we know, else the built-in
    /// metric's unit where the text only describes a count (`blocks`, `registers per thread`);
    /// `None` for a unit we cannot interpret, and for a time, rate or share in a unit we do not
    /// know (`gbps=MB/s`, `time_ms=us`: read as GB/s or ms they would be off by 1000×).
    pub fn unit_of(&self, metric: &str) -> Option<Unit> {
        let units = parse_units(self.meta.get("units").map(String::as_str));
        match units.get(metric) {
            Some(text) => Unit::parse(text).or_else(|| {
                known_unit(metric).filter(|u| matches!(u, Unit::Count | Unit::Bytes | Unit::Ratio))
            }),
            None => known_unit(metric),
        }
    }

    /// Whether any row of the table gives `metric` (a column of the CSV).
    pub fn has_metric(&self, metric: &str) -> bool {
        self.rows.iter().any(|r| r.metrics.contains_key(metric))
    }

    /// The row for `variant` whose axes all equal the given ones (the paper row may name fewer axes).
    pub fn lookup(&self, variant: &str, axes: &BTreeMap<String, ParamValue>) -> Option<&PaperRow> {
        self.rows.iter().find(|row| {
            row.variant == variant
                && row
                    .axes
                    .iter()
                    .all(|(name, value)| axes.get(name).is_some_and(|ours| same_value(ours, value)))
        })
    }

    /// "widuch2010, Table 3": the paper key and the item's short name, for captions.
    pub fn citation(&self) -> String {
        let mut parts = self.id.splitn(2, '/');
        let key = parts.next().unwrap_or_default();
        let table = parts.next().unwrap_or_default();
        let paper = self.meta.get("paper").map(String::as_str).unwrap_or(key);
        let short = self.meta.get("item").map(|item| {
            [" — ", " - ", ":", " ("]
                .iter()
                .fold(item.as_str(), |s, sep| s.split(sep).next().unwrap_or(s))
                .trim()
        });
        match short {
            Some(short) if !short.is_empty() && short.chars().count() <= 40 => {
                format!("{paper}, {short}")
            }
            _ if !table.is_empty() => format!("{paper}, {table}"),
            _ => paper.to_string(),
        }
    }
}

/// Adds the rows a `# mirror:` line derives from `rows` (see [`mirror::Mirror`]).
fn add_mirrored(line: &str, rows: &mut Vec<PaperRow>) -> Result<(), String> {
    let mirror = mirror::Mirror::parse(line)?;
    if rows.iter().any(|r| r.variant == mirror.variant) {
        return Err(format!(
            "`# mirror:` names `{}`, a variant the table already has",
            mirror.variant
        ));
    }
    let derived = mirror.rows(rows);
    if derived.is_empty() {
        return Err(format!(
            "`# mirror:` finds no `{}` row with both `{}` and `{}`",
            mirror.of, mirror.axes.0, mirror.axes.1
        ));
    }
    rows.extend(derived);
    Ok(())
}

/// `<data_dir>/papers/<paper>/<table>.csv`, refusing ids that could leave the folder.
fn paper_path(data_dir: &Path, id: &str) -> Result<PathBuf, PaperError> {
    let invalid = || PaperError::InvalidId { id: id.to_string() };
    let (paper, table) = id.split_once('/').ok_or_else(invalid)?;
    let ok = |s: &str| {
        !s.is_empty()
            && !s.starts_with('.')
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c))
    };
    if !ok(paper) || !ok(table) {
        return Err(invalid());
    }
    let table = table.strip_suffix(".csv").unwrap_or(table);
    Ok(data_dir
        .join(PAPERS_DIR)
        .join(paper)
        .join(format!("{table}.csv")))
}

/// A row's variant and axes, numbers written as floats (`4194304` and `4194304.0` are one value).
fn row_key(row: &PaperRow) -> String {
    let mut key = row.variant.clone();
    for (name, value) in &row.axes {
        match value.as_f64() {
            Some(x) => key.push_str(&format!("\u{0}{name}={x:?}")),
            None => key.push_str(&format!("\u{0}{name}:{value}")),
        }
    }
    key
}

/// Whether rows `a` and `b` of the same variant, one naming fewer axes, would both match a cell:
/// every axis the shorter one names has the same value in the other.
fn overlaps(a: &PaperRow, b: &PaperRow) -> bool {
    if a.variant != b.variant || a.axes.len() == b.axes.len() {
        return false;
    }
    let (short, long) = if a.axes.len() < b.axes.len() {
        (a, b)
    } else {
        (b, a)
    };
    short
        .axes
        .iter()
        .all(|(k, v)| long.axes.get(k).is_some_and(|w| same_value(v, w)))
}

/// Integers and floats compare numerically (`160` equals `160.0`); strings exactly.
fn same_value(a: &ParamValue, b: &ParamValue) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

/// `time_ms=ms, gflops=GFLOP/s` → metric → unit text. Units are free text (`registers per
/// thread`); [`Unit::parse`] interprets the ones we know.
fn parse_units(spec: Option<&str>) -> BTreeMap<String, String> {
    let mut units = BTreeMap::new();
    for entry in spec
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|e| !e.is_empty())
    {
        match entry.split_once('=') {
            Some((metric, unit)) => {
                units.insert(metric.trim().to_string(), unit.trim().to_string())
            }
            None => units.insert(entry.to_string(), String::new()),
        };
    }
    units
}

/// What each column of the header holds.
#[derive(Debug)]
enum Column {
    Axis(String),
    Variant,
    Metric(String),
    /// After `variant` but not a metric (`limiter`): kept out of axes so lookups still match.
    Info(String),
}

#[derive(Debug)]
struct Header {
    columns: Vec<Column>,
}

impl Header {
    fn new(names: Vec<String>, units: &BTreeMap<String, String>) -> Result<Header, String> {
        let mut columns = Vec::with_capacity(names.len());
        let mut seen = std::collections::BTreeSet::new();
        let mut after_variant = false;
        for name in names {
            let name = name.trim().to_string();
            if name.is_empty() {
                return Err("empty column name in header".into());
            }
            if !seen.insert(name.clone()) {
                return Err(format!("column `{name}` appears twice"));
            }
            columns.push(if name == "variant" {
                after_variant = true;
                Column::Variant
            } else if units.contains_key(&name) || known_unit(&name).is_some() {
                Column::Metric(name)
            } else if after_variant {
                Column::Info(name)
            } else {
                Column::Axis(name)
            });
        }
        if !columns.iter().any(|c| matches!(c, Column::Variant)) {
            return Err("header has no `variant` column".into());
        }
        if !columns.iter().any(|c| matches!(c, Column::Metric(_))) {
            return Err("header has no metric column (list them in `# units:` or use built-in names like `time_ms`)".into());
        }
        Ok(Header { columns })
    }

    fn row(&self, fields: Vec<String>, line: usize) -> Result<PaperRow, String> {
        if fields.len() != self.columns.len() {
            return Err(format!(
                "{} fields, the header has {}",
                fields.len(),
                self.columns.len()
            ));
        }
        let mut row = PaperRow {
            line,
            variant: String::new(),
            axes: BTreeMap::new(),
            metrics: BTreeMap::new(),
        };
        for (column, field) in self.columns.iter().zip(fields) {
            let field = field.trim();
            match column {
                Column::Variant => {
                    if field.is_empty() {
                        return Err("empty `variant`".into());
                    }
                    row.variant = field.to_string();
                }
                Column::Axis(name) if !field.is_empty() => {
                    row.axes.insert(name.clone(), parse_param(field));
                }
                Column::Metric(name) if !field.is_empty() => {
                    let value: f64 = field
                        .parse()
                        .ok()
                        .filter(|v: &f64| v.is_finite())
                        .ok_or_else(|| format!("`{name}` = `{field}` is not a number"))?;
                    // Times, rates, sizes and counts: a paper prints none below zero.
                    if value < 0.0 {
                        return Err(format!("`{name}` = `{field}` is negative"));
                    }
                    row.metrics.insert(name.clone(), value);
                }
                _ => {}
            }
        }
        Ok(row)
    }
}

/// An axis cell: an integer if the text is integral, else a float, else a string.
fn parse_param(text: &str) -> ParamValue {
    if let Ok(i) = text.parse::<i64>() {
        ParamValue::Int(i)
    } else if let Some(f) = text.parse::<f64>().ok().filter(|f| f.is_finite()) {
        ParamValue::Float(f)
    } else {
        ParamValue::Str(text.to_string())
    }
}

/// Splits one CSV line; double-quoted fields may hold commas and `""` for a quote.
fn split_csv_line(line: &str) -> Result<Vec<String>, String> {
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut chars = line.chars().peekable();
    let mut quoted = false;
    let mut was_quoted = false;
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => field.push(c),
            (false, '"') if field.trim().is_empty() && !was_quoted => {
                field.clear();
                quoted = true;
                was_quoted = true;
            }
            (false, ',') => {
                fields.push(std::mem::take(&mut field));
                was_quoted = false;
            }
            (false, c) => field.push(c),
        }
    }
    if quoted {
        return Err("unterminated quoted field".into());
    }
    fields.push(field);
    Ok(fields)
}

#[cfg(test)]
#[path = "papers_tests.rs"]
mod tests;
