//! Reduction references, summed in fixed chunks or in row order, whatever the thread count.

use super::*;

/// Deterministic f64 sum of `f(x)` over a slice: fixed chunks summed in parallel, partials summed in order.
fn sum_f64<T: Copy + Sync>(v: &[T], f: impl Fn(T) -> f64 + Sync) -> f64 {
    let partials: Vec<f64> = v
        .par_chunks(SUM_CHUNK)
        .map(|c| c.iter().map(|&x| f(x)).sum::<f64>())
        .collect();
    partials.iter().sum()
}

/// The sum of all elements, as a one-element array of the same type (integers wrap).
pub fn sum(x: &HostData) -> Result<HostData, ReferenceError> {
    Ok(match x {
        HostData::I32(v) => {
            HostData::I32(vec![v.par_iter().copied().reduce(|| 0, i32::wrapping_add)])
        }
        HostData::U32(v) => {
            HostData::U32(vec![v.par_iter().copied().reduce(|| 0, u32::wrapping_add)])
        }
        HostData::F32(v) => HostData::F32(vec![sum_f64(v, |a| a as f64) as f32]),
        HostData::F64(v) => HostData::F64(vec![sum_f64(v, |a| a)]),
        other => return Err(unsupported("sum", other.elem_type())),
    })
}

/// `Σ x[i]·y[i]` as a one-element array of the inputs' type (integers wrap).
pub fn dot(x: &HostData, y: &HostData) -> Result<HostData, ReferenceError> {
    if x.len() != y.len() {
        return Err(ReferenceError::Length {
            name: "dot".to_string(),
            input: 1,
            expected: format!("{} (the length of input 0)", x.len()),
            got: y.len(),
        });
    }
    Ok(match (x, y) {
        (HostData::I32(a), HostData::I32(b)) => HostData::I32(vec![
            a.par_iter()
                .zip(b)
                .map(|(&p, &q)| p.wrapping_mul(q))
                .reduce(|| 0, i32::wrapping_add),
        ]),
        (HostData::U32(a), HostData::U32(b)) => HostData::U32(vec![
            a.par_iter()
                .zip(b)
                .map(|(&p, &q)| p.wrapping_mul(q))
                .reduce(|| 0, u32::wrapping_add),
        ]),
        (HostData::F32(a), HostData::F32(b)) => HostData::F32(vec![dot_f64(a, b) as f32]),
        (HostData::F64(a), HostData::F64(b)) => HostData::F64(vec![dot_f64(a, b)]),
        _ => return Err(type_pair("dot", x, y)),
    })
}

/// Deterministic f64 `Σ a[i]·b[i]`: fixed chunks in parallel, partials summed in order.
fn dot_f64<T: Copy + Sync + Into<f64>>(a: &[T], b: &[T]) -> f64 {
    let partials: Vec<f64> = (a.par_chunks(SUM_CHUNK).zip(b.par_chunks(SUM_CHUNK)))
        .map(|(a, b)| a.iter().zip(b).map(|(&p, &q)| p.into() * q.into()).sum())
        .collect();
    partials.iter().sum()
}

/// Checks that `x` holds `rows` rows of `cols` elements starting `pitch >= cols` apart.
fn check_matrix(
    name: &str,
    x: &HostData,
    rows: usize,
    cols: usize,
    pitch: usize,
) -> Result<(), ReferenceError> {
    if pitch < cols {
        return Err(ReferenceError::BadDim {
            name: name.to_string(),
            dim: "pitch".to_string(),
            value: pitch as i64,
            reason: format!("must be at least cols = {cols}"),
        });
    }
    let needed = match rows {
        0 => 0,
        _ => product(name, &[("rows", rows - 1), ("pitch", pitch)])? + cols,
    };
    if x.len() < needed {
        return Err(ReferenceError::Length {
            name: name.to_string(),
            input: 0,
            expected: format!("at least {needed} ((rows-1)*pitch + cols)"),
            got: x.len(),
        });
    }
    Ok(())
}

/// `f` of each row of a pitched matrix (see [`check_matrix`]), rows in parallel.
fn rows_of<T: Sync, R: Send>(
    v: &[T],
    rows: usize,
    cols: usize,
    pitch: usize,
    f: impl Fn(&[T]) -> R + Sync + Send,
) -> Vec<R> {
    (0..rows)
        .into_par_iter()
        .map(|r| f(&v[r * pitch..r * pitch + cols]))
        .collect()
}

/// The matrix-vector product `y[r] = Σ_c a[r·pitch + c]·x[c]` in the inputs' type (integers
/// wrap, floats summed in f64 in column order).
pub fn matvec(
    a: &HostData,
    x: &HostData,
    rows: usize,
    cols: usize,
    pitch: usize,
) -> Result<HostData, ReferenceError> {
    let name = "matvec";
    check_matrix(name, a, rows, cols, pitch)?;
    if x.len() < cols {
        return Err(ReferenceError::Length {
            name: name.to_string(),
            input: 1,
            expected: format!("at least {cols} (cols)"),
            got: x.len(),
        });
    }
    Ok(match (a, x) {
        (HostData::I32(a), HostData::I32(x)) => {
            HostData::I32(rows_of(a, rows, cols, pitch, |row| {
                row.iter()
                    .zip(x)
                    .fold(0i32, |s, (&p, &q)| s.wrapping_add(p.wrapping_mul(q)))
            }))
        }
        (HostData::U32(a), HostData::U32(x)) => {
            HostData::U32(rows_of(a, rows, cols, pitch, |row| {
                row.iter()
                    .zip(x)
                    .fold(0u32, |s, (&p, &q)| s.wrapping_add(p.wrapping_mul(q)))
            }))
        }
        (HostData::F32(a), HostData::F32(x)) => {
            HostData::F32(rows_of(a, rows, cols, pitch, |row| {
                row.iter()
                    .zip(x)
                    .map(|(&p, &q)| f64::from(p) * f64::from(q))
                    .sum::<f64>() as f32
            }))
        }
        (HostData::F64(a), HostData::F64(x)) => {
            HostData::F64(rows_of(a, rows, cols, pitch, |row| {
                row.iter().zip(x).map(|(&p, &q)| p * q).sum()
            }))
        }
        _ => return Err(type_pair(name, a, x)),
    })
}

/// A per-row reduction of a pitched matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowOp {
    Sum,
    /// Floats: the f64 mean. Integers: the exact (i64) sum divided by `cols`, truncated toward zero.
    Mean,
    Max,
    Min,
    SumSq,
}

/// Reduces each row of a pitched matrix (see [`check_matrix`]) to one element of the input's type.
pub fn row_reduce(
    x: &HostData,
    rows: usize,
    cols: usize,
    pitch: usize,
    op: RowOp,
) -> Result<HostData, ReferenceError> {
    let name = match op {
        RowOp::Sum => "row_sum",
        RowOp::Mean => "row_mean",
        RowOp::Max => "row_max",
        RowOp::Min => "row_min",
        RowOp::SumSq => "row_sumsq",
    };
    check_matrix(name, x, rows, cols, pitch)?;
    if cols == 0 && matches!(op, RowOp::Mean | RowOp::Max | RowOp::Min) {
        return Err(ReferenceError::BadDim {
            name: name.to_string(),
            dim: "cols".to_string(),
            value: 0,
            reason: "a row needs at least one element".to_string(),
        });
    }
    Ok(match x {
        HostData::I32(v) => HostData::I32(rows_of(v, rows, cols, pitch, |row| match op {
            RowOp::Sum => row.iter().fold(0i32, |a, &b| a.wrapping_add(b)),
            RowOp::SumSq => row
                .iter()
                .fold(0i32, |a, &b| a.wrapping_add(b.wrapping_mul(b))),
            RowOp::Mean => (row.iter().map(|&b| b as i64).sum::<i64>() / cols as i64) as i32,
            RowOp::Max => row.iter().copied().max().unwrap_or(0),
            RowOp::Min => row.iter().copied().min().unwrap_or(0),
        })),
        HostData::U32(v) => HostData::U32(rows_of(v, rows, cols, pitch, |row| match op {
            RowOp::Sum => row.iter().fold(0u32, |a, &b| a.wrapping_add(b)),
            RowOp::SumSq => row
                .iter()
                .fold(0u32, |a, &b| a.wrapping_add(b.wrapping_mul(b))),
            RowOp::Mean => (row.iter().map(|&b| b as u64).sum::<u64>() / cols as u64) as u32,
            RowOp::Max => row.iter().copied().max().unwrap_or(0),
            RowOp::Min => row.iter().copied().min().unwrap_or(0),
        })),
        HostData::F32(v) => HostData::F32(rows_of(v, rows, cols, pitch, |row| {
            float_row(row.iter().map(|&b| b as f64), cols, op) as f32
        })),
        HostData::F64(v) => HostData::F64(rows_of(v, rows, cols, pitch, |row| {
            float_row(row.iter().copied(), cols, op)
        })),
        other => return Err(unsupported(name, other.elem_type())),
    })
}

fn float_row(row: impl Iterator<Item = f64>, cols: usize, op: RowOp) -> f64 {
    match op {
        RowOp::Sum => row.sum(),
        RowOp::SumSq => row.map(|b| b * b).sum(),
        RowOp::Mean => row.sum::<f64>() / cols as f64,
        RowOp::Max => row.fold(f64::NEG_INFINITY, f64::max),
        RowOp::Min => row.fold(f64::INFINITY, f64::min),
    }
}

/// The mean of each column of a pitched matrix, in f64 (integers: i64, truncated).
pub fn col_mean(
    x: &HostData,
    rows: usize,
    cols: usize,
    pitch: usize,
) -> Result<HostData, ReferenceError> {
    let name = "col_mean";
    check_matrix(name, x, rows, cols, pitch)?;
    if rows == 0 {
        return Err(ReferenceError::BadDim {
            name: name.to_string(),
            dim: "rows".to_string(),
            value: 0,
            reason: "a column needs at least one element".to_string(),
        });
    }
    fn mean_of<T: Sync + Copy>(
        v: &[T],
        rows: usize,
        cols: usize,
        pitch: usize,
        f: impl Fn(T) -> f64 + Sync,
    ) -> Vec<f64> {
        (0..cols)
            .into_par_iter()
            .map(|c| (0..rows).map(|r| f(v[r * pitch + c])).sum::<f64>() / rows as f64)
            .collect()
    }
    Ok(match x {
        HostData::F32(v) => HostData::F32(
            mean_of(v, rows, cols, pitch, f64::from)
                .into_iter()
                .map(|m| m as f32)
                .collect(),
        ),
        HostData::F64(v) => HostData::F64(mean_of(v, rows, cols, pitch, |b| b)),
        HostData::I32(v) => HostData::I32(
            (0..cols)
                .into_par_iter()
                .map(|c| {
                    ((0..rows).map(|r| v[r * pitch + c] as i64).sum::<i64>() / rows as i64) as i32
                })
                .collect(),
        ),
        HostData::U32(v) => HostData::U32(
            (0..cols)
                .into_par_iter()
                .map(|c| {
                    ((0..rows).map(|r| v[r * pitch + c] as u64).sum::<u64>() / rows as u64) as u32
                })
                .collect(),
        ),
        other => return Err(unsupported(name, other.elem_type())),
    })
}
