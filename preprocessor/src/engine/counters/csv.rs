//! Nsight Compute's raw CSV (`ncu --import <report> --csv --page raw`) read into one row per
//! profiled launch: its ID (launch order), kernel name and metric values in base units. Columns
//! are found by their header, so ncu versions that add or reorder columns read the same.

use std::collections::BTreeMap;

/// One profiled kernel launch.
#[derive(Debug, Clone, PartialEq)]
pub struct LaunchRow {
    /// ncu's launch ID: the order in which the process launched the kernels it profiled.
    pub id: u64,
    pub kernel: String,
    /// Metric values by ncu name, in base units (bytes, nanoseconds, instructions, %); a metric
    /// ncu printed as `n/a` or left empty is absent.
    pub values: BTreeMap<String, f64>,
}

/// Why the CSV could not be read.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum CsvError {
    #[error("ncu's CSV has no header line (is the report empty? {0})")]
    NoHeader(String),
    #[error("ncu's CSV has no `{0}` column")]
    NoColumn(&'static str),
    #[error("ncu's CSV line {line}: {message}")]
    Line { line: usize, message: String },
}

/// The header names ncu has used for the kernel's name, newest first.
const KERNEL_COLUMNS: &[&str] = &["Kernel Name", "Function Name", "Demangled Name", "Name"];

/// Parses ncu's raw-page CSV; `==PROF==` lines and blank lines around it are skipped.
pub fn parse(text: &str) -> Result<Vec<LaunchRow>, CsvError> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with("=="));
    let Some((_, header)) = lines.next() else {
        return Err(CsvError::NoHeader(first_words(text)));
    };
    let header = split(header).map_err(|m| CsvError::Line {
        line: 1,
        message: m,
    })?;
    let col = |name: &str| header.iter().position(|h| h == name);
    let id_col = col("ID").ok_or_else(|| CsvError::NoHeader(first_words(text)))?;
    let kernel_col = KERNEL_COLUMNS
        .iter()
        .find_map(|n| col(n))
        .ok_or(CsvError::NoColumn("Kernel Name"))?;
    // Metric columns are ncu metric names: `unit__counter.rollup`.
    let metric_cols: Vec<(usize, &String)> = header
        .iter()
        .enumerate()
        .filter(|(_, h)| h.contains("__"))
        .collect();
    let mut units: BTreeMap<usize, String> = BTreeMap::new();
    let mut rows = Vec::new();
    for (n, line) in lines {
        let line_no = n + 1;
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
            // The units line under the header.
            units = metric_cols
                .iter()
                .map(|(i, _)| (*i, fields[*i].trim().to_string()))
                .collect();
            continue;
        }
        let id = id_text
            .parse::<u64>()
            .map_err(|_| err(format!("launch ID `{id_text}` is not a number")))?;
        let mut values = BTreeMap::new();
        for (i, name) in &metric_cols {
            let unit = units.get(i).map(String::as_str).unwrap_or("");
            if let Some(v) = number(&fields[*i]) {
                values.insert((*name).clone(), v * scale(unit));
            }
        }
        rows.push(LaunchRow {
            id,
            kernel: fields[kernel_col].trim().to_string(),
            values,
        });
    }
    rows.sort_by_key(|r| r.id);
    Ok(rows)
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

/// The factor from a unit ncu printed to its base unit: `Kbyte` → 1000, `usecond` → 1000 (to
/// nanoseconds), `byte`, `nsecond`, `inst`, `%` → 1.
fn scale(unit: &str) -> f64 {
    const BASES: &[(&str, f64)] = &[
        ("second", 1e9), // to nanoseconds, ncu's base for durations
        ("byte", 1.0),
        ("inst", 1.0),
        ("cycle", 1.0),
        ("warp", 1.0),
        ("request", 1.0),
    ];
    const PREFIXES: &[(&str, f64)] = &[
        ("n", 1e-9),
        ("u", 1e-6),
        ("m", 1e-3),
        ("", 1.0),
        ("K", 1e3),
        ("M", 1e6),
        ("G", 1e9),
        ("T", 1e12),
    ];
    for (base, to_base) in BASES {
        if let Some(prefix) = unit.strip_suffix(base)
            && let Some((_, p)) = PREFIXES.iter().find(|(s, _)| *s == prefix)
        {
            return p * to_base;
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
        if chars.peek() == Some(&'"') {
            chars.next();
            loop {
                match chars.next() {
                    Some('"') if chars.peek() == Some(&'"') => {
                        chars.next();
                        field.push('"');
                    }
                    Some('"') => break,
                    Some(c) => field.push(c),
                    None => return Err("a quoted field is not closed".into()),
                }
            }
            match chars.next() {
                None => {
                    fields.push(field);
                    return Ok(fields);
                }
                Some(',') => fields.push(field),
                Some(c) => return Err(format!("`{c}` after a closing quote")),
            }
        } else {
            loop {
                match chars.next() {
                    None => {
                        fields.push(field);
                        return Ok(fields);
                    }
                    Some(',') => break,
                    Some(c) => field.push(c),
                }
            }
            fields.push(field);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A SYNTHETIC export in the layout of `ncu --import r.ncu-rep --csv --page raw`: the
    /// committed fixture, `tests/fixtures/ncu/raw.csv`, is the same shape.
    const FIXTURE: &str = include_str!("../../../tests/fixtures/ncu/raw.csv");

    #[test]
    fn the_fixture_reads_as_launches_in_id_order_with_base_units() {
        let rows = parse(FIXTURE).unwrap();
        assert_eq!(rows.len(), 5);
        assert_eq!(
            rows.iter().map(|r| r.id).collect::<Vec<_>>(),
            [0, 1, 2, 3, 4]
        );
        assert_eq!(rows[0].kernel, "MatrixMulKernel_2");
        assert_eq!(rows[0].values["smsp__inst_executed.sum"], 1_234_567.0);
        // `usecond` in the units line: converted to nanoseconds.
        assert_eq!(rows[0].values["gpu__time_duration.sum"], 13_500.0);
        // `Kbyte`: to bytes.
        assert_eq!(rows[0].values["dram__bytes_read.sum"], 372_000.0);
        assert!(
            !rows[4].values.contains_key("dram__bytes_write.sum"),
            "n/a is absent, not 0"
        );
    }

    #[test]
    fn prof_lines_and_unquoted_fields_are_read() {
        let text = "==PROF== Connected to process 1\nID,Kernel Name,a__b.sum\n,,inst\n1,\"k, with comma\",\"1,024\"\n0,k,5\n";
        let rows = parse(text).unwrap();
        assert_eq!(rows[0].id, 0);
        assert_eq!(rows[1].kernel, "k, with comma");
        assert_eq!(rows[1].values["a__b.sum"], 1024.0);
    }

    #[test]
    fn a_report_without_rows_or_columns_is_an_error_not_empty_counters() {
        assert!(matches!(
            parse("==PROF== No kernels were profiled.\n"),
            Err(CsvError::NoHeader(_))
        ));
        assert_eq!(
            parse("\"ID\",\"x__y.sum\"\n\"0\",\"1\"\n"),
            Err(CsvError::NoColumn("Kernel Name"))
        );
        assert!(matches!(
            parse("\"ID\",\"Kernel Name\"\n\"0\"\n"),
            Err(CsvError::Line { line: 2, .. })
        ));
    }
}
