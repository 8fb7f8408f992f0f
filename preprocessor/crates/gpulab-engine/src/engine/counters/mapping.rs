//! ncu's launches (in ID order, the engine's helper kernels left out) dealt to the job's points in
//! job order, each launch's kernel checked against the one its point reported.

use super::csv::LaunchRow;
use crate::metrics::counters::{Combine, GPU_TIME, combine_of};
use std::collections::{BTreeMap, BTreeSet};

/// What the worker reported for one point of the profiled job.
#[derive(Debug, Clone, PartialEq)]
pub struct Ran {
    /// The point's index in the job.
    pub index: usize,
    /// The kernel of each launch, in order.
    pub kernels: Vec<String>,
    /// Why it did not run (its launches, if any, cannot be told apart from the next point's).
    pub error: Option<String>,
}

/// A point's combined counters.
#[derive(Debug, Clone, PartialEq)]
pub struct Mapped {
    pub index: usize,
    pub launches: usize,
    pub values: BTreeMap<String, f64>,
}

/// Why the launches could not be dealt to the points: nothing of the job is stored then.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum MappingError {
    #[error(
        "profiled launch {id} is `{found}` but point {index} launched `{expected}`: the profile does not follow the job's order"
    )]
    KernelMismatch {
        id: u64,
        index: usize,
        expected: String,
        found: String,
    },
    #[error("point {index} made {want} launch(es) of `{kernel}` but ncu profiled {got}")]
    Missing {
        index: usize,
        kernel: String,
        want: usize,
        got: usize,
    },
    #[error("ncu profiled {0} launch(es) more than the points made (first ID {1})")]
    Extra(usize, u64),
}

/// Deals `rows` to the points of `ran`, up to the first point that failed to run (its launches
/// are ambiguous); rows of kernels no point launched are ignored.
pub fn map(rows: &[LaunchRow], ran: &[Ran]) -> Result<Vec<Mapped>, MappingError> {
    let ours: BTreeSet<&str> = ran
        .iter()
        .flat_map(|r| &r.kernels)
        .map(String::as_str)
        .collect();
    let mut rows = rows.iter().filter(|r| ours.contains(base_name(&r.kernel)));
    let mut out = Vec::new();
    for r in ran {
        if r.error.is_some() {
            return Ok(out);
        }
        let mut mine = Vec::with_capacity(r.kernels.len());
        for (got, kernel) in r.kernels.iter().enumerate() {
            let Some(row) = rows.next() else {
                return Err(MappingError::Missing {
                    index: r.index,
                    kernel: kernel.clone(),
                    want: r.kernels.len(),
                    got,
                });
            };
            if base_name(&row.kernel) != kernel {
                return Err(MappingError::KernelMismatch {
                    id: row.id,
                    index: r.index,
                    expected: kernel.clone(),
                    found: row.kernel.clone(),
                });
            }
            mine.push(row);
        }
        if !mine.is_empty() {
            out.push(Mapped {
                index: r.index,
                launches: mine.len(),
                values: combine(&mine),
            });
        }
    }
    let extra: Vec<&LaunchRow> = rows.collect();
    if let Some(first) = extra.first() {
        return Err(MappingError::Extra(extra.len(), first.id));
    }
    Ok(out)
}

/// The function name of a kernel as ncu prints it (`k(float *, int)` → `k`).
fn base_name(kernel: &str) -> &str {
    kernel.split('(').next().unwrap_or(kernel).trim()
}

/// One point's launches combined per metric ([`combine_of`]), metrics missing from any left out.
fn combine(rows: &[&LaunchRow]) -> BTreeMap<String, f64> {
    let names: BTreeSet<&String> = rows.iter().flat_map(|r| r.values.keys()).collect();
    let weight = |r: &LaunchRow| r.values.get(GPU_TIME).copied().unwrap_or(1.0).max(0.0);
    let mut out = BTreeMap::new();
    for name in names {
        let Some(values) = rows
            .iter()
            .map(|r| r.values.get(name).copied())
            .collect::<Option<Vec<f64>>>()
        else {
            continue;
        };
        let value = match combine_of(name) {
            Combine::Sum => values.iter().sum(),
            Combine::Max => values.iter().cloned().fold(f64::MIN, f64::max),
            Combine::TimeWeighted => {
                let total: f64 = rows.iter().map(|r| weight(r)).sum();
                if total > 0.0 {
                    rows.iter()
                        .zip(&values)
                        .map(|(r, v)| weight(r) * v)
                        .sum::<f64>()
                        / total
                } else {
                    values.iter().sum::<f64>() / values.len() as f64
                }
            }
        };
        out.insert(name.clone(), value);
    }
    out
}

#[cfg(test)]
#[path = "mapping_tests.rs"]
mod tests;
