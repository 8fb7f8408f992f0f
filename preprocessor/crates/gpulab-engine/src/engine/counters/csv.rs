//! Nsight Compute's CSV (`ncu --csv --metrics …`) read into one row per profiled launch (ID, kernel,
//! metric values in base units), from the details page or the raw page, columns found by header.
//! Only lines starting with a quote are CSV: ncu's own lines and the worker's share the stream.

use std::collections::BTreeMap;

/// One profiled kernel launch.
#[derive(Debug, Clone, PartialEq)]
pub struct LaunchRow {
    /// ncu's launch ID: the order in which the process launched the kernels it profiled.
    pub id: u64,
    pub kernel: String,
    /// Metric values by ncu name, in base units (`n/a` or empty: absent).
    pub values: BTreeMap<String, f64>,
}

/// Why the CSV could not be read.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum CsvError {
    #[error("ncu printed no CSV header (no kernel profiled? {0})")]
    NoHeader(String),
    #[error("ncu's CSV has no `{0}` column")]
    NoColumn(&'static str),
    #[error("ncu's CSV line {line}: {message}")]
    Line { line: usize, message: String },
}

/// The header names ncu has used for the kernel's name, newest first.
const KERNEL_COLUMNS: &[&str] = &["Kernel Name", "Function Name", "Demangled Name", "Name"];

/// Parses ncu's CSV out of its output (details or raw page).
pub fn parse(text: &str) -> Result<Vec<LaunchRow>, CsvError> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.starts_with('"'))
        .map(|(n, l)| (n + 1, l));
    let Some((header_line, header)) = lines.next() else {
        return Err(CsvError::NoHeader(first_words(text)));
    };
    let header = split(header).map_err(|m| CsvError::Line {
        line: header_line,
        message: m,
    })?;
    let col = |name: &str| header.iter().position(|h| h == name);
    let id_col = col("ID").ok_or_else(|| CsvError::NoHeader(first_words(text)))?;
    let kernel_col = KERNEL_COLUMNS
        .iter()
        .find_map(|n| col(n))
        .ok_or(CsvError::NoColumn("Kernel Name"))?;
    let mut launches: BTreeMap<u64, LaunchRow> = BTreeMap::new();
    let mut layout = match (col("Metric Name"), col("Metric Value")) {
        (Some(name), Some(value)) => Layout::Details {
            name,
            value,
            unit: col("Metric Unit"),
        },
        _ => Layout::Raw {
            // Metric columns are ncu metric names: `unit__counter.rollup`.
            metrics: header
                .iter()
                .enumerate()
                .filter(|(_, h)| h.contains("__"))
                .map(|(i, h)| (i, h.clone(), String::new()))
                .collect(),
        },
    };
    for (line_no, line) in lines {
        let err = |message: String| CsvError::Line {
            line: line_no,
            message,
        };
        let fields = split(line).map_err(err)?;
        if fields.len() != header.len() {
            return Err(err(format!(
                "{} fields, the header has {}",
                fields.len(),
                header.len()
            )));
        }
        let id_text = fields[id_col].trim();
        if id_text.is_empty() {
            // The raw page's units line under the header.
            if let Layout::Raw { metrics } = &mut layout {
                for (i, _, unit) in metrics.iter_mut() {
                    *unit = fields[*i].trim().to_string();
                }
            }
            continue;
        }
        let id = id_text
            .parse::<u64>()
            .map_err(|_| err(format!("launch ID `{id_text}` is not a number")))?;
        let row = launches.entry(id).or_insert_with(|| LaunchRow {
            id,
            kernel: fields[kernel_col].trim().to_string(),
            values: BTreeMap::new(),
        });
        match &layout {
            Layout::Details { name, value, unit } => {
                let unit = unit.map(|u| fields[u].trim()).unwrap_or("");
                if let Some(v) = number(&fields[*value]) {
                    row.values
                        .insert(fields[*name].trim().to_string(), v * scale(unit));
                }
            }
            Layout::Raw { metrics } => {
                for (i, name, unit) in metrics {
                    if let Some(v) = number(&fields[*i]) {
                        row.values.insert(name.clone(), v * scale(unit));
                    }
                }
            }
        }
    }
    Ok(launches.into_values().collect())
}

/// Where the metrics are in a line.
enum Layout {
    /// One line per launch and metric.
    Details {
        name: usize,
        value: usize,
        unit: Option<usize>,
    },
    /// One line per launch: (column, metric name, unit from the units line).
    Raw {
        metrics: Vec<(usize, String, String)>,
    },
}

fn first_words(text: &str) -> String {
    let t: String = text.chars().take(200).collect();
    if t.trim().is_empty() {
        "no output".into()
    } else {
        t.trim().to_string()
    }
}

/// A value as ncu prints it: `1234`, `1,234,567` (thousands grouped), `12.5`; `n/a` or empty is none.
fn number(field: &str) -> Option<f64> {
    let t = field.trim();
    if t.is_empty() || t.eq_ignore_ascii_case("n/a") {
        return None;
    }
    t.replace(',', "")
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
}

/// The factor from a unit ncu printed to its base unit (nanoseconds, bytes; any other unit is 1).
fn scale(unit: &str) -> f64 {
    const DURATIONS: &[(&str, f64)] = &[
        ("ns", 1.0),
        ("nsecond", 1.0),
        ("us", 1e3),
        ("usecond", 1e3),
        ("ms", 1e6),
        ("msecond", 1e6),
        ("s", 1e9),
        ("second", 1e9),
    ];
    if let Some((_, f)) = DURATIONS.iter().find(|(u, _)| *u == unit) {
        return *f;
    }
    const PREFIXES: &[(&str, f64)] = &[("K", 1e3), ("M", 1e6), ("G", 1e9), ("T", 1e12)];
    for base in ["byte", "B"] {
        if let Some(prefix) = unit.strip_suffix(base)
            && let Some((_, p)) = PREFIXES.iter().find(|(s, _)| *s == prefix)
        {
            return *p;
        }
    }
    1.0
}

/// One CSV line, fields quoted or not (`""` inside quotes is a quote).
fn split(line: &str) -> Result<Vec<String>, String> {
    let mut fields = Vec::new();
    let mut chars = line.trim_end_matches('\r').chars().peekable();
    loop {
        let mut field = String::new();
        if chars.next_if_eq(&'"').is_some() {
            loop {
                match chars.next() {
                    Some('"') if chars.next_if_eq(&'"').is_some() => field.push('"'),
                    Some('"') => break,
                    Some(c) => field.push(c),
                    None => return Err("a quoted field is not closed".into()),
                }
            }
            if let Some(c) = chars.peek().filter(|c| **c != ',') {
                return Err(format!("`{c}` after a closing quote"));
            }
        } else {
            while let Some(c) = chars.next_if(|c| *c != ',') {
                field.push(c);
            }
        }
        fields.push(field);
        if chars.next().is_none() {
            return Ok(fields);
        }
    }
}

#[cfg(test)]
#[path = "csv_tests.rs"]
mod tests;
