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
mod tests {
    use super::*;

    /// Widuch's Table 2 (a CPU's times) was captioned "paper: none (widuch2010, Table 2)".
    #[test]
    fn a_table_measured_on_no_gpu_is_named_by_its_machine() {
        let t = PaperTable::parse(
            "t2",
            Path::new("t2.csv"),
            "# gpu: none (CPU: Synthetic CPU 2.2 GHz, 4 GB RAM)\nN,variant,time_ms\n1,a,1\n",
        )
        .unwrap();
        assert_eq!(t.gpu_short(), Some(("CPU: Synthetic CPU 2.2 GHz", false)));
    }

    // Synthetic paper table (not a real paper's numbers).
    const SYNTHETIC: &str = "\
# paper: synth2020
# item: Table 9 — synthetic times
# gpu: Synthetic GPU 1
# units: time_ms=ms, speed=GB/s
N,BLOCK,variant,time_ms,speed,gflops
160,16x16,shared_2d,0.52,,1.5
320,\"8x8\",shared_2d,4.25,12.5,
640.5,, \"odd, name\" ,1e1,,
";

    fn table() -> PaperTable {
        PaperTable::parse("synth2020/table9", Path::new("t.csv"), SYNTHETIC).unwrap()
    }

    #[test]
    fn parses_meta_and_rows() {
        let t = table();
        assert_eq!(t.gpu(), Some("Synthetic GPU 1"));
        assert_eq!(t.gpu_short(), Some(("Synthetic GPU 1", true)));
        assert_eq!(t.rows.len(), 3);
        assert_eq!(t.rows[0].axes["N"], ParamValue::Int(160));
        assert_eq!(t.rows[0].axes["BLOCK"], ParamValue::Str("16x16".into()));
        assert_eq!(t.rows[0].metrics["time_ms"], 0.52);
        assert_eq!(t.rows[0].metrics["gflops"], 1.5);
        assert!(!t.rows[0].metrics.contains_key("speed"));
        assert_eq!(t.rows[1].metrics["speed"], 12.5);
        assert_eq!(t.rows[2].variant, "odd, name");
        assert_eq!(t.rows[2].axes["N"], ParamValue::Float(640.5));
        assert!(!t.rows[2].axes.contains_key("BLOCK"));
        assert_eq!(t.citation(), "synth2020, Table 9");
    }

    #[test]
    fn units_and_lookup() {
        let t = table();
        assert_eq!(t.unit_of("time_ms"), Some(Unit::Millis));
        assert_eq!(t.unit_of("speed"), Some(Unit::GigabytesPerSec));
        assert_eq!(t.unit_of("gflops"), Some(Unit::GflopsPerSec));
        assert_eq!(t.unit_of("nope"), None);
        // A rate or time in a unit we do not know is not read as the built-in one (MB/s shown as
        // GB/s made a 1000× ratio look like 1.0×); a count's description is.
        let odd = PaperTable::parse(
            "t",
            Path::new("t.csv"),
            "# units: gbps=MB/s, time_ms=us\nN,variant,gbps\n1,a,1\n",
        )
        .unwrap();
        assert_eq!(odd.unit_of("gbps"), None);
        assert_eq!(odd.unit_of("time_ms"), None);
        let mut axes = BTreeMap::new();
        axes.insert("N".to_string(), ParamValue::Int(320));
        axes.insert("BLOCK".to_string(), ParamValue::Str("8x8".into()));
        axes.insert("M".to_string(), ParamValue::Int(16));
        assert_eq!(
            t.lookup("shared_2d", &axes).unwrap().metrics["time_ms"],
            4.25
        );
        assert!(t.lookup("global_2d", &axes).is_none());
        axes.insert("N".to_string(), ParamValue::Float(160.0));
        axes.insert("BLOCK".to_string(), ParamValue::Str("16x16".into()));
        assert!(
            t.lookup("shared_2d", &axes).is_some(),
            "int and float compare numerically"
        );
    }

    #[test]
    fn errors_name_file_and_line() {
        let bad = "# units: time_ms=ms\nN,variant,time_ms\n1,a,fast\n";
        let err = PaperTable::parse("x/y", Path::new("data/papers/x/y.csv"), bad).unwrap_err();
        assert_eq!(
            err.to_string(),
            "data/papers/x/y.csv:3: `time_ms` = `fast` is not a number"
        );
        let short = "N,variant,time_ms\n1,a\n";
        assert!(
            PaperTable::parse("x/y", Path::new("p"), short)
                .unwrap_err()
                .to_string()
                .starts_with("p:2:")
        );
        let no_variant = "N,time_ms\n";
        assert!(PaperTable::parse("x/y", Path::new("p"), no_variant).is_err());
        assert!(PaperTable::parse("x/y", Path::new("p"), "# only meta\n").is_err());
        assert!(PaperTable::parse("x/y", Path::new("p"), "N,variant,time_ms\n\"1,a,2\n").is_err());
    }

    #[test]
    fn load_reads_papers_folder_and_rejects_bad_ids() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("papers").join("synth2020");
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join("table9.csv"), SYNTHETIC).unwrap();
        let t = PaperTable::load(dir.path(), "synth2020/table9").unwrap();
        assert_eq!(t.id, "synth2020/table9");
        assert_eq!(t.rows.len(), 3);
        assert!(matches!(
            PaperTable::load(dir.path(), "../etc"),
            Err(PaperError::InvalidId { .. })
        ));
        assert!(matches!(
            PaperTable::load(dir.path(), "a/../../b"),
            Err(PaperError::InvalidId { .. })
        ));
        let missing = PaperTable::load(dir.path(), "synth2020/none").unwrap_err();
        assert!(missing.to_string().contains("none.csv"));
    }

    /// Regression (session 10): a row given twice was accepted (lookups took the first), and a
    /// CSV saved by a spreadsheet with a byte-order mark named its first axis "\u{feff}N", so no
    /// cell matched.
    #[test]
    fn a_repeated_row_is_an_error_and_a_byte_order_mark_is_ignored() {
        let twice = "N,variant,time_ms\n16,a,1.0\n32,a,2.0\n16,a,3.0\n";
        let err = PaperTable::parse("synth/t", Path::new("p.csv"), twice)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("p.csv:4:")
                && err.contains("repeats the variant and axes of line 2 (`a`, N = 16)"),
            "{err}"
        );
        // The same number written as an integer and as a float; a row with N left blank, which
        // would match the cells of the row before it.
        for (text, first) in [
            ("N,variant,time_ms\n16,a,1.0\n16.0,a,3.0\n", 2),
            ("N,BS,variant,time_ms\n16,8,a,1.0\n,8,a,3.0\n", 2),
        ] {
            let err = PaperTable::parse("synth/t", Path::new("p.csv"), text)
                .unwrap_err()
                .to_string();
            assert!(
                err.contains(&format!("repeats the variant and axes of line {first}")),
                "{err}"
            );
        }
        let bom = "\u{feff}N,variant,time_ms\n16,a,1.0\n";
        let t = PaperTable::parse("synth/t", Path::new("p.csv"), bom).unwrap();
        assert!(t.rows[0].axes.contains_key("N"), "{:?}", t.rows[0].axes);
    }

    #[test]
    fn free_text_units_and_info_columns() {
        // Synthetic occupancy table: units in words, a string column after `variant`.
        let text = "# item: Table 2 - theoretical occupancy\n\
                    # units: registers=registers per thread, occupancy_pct=%, time_ms=parsecs\n\
                    BS,variant,registers,occupancy_pct,limiter\n8,v1,10,33.3,blocks\n";
        let t = PaperTable::parse("synth/occ", Path::new("p"), text).unwrap();
        assert_eq!(t.rows[0].metrics["registers"], 10.0);
        assert_eq!(t.rows[0].axes.len(), 1, "`limiter` is not an axis");
        assert_eq!(t.info_columns, vec!["limiter".to_string()]);
        assert_eq!(t.unit_of("occupancy_pct"), Some(Unit::Percent));
        assert_eq!(t.unit_of("registers"), None);
        assert_eq!(
            t.unit_of("time_ms"),
            None,
            "a time in a unit we cannot read is not compared"
        );
        let mut axes = BTreeMap::new();
        axes.insert("BS".to_string(), ParamValue::Int(8));
        assert!(t.lookup("v1", &axes).is_some());
        assert_eq!(t.citation(), "synth, Table 2");
        let long = PaperTable {
            id: "k/variants_a".into(),
            info_columns: Vec::new(),
            meta: [(
                "item".to_string(),
                "average time of every variant and of the CPU loop, 1024 x 1024".to_string(),
            )]
            .into_iter()
            .collect(),
            rows: Vec::new(),
        };
        assert_eq!(long.citation(), "k, variants_a");
    }

    /// Kalgin–Baldin's "tall blocks beat their mirror image" could not be evaluated on the article's
    /// own table: the mirror image of a shape is another cell of the same table.
    #[test]
    fn mirror_rows_are_the_printed_cells_with_two_axes_swapped() {
        // Synthetic numbers.
        let text = "# mirror: wide = tall with BX, BY swapped\n# units: time_ms=ms\n\
                    N,BX,BY,variant,time_ms\n64,1,64,tall,1.5\n64,64,1,tall,3.0\n64,2,2,tall,2.0\n";
        let t = PaperTable::parse("k/shapes", Path::new("p"), text).unwrap();
        let at = |bx: i64, by: i64| {
            let axes: BTreeMap<String, ParamValue> = [
                ("N".to_string(), ParamValue::Int(64)),
                ("BX".to_string(), ParamValue::Int(bx)),
                ("BY".to_string(), ParamValue::Int(by)),
            ]
            .into_iter()
            .collect();
            t.lookup("wide", &axes).map(|r| r.metrics["time_ms"])
        };
        assert_eq!(at(1, 64), Some(3.0), "the mirror of 1x64 is the 64x1 cell");
        assert_eq!(at(64, 1), Some(1.5));
        assert_eq!(at(2, 2), Some(2.0));
        assert_eq!(t.rows.len(), 6);
        let clash =
            "# mirror: tall = wide with BX, BY swapped\nBX,BY,variant,time_ms\n1,2,tall,1\n";
        assert!(PaperTable::parse("k/s", Path::new("p"), clash).is_err());
        let none = "# mirror: m = other with BX, BY swapped\nBX,BY,variant,time_ms\n1,2,tall,1\n";
        let err = PaperTable::parse("k/s", Path::new("p"), none).unwrap_err();
        assert!(err.to_string().contains("finds no `other` row"), "{err}");
        let bad = "# mirror: m naive\nBX,BY,variant,time_ms\n1,2,tall,1\n";
        assert!(PaperTable::parse("k/s", Path::new("p"), bad).is_err());
    }

    #[test]
    fn csv_quotes() {
        assert_eq!(
            split_csv_line("a,\"b,c\",\"d\"\"e\"").unwrap(),
            vec!["a", "b,c", "d\"e"]
        );
        assert_eq!(split_csv_line("").unwrap(), vec![""]);
        assert!(split_csv_line("\"open").is_err());
    }
}
