//! Built-in CPU references (rayon-parallel) and the comparison of a kernel's output with them.
//!
//! Floats are computed in `f64` and returned in the input's element type; integers use wrapping
//! arithmetic in their own type, like the kernels they check. Reductions over floats sum fixed-size
//! chunks, so results do not depend on the number of threads.

use crate::host_data::init::random_word;
use crate::host_data::{ElemType, Element, HostData, each, map_same, of_type};
use crate::spec::builtins::REFERENCES as NAMES;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Why a reference (or CPU baseline) could not run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ReferenceError {
    #[error("unknown {kind} `{name}` (known: {})", known.join(", "))]
    Unknown {
        kind: &'static str,
        name: String,
        known: Vec<String>,
    },
    #[error("`{name}` takes {expected} input buffer(s), got {got}")]
    InputCount {
        name: String,
        expected: usize,
        got: usize,
    },
    #[error("`{name}` needs the dimension `{dim}` in `dims`")]
    MissingDim { name: String, dim: String },
    #[error("`{name}`: dimension `{dim}` = {value} is invalid: {reason}")]
    BadDim {
        name: String,
        dim: String,
        value: i64,
        reason: String,
    },
    #[error("`{name}`: input {input} has {got} elements, expected {expected}")]
    Length {
        name: String,
        input: usize,
        expected: String,
        got: usize,
    },
    #[error("`{name}` does not support element type {ty}{detail}")]
    Type {
        name: String,
        ty: ElemType,
        detail: String,
    },
    #[error("`{name}`: inputs have different element types ({a} and {b})")]
    MixedTypes {
        name: String,
        a: ElemType,
        b: ElemType,
    },
    #[error("`{name}`: index {index} (element {element}) is outside the input of {len} elements")]
    OutOfBounds {
        name: String,
        element: usize,
        index: i64,
        len: usize,
    },
}

/// The outcome of comparing a kernel's output with the reference.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    pub ok: bool,
    /// Largest error: absolute for integers, relative to max(1, max|ref|) for floats; infinite for NaN.
    pub max_error: f64,
    pub first_bad_index: Option<usize>,
    pub message: String,
    /// Floats: the element whose error is the largest share of its tolerance.
    #[serde(default)]
    pub worst: Option<Worst>,
}

/// The element of a float comparison closest to (or furthest past) its tolerance.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Worst {
    /// Its error divided by its tolerance (≤ 1 passes).
    pub ratio: f64,
    pub index: usize,
    /// Its tolerance, relative to `max(1, max|ref|)` like the error.
    pub tolerance: f64,
}

/// Runs the reference `name` on `inputs` with the scalar `dims` (names per reference, see DESIGN.md).
pub fn run(
    name: &str,
    inputs: &[&HostData],
    dims: &BTreeMap<String, i64>,
) -> Result<HostData, ReferenceError> {
    let narrow = inputs.first().map(|d| d.elem_type());
    let moves_data = matches!(name, "transpose" | "gather");
    if let Some(ty) = narrow
        && let Some(wide) = computing_type(ty).filter(|_| !moves_data)
    {
        let widened: Vec<HostData> = inputs
            .iter()
            .map(|d| match computing_type(d.elem_type()) {
                Some(w) => d.cast(w),
                None => (*d).clone(),
            })
            .collect();
        let refs: Vec<&HostData> = widened.iter().collect();
        let out = run_typed(name, &refs, dims)?;
        debug_assert!(out.elem_type() == wide || inputs.len() > 1);
        return Ok(out.cast(ty));
    }
    run_typed(name, inputs, dims)
}

/// [`run`] on inputs of the types the references compute in.
fn run_typed(
    name: &str,
    inputs: &[&HostData],
    dims: &BTreeMap<String, i64>,
) -> Result<HostData, ReferenceError> {
    let d = Dims { name, dims };
    let want = |n: usize| -> Result<(), ReferenceError> {
        if inputs.len() == n {
            Ok(())
        } else {
            Err(ReferenceError::InputCount {
                name: name.to_string(),
                expected: n,
                got: inputs.len(),
            })
        }
    };
    match name {
        "matmul" => {
            want(2)?;
            matmul(inputs[0], inputs[1], d.usize("n")?)
        }
        "matmul_aat" => {
            want(1)?;
            matmul_aat(inputs[0], d.usize("n")?)
        }
        "transpose" => {
            want(1)?;
            transpose(inputs[0], d.usize("rows")?, d.usize("cols")?)
        }
        "gather" => {
            want(1)?;
            gather(inputs[0], d.usize("n")?, d.int("offset")?, d.int("stride")?)
        }
        "sum" => {
            want(1)?;
            sum(inputs[0])
        }
        "dot" => {
            want(2)?;
            dot(inputs[0], inputs[1])
        }
        "row_sum" | "row_mean" | "row_max" | "row_min" | "row_sumsq" => {
            want(1)?;
            let (rows, cols) = (d.usize("rows")?, d.usize("cols")?);
            let pitch = if dims.contains_key("pitch") {
                d.usize("pitch")?
            } else {
                cols
            };
            let op = match name {
                "row_sum" => RowOp::Sum,
                "row_mean" => RowOp::Mean,
                "row_max" => RowOp::Max,
                "row_min" => RowOp::Min,
                _ => RowOp::SumSq,
            };
            row_reduce(inputs[0], rows, cols, pitch, op)
        }
        "col_mean" => {
            want(1)?;
            let (rows, cols) = (d.usize("rows")?, d.usize("cols")?);
            let pitch = if dims.contains_key("pitch") {
                d.usize("pitch")?
            } else {
                cols
            };
            col_mean(inputs[0], rows, cols, pitch)
        }
        "sin_sqrt" => {
            want(1)?;
            sin_sqrt(inputs[0])
        }
        _ => Err(ReferenceError::Unknown {
            kind: "reference",
            name: name.to_string(),
            known: NAMES.iter().map(|s| s.to_string()).collect(),
        }),
    }
}

/// Named scalar dimensions with typed errors.
pub(crate) struct Dims<'a> {
    pub name: &'a str,
    pub dims: &'a BTreeMap<String, i64>,
}

impl Dims<'_> {
    pub fn int(&self, dim: &str) -> Result<i64, ReferenceError> {
        self.dims
            .get(dim)
            .copied()
            .ok_or_else(|| ReferenceError::MissingDim {
                name: self.name.to_string(),
                dim: dim.to_string(),
            })
    }
    pub fn usize(&self, dim: &str) -> Result<usize, ReferenceError> {
        let value = self.int(dim)?;
        usize::try_from(value).map_err(|_| ReferenceError::BadDim {
            name: self.name.to_string(),
            dim: dim.to_string(),
            value,
            reason: "must not be negative".to_string(),
        })
    }
}

fn check_len(
    name: &str,
    input: usize,
    data: &HostData,
    expected: usize,
    what: &str,
) -> Result<(), ReferenceError> {
    if data.len() == expected {
        Ok(())
    } else {
        Err(ReferenceError::Length {
            name: name.to_string(),
            input,
            expected: format!("{expected} ({what})"),
            got: data.len(),
        })
    }
}

fn product(name: &str, dims: &[(&str, usize)]) -> Result<usize, ReferenceError> {
    dims.iter().try_fold(1usize, |acc, &(dim, v)| {
        acc.checked_mul(v).ok_or_else(|| ReferenceError::BadDim {
            name: name.to_string(),
            dim: dim.to_string(),
            value: v as i64,
            reason: "the buffer size overflows".to_string(),
        })
    })
}

fn to_f64_vec(data: &HostData) -> Vec<f64> {
    each!(data, v => v.par_iter().map(|&x| x.to_f64()).collect())
}

fn from_f64_vec(ty: ElemType, v: Vec<f64>) -> HostData {
    of_type!(ty, T => v.par_iter().map(|&x| T::from_f64(x)).collect())
}

/// The type a built-in reference computes a narrow type in: 8- and 16-bit integers in i32/u32
/// (wrapping arithmetic modulo 2^32 agrees with wrapping modulo 2^8 or 2^16 once narrowed back),
/// f16/bf16 in f64 (rounded back to nearest once, like f32 results). `None`: computed as is.
fn computing_type(ty: ElemType) -> Option<ElemType> {
    match ty {
        ElemType::I8 | ElemType::I16 => Some(ElemType::I32),
        ElemType::U8 | ElemType::U16 => Some(ElemType::U32),
        ElemType::F16 | ElemType::BF16 => Some(ElemType::F64),
        _ => None,
    }
}

/// A reference input type the arithmetic references do not compute in (64-bit integers).
fn unsupported(name: &str, ty: ElemType) -> ReferenceError {
    ReferenceError::Type {
        name: name.to_string(),
        ty,
        detail: " (arithmetic references compute in 8- to 32-bit integers and floats; for 64-bit \
                 integers write a `formula`)"
            .to_string(),
    }
}

// ---------------------------------------------------------------- matrix products

const GEMM_BI: usize = 32;
const GEMM_BK: usize = 256;
const GEMM_BJ: usize = 512;

/// Row-major `C (m×n) = A (m×k) · B (k×n)`, blocked for cache reuse, parallel over row blocks.
/// `fma(a, b, c)` returns `c + a·b` in the element arithmetic. Each element sums its products in
/// the same order (k ascending) whatever the blocking, the threads or the instruction set, so the
/// result does not depend on the machine.
fn gemm<T: Copy + Send + Sync>(
    a: &[T],
    b: &[T],
    (m, k, n): (usize, usize, usize),
    zero: T,
    fma: impl Fn(T, T, T) -> T + Sync,
) -> Vec<T> {
    let mut c = vec![zero; m * n];
    if n == 0 {
        return c;
    }
    c.par_chunks_mut(GEMM_BI * n)
        .enumerate()
        .for_each(|(ib, block)| {
            let i0 = ib * GEMM_BI;
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU has AVX2 (checked just above).
                unsafe { gemm_block_avx2(a, b, (k, n), i0, block, &fma) };
                return;
            }
            gemm_block(a, b, (k, n), i0, block, &fma);
        });
    c
}

/// [`gemm_block`] compiled for AVX2 (issue 11: the matmul references of a full regeneration took
/// about a minute on the GPU machine with SSE2 code).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn gemm_block_avx2<T: Copy>(
    a: &[T],
    b: &[T],
    kn: (usize, usize),
    i0: usize,
    block: &mut [T],
    fma: &impl Fn(T, T, T) -> T,
) {
    gemm_block(a, b, kn, i0, block, fma)
}

/// One block of rows of `C` (from row `i0`), cache-blocked over k and j; rows are updated four
/// at a time so each row of `B` loaded serves four rows of `C`.
#[inline(always)]
fn gemm_block<T: Copy>(
    a: &[T],
    b: &[T],
    (k, n): (usize, usize),
    i0: usize,
    block: &mut [T],
    fma: &impl Fn(T, T, T) -> T,
) {
    let rows = block.len() / n;
    for j0 in (0..n).step_by(GEMM_BJ) {
        let j1 = (j0 + GEMM_BJ).min(n);
        let w = j1 - j0;
        for k0 in (0..k).step_by(GEMM_BK) {
            let k1 = (k0 + GEMM_BK).min(k);
            let mut r = 0;
            while r + 4 <= rows {
                let (c0, rest) = block[r * n..].split_at_mut(n);
                let (c1, rest) = rest.split_at_mut(n);
                let (c2, rest) = rest.split_at_mut(n);
                let c3 = &mut rest[..n];
                let (c0, c1, c2, c3) = (
                    &mut c0[j0..j1],
                    &mut c1[j0..j1],
                    &mut c2[j0..j1],
                    &mut c3[j0..j1],
                );
                let ar = |q: usize| &a[(i0 + r + q) * k..(i0 + r + q + 1) * k];
                let (a0, a1, a2, a3) = (ar(0), ar(1), ar(2), ar(3));
                for kk in k0..k1 {
                    let b_row = &b[kk * n + j0..kk * n + j1];
                    let (x0, x1, x2, x3) = (a0[kk], a1[kk], a2[kk], a3[kk]);
                    for j in 0..w {
                        let bv = b_row[j];
                        c0[j] = fma(x0, bv, c0[j]);
                        c1[j] = fma(x1, bv, c1[j]);
                        c2[j] = fma(x2, bv, c2[j]);
                        c3[j] = fma(x3, bv, c3[j]);
                    }
                }
                r += 4;
            }
            for r in r..rows {
                let a_row = &a[(i0 + r) * k..(i0 + r + 1) * k];
                let c_row = &mut block[r * n + j0..r * n + j1];
                for (kk, &aik) in a_row.iter().enumerate().take(k1).skip(k0) {
                    let b_row = &b[kk * n + j0..kk * n + j1];
                    for (cv, &bv) in c_row.iter_mut().zip(b_row) {
                        *cv = fma(aik, bv, *cv);
                    }
                }
            }
        }
    }
}

/// `C = A·B` for `a (m×k)` and `b (k×n)` of the same element type.
fn gemm_data(
    name: &str,
    a: &HostData,
    b: &HostData,
    dims: (usize, usize, usize),
) -> Result<HostData, ReferenceError> {
    Ok(match (a, b) {
        (HostData::I32(a), HostData::I32(b)) => {
            HostData::I32(gemm(a, b, dims, 0, |x, y, c: i32| {
                c.wrapping_add(x.wrapping_mul(y))
            }))
        }
        (HostData::U32(a), HostData::U32(b)) => {
            HostData::U32(gemm(a, b, dims, 0, |x, y, c: u32| {
                c.wrapping_add(x.wrapping_mul(y))
            }))
        }
        (HostData::F64(a), HostData::F64(b)) => {
            HostData::F64(gemm(a, b, dims, 0.0, |x, y, c: f64| c + x * y))
        }
        (HostData::F32(_), HostData::F32(_)) => {
            let (a64, b64) = (to_f64_vec(a), to_f64_vec(b));
            from_f64_vec(
                ElemType::F32,
                gemm(&a64, &b64, dims, 0.0, |x, y, c: f64| c + x * y),
            )
        }
        _ if a.elem_type() == b.elem_type() => return Err(unsupported(name, a.elem_type())),
        _ => {
            return Err(ReferenceError::MixedTypes {
                name: name.to_string(),
                a: a.elem_type(),
                b: b.elem_type(),
            });
        }
    })
}

/// `C = A·B` for square `n×n` row-major matrices.
pub fn matmul(a: &HostData, b: &HostData, n: usize) -> Result<HostData, ReferenceError> {
    let nn = product("matmul", &[("n", n), ("n", n)])?;
    check_len("matmul", 0, a, nn, "n*n")?;
    check_len("matmul", 1, b, nn, "n*n")?;
    gemm_data("matmul", a, b, (n, n, n))
}

/// `C = A·Aᵀ` for `a` with `n` rows (and `len / n` columns); the result is `n×n`.
pub fn matmul_aat(a: &HostData, n: usize) -> Result<HostData, ReferenceError> {
    if n == 0 || !a.len().is_multiple_of(n) {
        return Err(ReferenceError::Length {
            name: "matmul_aat".to_string(),
            input: 0,
            expected: format!("a multiple of n = {n} (n rows)"),
            got: a.len(),
        });
    }
    let k = a.len() / n;
    let at = transpose(a, n, k)?;
    gemm_data("matmul_aat", a, &at, (n, k, n))
}

// ---------------------------------------------------------------- data movement

const TILE: usize = 64;

fn transpose_vec<T: Copy + Send + Sync + Default>(a: &[T], rows: usize, cols: usize) -> Vec<T> {
    let mut out = vec![T::default(); rows * cols];
    if rows == 0 || cols == 0 {
        return out;
    }
    // Output is cols×rows; each task owns TILE output rows (= TILE input columns).
    out.par_chunks_mut(TILE * rows)
        .enumerate()
        .for_each(|(jb, block)| {
            let j0 = jb * TILE;
            let jn = block.len() / rows;
            for i0 in (0..rows).step_by(TILE) {
                let i1 = (i0 + TILE).min(rows);
                for j in 0..jn {
                    let out_row = &mut block[j * rows..(j + 1) * rows];
                    for i in i0..i1 {
                        out_row[i] = a[i * cols + j0 + j];
                    }
                }
            }
        });
    out
}

/// `out[j][i] = a[i][j]` for a row-major `rows×cols` matrix (the result is `cols×rows`).
pub fn transpose(a: &HostData, rows: usize, cols: usize) -> Result<HostData, ReferenceError> {
    let len = product("transpose", &[("rows", rows), ("cols", cols)])?;
    check_len("transpose", 0, a, len, "rows*cols")?;
    Ok(map_same!(a, v => transpose_vec(v, rows, cols)))
}

/// `out[i] = a[offset + i*stride]` for `i < n` (every index must be in bounds; `stride` may be negative).
pub fn gather(
    a: &HostData,
    n: usize,
    offset: i64,
    stride: i64,
) -> Result<HostData, ReferenceError> {
    let len = a.len();
    let index = |i: usize| -> Option<usize> {
        let idx = (i as i128) * (stride as i128) + offset as i128;
        usize::try_from(idx).ok().filter(|&x| x < len)
    };
    // Indices are affine in i: checking both ends covers every element.
    for element in [0, n.saturating_sub(1)] {
        if n > 0 && index(element).is_none() {
            let idx = (element as i128) * (stride as i128) + offset as i128;
            return Err(ReferenceError::OutOfBounds {
                name: "gather".to_string(),
                element,
                index: idx.clamp(i64::MIN as i128, i64::MAX as i128) as i64,
                len,
            });
        }
    }
    let pick = |i: usize| index(i).unwrap_or(0);
    Ok(map_same!(a, v => (0..n).into_par_iter().map(|i| v[pick(i)]).collect()))
}

// ---------------------------------------------------------------- reductions

const SUM_CHUNK: usize = 1 << 14;

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
        (HostData::F32(a), HostData::F32(b)) => {
            let pairs: Vec<(usize, usize)> = chunk_bounds(a.len());
            let partials: Vec<f64> = pairs
                .par_iter()
                .map(|&(s, e)| {
                    a[s..e]
                        .iter()
                        .zip(&b[s..e])
                        .map(|(&p, &q)| p as f64 * q as f64)
                        .sum()
                })
                .collect();
            HostData::F32(vec![partials.iter().sum::<f64>() as f32])
        }
        (HostData::F64(a), HostData::F64(b)) => {
            let pairs: Vec<(usize, usize)> = chunk_bounds(a.len());
            let partials: Vec<f64> = pairs
                .par_iter()
                .map(|&(s, e)| a[s..e].iter().zip(&b[s..e]).map(|(&p, &q)| p * q).sum())
                .collect();
            HostData::F64(vec![partials.iter().sum()])
        }
        _ if x.elem_type() == y.elem_type() => return Err(unsupported("dot", x.elem_type())),
        _ => {
            return Err(ReferenceError::MixedTypes {
                name: "dot".to_string(),
                a: x.elem_type(),
                b: y.elem_type(),
            });
        }
    })
}

fn chunk_bounds(len: usize) -> Vec<(usize, usize)> {
    (0..len)
        .step_by(SUM_CHUNK)
        .map(|s| (s, (s + SUM_CHUNK).min(len)))
        .collect()
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

/// Reduces each of `rows` rows of `cols` elements; rows start `pitch` elements apart (`pitch >= cols`,
/// elements past `cols` are padding and ignored). The result has `rows` elements of the input's type.
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
    if pitch < cols {
        return Err(ReferenceError::BadDim {
            name: name.to_string(),
            dim: "pitch".to_string(),
            value: pitch as i64,
            reason: format!("must be at least cols = {cols}"),
        });
    }
    if cols == 0 && matches!(op, RowOp::Mean | RowOp::Max | RowOp::Min) {
        return Err(ReferenceError::BadDim {
            name: name.to_string(),
            dim: "cols".to_string(),
            value: 0,
            reason: "a row needs at least one element".to_string(),
        });
    }
    let needed = if rows == 0 {
        0
    } else {
        product(name, &[("rows", rows - 1), ("pitch", pitch)])? + cols
    };
    if x.len() < needed {
        return Err(ReferenceError::Length {
            name: name.to_string(),
            input: 0,
            expected: format!("at least {needed} ((rows-1)*pitch + cols)"),
            got: x.len(),
        });
    }
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

/// The mean of each of the `cols` columns of a matrix of `rows` rows stored `pitch` elements apart
/// (lab 3, task 3 "(columns)"): `cols` results, accumulated in f64 (i64 for integers, truncated).
pub fn col_mean(
    x: &HostData,
    rows: usize,
    cols: usize,
    pitch: usize,
) -> Result<HostData, ReferenceError> {
    let name = "col_mean";
    if pitch < cols {
        return Err(ReferenceError::BadDim {
            name: name.to_string(),
            dim: "pitch".to_string(),
            value: pitch as i64,
            reason: format!("must be at least cols = {cols}"),
        });
    }
    if rows == 0 {
        return Err(ReferenceError::BadDim {
            name: name.to_string(),
            dim: "rows".to_string(),
            value: 0,
            reason: "a column needs at least one element".to_string(),
        });
    }
    let needed = product(name, &[("rows", rows - 1), ("pitch", pitch)])? + cols;
    if x.len() < needed {
        return Err(ReferenceError::Length {
            name: name.to_string(),
            input: 0,
            expected: format!("at least {needed} ((rows-1)*pitch + cols)"),
            got: x.len(),
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

/// `out[i] = sin(sqrt(x[i]))`, computed in f64 (floats only).
pub fn sin_sqrt(x: &HostData) -> Result<HostData, ReferenceError> {
    Ok(match x {
        HostData::F32(v) => HostData::F32(
            v.par_iter()
                .map(|&a| (a as f64).sqrt().sin() as f32)
                .collect(),
        ),
        HostData::F64(v) => HostData::F64(v.par_iter().map(|&a| a.sqrt().sin()).collect()),
        other => {
            return Err(ReferenceError::Type {
                name: "sin_sqrt".to_string(),
                ty: other.elem_type(),
                detail: " (it needs f32 or f64)".to_string(),
            });
        }
    })
}

// ---------------------------------------------------------------- comparison

/// Per-chunk comparison summary.
#[derive(Debug, Clone, Copy)]
struct Partial {
    first_bad: Option<usize>,
    max_error: f64,
    bad: usize,
    /// The element closest to (or furthest past) its tolerance: (error / tolerance, index, tolerance).
    worst: (f64, usize, f64),
}

impl Partial {
    const EMPTY: Partial = Partial {
        first_bad: None,
        max_error: 0.0,
        bad: 0,
        worst: (0.0, 0, f64::NAN),
    };
}

fn merge(a: Partial, b: Partial) -> Partial {
    Partial {
        first_bad: a.first_bad.or(b.first_bad),
        max_error: a.max_error.max(b.max_error),
        bad: a.bad + b.bad,
        worst: if b.worst.0 > a.worst.0 {
            b.worst
        } else {
            a.worst
        },
    }
}

/// `error / tolerance`: 0 for no error, infinite for an error against a zero tolerance or for NaN.
fn ratio(d: f64, tol: f64) -> f64 {
    if d.is_nan() {
        f64::INFINITY
    } else if d == 0.0 {
        0.0
    } else {
        d / tol
    }
}

fn scan<T: Copy + Sync>(
    out: &[T],
    exp: &[T],
    err: impl Fn(T, T) -> f64 + Sync,
    tolerance: impl Fn(usize, T) -> f64 + Sync,
) -> Partial {
    out.par_chunks(SUM_CHUNK)
        .zip(exp.par_chunks(SUM_CHUNK))
        .enumerate()
        .map(|(c, (o, e))| {
            let mut p = Partial::EMPTY;
            for (j, (&x, &y)) in o.iter().zip(e).enumerate() {
                let i = c * SUM_CHUNK + j;
                let d = err(x, y);
                let tol = tolerance(i, y);
                // NaN is never within tolerance.
                if d.is_nan() || d > tol {
                    p.first_bad.get_or_insert(i);
                    p.bad += 1;
                }
                p.max_error = if d.is_nan() {
                    f64::INFINITY
                } else {
                    p.max_error.max(d)
                };
                let r = ratio(d, tol);
                if r > p.worst.0 || p.worst.2.is_nan() {
                    p.worst = (r, i, tol);
                }
            }
            p
        })
        .reduce(|| Partial::EMPTY, merge)
}

/// Exact comparison of two integer arrays (of any integer types, 64-bit values beyond 2⁵³
/// included: never through f64).
fn int_scan<A: Element, B: Element>(o: &[A], e: &[B]) -> Partial {
    o.par_chunks(SUM_CHUNK)
        .zip(e.par_chunks(SUM_CHUNK))
        .enumerate()
        .map(|(c, (o, e))| {
            let mut p = Partial::EMPTY;
            for (j, (&x, &y)) in o.iter().zip(e).enumerate() {
                let i = c * SUM_CHUNK + j;
                let d = match (x.to_i128(), y.to_i128()) {
                    (Some(a), Some(b)) => (a - b).unsigned_abs() as f64,
                    _ => f64::NAN,
                };
                if d.is_nan() || d > 0.0 {
                    p.first_bad.get_or_insert(i);
                    p.bad += 1;
                }
                p.max_error = if d.is_nan() {
                    f64::INFINITY
                } else {
                    p.max_error.max(d)
                };
                let r = ratio(d, 0.0);
                if r > p.worst.0 || p.worst.2.is_nan() {
                    p.worst = (r, i, 0.0);
                }
            }
            p
        })
        .reduce(|| Partial::EMPTY, merge)
}

/// `max(1, max|ref|)`: float errors are measured relative to it (non-finite references ignored).
pub fn scale(expected: &HostData) -> f64 {
    let max_ref = match expected {
        HostData::F32(e) => e
            .par_iter()
            .map(|&x| x.abs() as f64)
            .filter(|x| x.is_finite())
            .reduce(|| 0.0, f64::max),
        HostData::F64(e) => e
            .par_iter()
            .map(|&x| x.abs())
            .filter(|x| x.is_finite())
            .reduce(|| 0.0, f64::max),
        other => to_f64_vec(other)
            .iter()
            .fold(0.0f64, |a, &b| a.max(b.abs())),
    };
    max_ref.max(1.0)
}

/// Compares a kernel's `output` with the reference's `expected` values under one `tolerance`.
///
/// Integers (both sides integer-typed) must match exactly. Otherwise the error of each element is
/// `|out - ref| / max(1, max|ref|)` and must not exceed `tolerance`; a NaN or infinity never passes.
pub fn compare(output: &HostData, expected: &HostData, tolerance: f64) -> Comparison {
    compare_within(output, expected, &|_, _| tolerance)
}

/// [`compare`] with a tolerance per element: `tolerance(i, ref_i)`, relative like the error.
pub fn compare_within(
    output: &HostData,
    expected: &HostData,
    tolerance: &(dyn Fn(usize, f64) -> f64 + Sync),
) -> Comparison {
    if output.len() != expected.len() {
        return length_mismatch(output, expected);
    }
    compare_first(output, expected, tolerance)
}

/// [`compare_within`] on the first `expected.len()` elements of `output`, which may be longer (a
/// reduction's output buffer holds more than its result), without copying them.
pub fn compare_prefix_within(
    output: &HostData,
    expected: &HostData,
    tolerance: &(dyn Fn(usize, f64) -> f64 + Sync),
) -> Comparison {
    if output.len() < expected.len() {
        return length_mismatch(output, expected);
    }
    compare_first(output, expected, tolerance)
}

fn length_mismatch(output: &HostData, expected: &HostData) -> Comparison {
    Comparison {
        ok: false,
        max_error: f64::INFINITY,
        first_bad_index: Some(output.len().min(expected.len())),
        message: format!(
            "output has {} elements, the reference has {}",
            output.len(),
            expected.len()
        ),
        worst: None,
    }
}

/// Compares the first `expected.len()` elements of `output` (at least that long) with `expected`.
fn compare_first(
    output: &HostData,
    expected: &HostData,
    tolerance: &(dyn Fn(usize, f64) -> f64 + Sync),
) -> Comparison {
    let n = expected.len();
    let integer = !output.elem_type().is_float() && !expected.elem_type().is_float();
    let (partial, scale) = if integer {
        let p = match (output, expected) {
            (HostData::I32(o), HostData::I32(e)) => {
                scan(&o[..n], e, |x, y| (x as f64 - y as f64).abs(), |_, _| 0.0)
            }
            (HostData::U32(o), HostData::U32(e)) => {
                scan(&o[..n], e, |x, y| (x as f64 - y as f64).abs(), |_, _| 0.0)
            }
            // Other integer types exactly (64-bit values beyond 2^53 included), never through f64.
            _ => each!(output, o => each!(expected, e => int_scan(&o[..n], e))),
        };
        (p, 1.0)
    } else {
        let scale = scale(expected);
        let rel = move |x: f64, y: f64| {
            if x.is_finite() && y.is_finite() {
                (x - y).abs() / scale
            } else {
                f64::INFINITY
            }
        };
        let p = match (output, expected) {
            (HostData::F32(o), HostData::F32(e)) => scan(
                &o[..n],
                e,
                |x, y| rel(x as f64, y as f64),
                |i, y| tolerance(i, y as f64),
            ),
            (HostData::F64(o), HostData::F64(e)) => scan(&o[..n], e, rel, tolerance),
            _ => {
                let (o, e) = (to_f64_vec(output), to_f64_vec(expected));
                scan(&o[..n], &e, rel, tolerance)
            }
        };
        (p, scale)
    };
    let worst = (!integer && n > 0).then_some(Worst {
        ratio: partial.worst.0,
        index: partial.worst.1,
        tolerance: partial.worst.2,
    });
    let message = match partial.first_bad {
        None if integer => format!("all {n} elements match exactly"),
        None => match worst {
            Some(w) => format!(
                "all {n} elements within tolerance (max relative error {:.3e}; closest to its tolerance: \
                 index {}, at {:.2} of {:e})",
                partial.max_error, w.index, w.ratio, w.tolerance
            ),
            None => format!("all {n} elements within tolerance"),
        },
        Some(i) => {
            let got = output.get_f64(i).unwrap_or(f64::NAN);
            let want = expected.get_f64(i).unwrap_or(f64::NAN);
            let bad = partial.bad;
            if integer {
                format!(
                    "{bad} of {n} elements differ; first at index {i}: got {got}, expected {want}"
                )
            } else {
                format!(
                    "{bad} of {n} elements exceed their tolerance (errors relative to max(1, max|ref|) = {scale:e}); \
                     first at index {i}: got {got}, expected {want}, tolerance {:e}; max error {:.3e}",
                    tolerance(i, want),
                    partial.max_error
                )
            }
        }
    };
    Comparison {
        ok: partial.first_bad.is_none(),
        max_error: partial.max_error,
        first_bad_index: partial.first_bad,
        message,
        worst,
    }
}

// ---------------------------------------------------------------- Freivalds

/// A probabilistic check of `C = A·B` (square `n×n`) in O(rounds·n²): compares `A(Br)` with `Cr` for random
/// sign vectors `r`. Integers: exact in wrapping arithmetic (a wrong C escapes a round with probability
/// ≤ 1/2). Floats: computed in f64; a row fails when `|A(Br) − Cr| > tolerance · max(1, max|C|) · √n`, so it
/// catches errors about √n times larger than `compare` would (indexing bugs, garbage, NaN), not rounding.
/// `first_bad_index` is the first failing row's first element.
pub fn freivalds(
    a: &HostData,
    b: &HostData,
    c: &HostData,
    n: usize,
    tolerance: f64,
    rounds: u32,
    seed: u64,
) -> Result<Comparison, ReferenceError> {
    let nn = product("freivalds", &[("n", n), ("n", n)])?;
    for (i, d) in [a, b, c].into_iter().enumerate() {
        check_len("freivalds", i, d, nn, "n*n")?;
    }
    let ty = a.elem_type();
    for d in [b, c] {
        if d.elem_type() != ty {
            return Err(ReferenceError::MixedTypes {
                name: "freivalds".to_string(),
                a: ty,
                b: d.elem_type(),
            });
        }
    }
    let sign = |round: u32, j: usize| -> i64 {
        if random_word(seed ^ u64::from(round).wrapping_mul(0x9E37), j as u64) & 1 == 0 {
            1
        } else {
            -1
        }
    };
    let mut worst = 0.0f64;
    for round in 0..rounds {
        let bad_row = match (a, b, c) {
            (HostData::I32(_), _, _) | (HostData::U32(_), _, _) => {
                let as_u32 = |d: &HostData| -> Vec<u32> {
                    match d {
                        HostData::I32(v) => v.par_iter().map(|&x| x as u32).collect(),
                        HostData::U32(v) => v.clone(),
                        _ => Vec::new(),
                    }
                };
                let (a, b, c) = (as_u32(a), as_u32(b), as_u32(c));
                let r: Vec<u32> = (0..n).map(|j| sign(round, j) as u32).collect();
                let matvec = |m: &[u32], v: &[u32]| -> Vec<u32> {
                    m.par_chunks(n)
                        .map(|row| {
                            row.iter()
                                .zip(v)
                                .fold(0u32, |s, (&x, &y)| s.wrapping_add(x.wrapping_mul(y)))
                        })
                        .collect()
                };
                let abr = matvec(&a, &matvec(&b, &r));
                let cr = matvec(&c, &r);
                let bad = abr.iter().zip(&cr).position(|(x, y)| x != y);
                if bad.is_some() {
                    worst = f64::INFINITY;
                }
                bad
            }
            _ => {
                let (a, b, c) = (to_f64_vec(a), to_f64_vec(b), to_f64_vec(c));
                let r: Vec<f64> = (0..n).map(|j| sign(round, j) as f64).collect();
                let matvec = |m: &[f64], v: &[f64]| -> Vec<f64> {
                    m.par_chunks(n)
                        .map(|row| row.iter().zip(v).map(|(&x, &y)| x * y).sum())
                        .collect()
                };
                let abr = matvec(&a, &matvec(&b, &r));
                let cr = matvec(&c, &r);
                let max_c = c.par_iter().map(|x| x.abs()).reduce(|| 0.0, f64::max);
                let scale = max_c.max(1.0) * (n.max(1) as f64).sqrt();
                let errs: Vec<f64> = abr
                    .iter()
                    .zip(&cr)
                    .map(|(x, y)| {
                        if x.is_finite() && y.is_finite() {
                            (x - y).abs() / scale
                        } else {
                            f64::INFINITY
                        }
                    })
                    .collect();
                worst = errs.iter().fold(worst, |w, &e| w.max(e));
                errs.iter().position(|&e| e.is_nan() || e > tolerance)
            }
        };
        if let Some(row) = bad_row {
            return Ok(Comparison {
                ok: false,
                max_error: worst,
                first_bad_index: Some(row * n),
                message: format!(
                    "Freivalds check failed in round {} of {rounds}: row {row} of C is wrong",
                    round + 1
                ),
                worst: None,
            });
        }
    }
    Ok(Comparison {
        ok: true,
        max_error: worst,
        first_bad_index: None,
        message: format!("Freivalds check passed {rounds} round(s) (probabilistic)"),
        worst: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host_data::init::{Init, generate};

    fn naive_matmul_f64(a: &[f64], b: &[f64], n: usize) -> Vec<f64> {
        let mut c = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                c[i * n + j] = (0..n).map(|k| a[i * n + k] * b[k * n + j]).sum();
            }
        }
        c
    }

    fn dims(pairs: &[(&str, i64)]) -> BTreeMap<String, i64> {
        pairs.iter().map(|&(k, v)| (k.to_string(), v)).collect()
    }

    #[test]
    fn matmul_matches_naive_for_odd_sizes() {
        for n in [1usize, 3, 37, 70] {
            let a = generate(ElemType::F64, n * n, &Init::Random { lo: -1.0, hi: 1.0 }, 1).unwrap();
            let b = generate(ElemType::F64, n * n, &Init::Random { lo: -1.0, hi: 1.0 }, 2).unwrap();
            let (HostData::F64(av), HostData::F64(bv)) = (&a, &b) else {
                unreachable!()
            };
            let want = HostData::F64(naive_matmul_f64(av, bv, n));
            let got = matmul(&a, &b, n).unwrap();
            let cmp = compare(&got, &want, 1e-12);
            assert!(cmp.ok, "n={n}: {}", cmp.message);
        }
    }

    #[test]
    fn matmul_i32_wraps_and_f32_uses_f64() {
        let a = HostData::I32(vec![i32::MAX, 0, 0, 1]);
        let b = HostData::I32(vec![2, 0, 0, 1]);
        assert_eq!(
            matmul(&a, &b, 2).unwrap(),
            HostData::I32(vec![i32::MAX.wrapping_mul(2), 0, 0, 1])
        );
        let a = HostData::F32(vec![1.0, 2.0, 3.0, 4.0]);
        let b = HostData::F32(vec![5.0, 6.0, 7.0, 8.0]);
        assert_eq!(
            matmul(&a, &b, 2).unwrap(),
            HostData::F32(vec![19.0, 22.0, 43.0, 50.0])
        );
        assert!(matches!(
            matmul(&a, &b, 3),
            Err(ReferenceError::Length { .. })
        ));
        assert!(matches!(
            matmul(&a, &HostData::I32(vec![0; 4]), 2),
            Err(ReferenceError::MixedTypes { .. })
        ));
    }

    #[test]
    fn matmul_aat_is_a_times_a_transposed() {
        // 2×3 · 3×2
        let a = HostData::I32(vec![1, 2, 3, 4, 5, 6]);
        assert_eq!(
            matmul_aat(&a, 2).unwrap(),
            HostData::I32(vec![14, 32, 32, 77])
        );
        assert!(matmul_aat(&a, 4).is_err());
    }

    #[test]
    fn transpose_rectangular() {
        let a = HostData::U32((0..6).collect());
        assert_eq!(
            transpose(&a, 2, 3).unwrap(),
            HostData::U32(vec![0, 3, 1, 4, 2, 5])
        );
        let (r, c) = (131, 67);
        let a = generate(ElemType::F32, r * c, &Init::Iota, 0).unwrap();
        let t = transpose(&a, r, c).unwrap();
        assert_eq!(transpose(&t, c, r).unwrap(), a);
        assert_eq!(t.get_f64(5 * r + 7), a.get_f64(7 * c + 5));
    }

    #[test]
    fn gather_with_offset_and_stride() {
        let a = HostData::I32((0..10).collect());
        assert_eq!(gather(&a, 3, 1, 3).unwrap(), HostData::I32(vec![1, 4, 7]));
        assert_eq!(gather(&a, 3, 9, -2).unwrap(), HostData::I32(vec![9, 7, 5]));
        assert!(matches!(
            gather(&a, 4, 1, 3),
            Err(ReferenceError::OutOfBounds {
                element: 3,
                index: 10,
                ..
            })
        ));
        assert_eq!(gather(&a, 0, 100, 1).unwrap(), HostData::I32(vec![]));
    }

    #[test]
    fn sums_and_dots() {
        assert_eq!(
            sum(&HostData::I32(vec![i32::MAX, 1])).unwrap(),
            HostData::I32(vec![i32::MIN])
        );
        assert_eq!(
            sum(&HostData::U32(vec![3, 4])).unwrap(),
            HostData::U32(vec![7])
        );
        let x = generate(ElemType::F32, 100_000, &Init::Constant(0.1), 0).unwrap();
        let HostData::F32(s) = sum(&x).unwrap() else {
            unreachable!()
        };
        assert!((s[0] - 10_000.0).abs() < 0.01, "{}", s[0]);
        let y = HostData::F64(vec![1.0, 2.0, 3.0]);
        assert_eq!(dot(&y, &y).unwrap(), HostData::F64(vec![14.0]));
        assert_eq!(
            dot(&HostData::I32(vec![2, 3]), &HostData::I32(vec![4, 5])).unwrap(),
            HostData::I32(vec![23])
        );
        assert!(dot(&y, &HostData::F64(vec![1.0])).is_err());
    }

    #[test]
    fn row_reductions_ignore_padding() {
        // 2 rows of 3, pitch 4: the 4th column is padding (99).
        let x = HostData::F32(vec![1.0, 2.0, 3.0, 99.0, -4.0, 5.0, 6.0, 99.0]);
        let r = |op| row_reduce(&x, 2, 3, 4, op).unwrap();
        assert_eq!(r(RowOp::Sum), HostData::F32(vec![6.0, 7.0]));
        assert_eq!(r(RowOp::Mean), HostData::F32(vec![2.0, 7.0 / 3.0]));
        assert_eq!(r(RowOp::Max), HostData::F32(vec![3.0, 6.0]));
        assert_eq!(r(RowOp::Min), HostData::F32(vec![1.0, -4.0]));
        assert_eq!(r(RowOp::SumSq), HostData::F32(vec![14.0, 77.0]));
        let xi = HostData::I32(vec![1, 2, 4, 7, -3, -4]);
        assert_eq!(
            row_reduce(&xi, 2, 3, 3, RowOp::Mean).unwrap(),
            HostData::I32(vec![2, 0])
        );
        assert!(matches!(
            row_reduce(&x, 2, 3, 2, RowOp::Sum),
            Err(ReferenceError::BadDim { .. })
        ));
        assert!(matches!(
            row_reduce(&x, 3, 3, 4, RowOp::Sum),
            Err(ReferenceError::Length { .. })
        ));
        // The last row may omit its padding.
        assert!(row_reduce(&HostData::F32(vec![0.0; 7]), 2, 3, 4, RowOp::Sum).is_ok());
    }

    #[test]
    fn sin_sqrt_floats_only() {
        let x = HostData::F64(vec![0.0, 4.0]);
        assert_eq!(
            sin_sqrt(&x).unwrap(),
            HostData::F64(vec![0.0, 2.0f64.sin()])
        );
        assert!(matches!(
            sin_sqrt(&HostData::I32(vec![1])),
            Err(ReferenceError::Type { .. })
        ));
    }

    #[test]
    fn col_mean_averages_columns_and_skips_the_pitch_padding() {
        // 2 rows of 3 floats, pitch 4 (the 4th float of each row is padding and must be ignored).
        let x = HostData::F32(vec![1.0, 2.0, 3.0, 100.0, 3.0, 6.0, 9.0, 100.0]);
        let d = dims(&[("rows", 2), ("cols", 3), ("pitch", 4)]);
        assert_eq!(
            run("col_mean", &[&x], &d).unwrap(),
            HostData::F32(vec![2.0, 4.0, 6.0])
        );
        let ints = HostData::I32(vec![1, 2, 4, 5]);
        assert_eq!(col_mean(&ints, 2, 2, 2).unwrap(), HostData::I32(vec![2, 3]));
        assert!(col_mean(&x, 2, 3, 2).is_err(), "pitch < cols");
        assert!(col_mean(&x, 3, 3, 4).is_err(), "too short");
        assert!(col_mean(&x, 0, 3, 4).is_err(), "no rows");
    }

    #[test]
    fn run_dispatches_by_name_with_dims() {
        let a = HostData::I32(vec![1, 2, 3, 4]);
        assert_eq!(
            run("matmul", &[&a, &a], &dims(&[("n", 2)])).unwrap(),
            HostData::I32(vec![7, 10, 15, 22])
        );
        assert_eq!(
            run("row_sum", &[&a], &dims(&[("rows", 2), ("cols", 2)])).unwrap(),
            HostData::I32(vec![3, 7])
        );
        assert_eq!(
            run("sum", &[&a], &BTreeMap::new()).unwrap(),
            HostData::I32(vec![10])
        );
        assert!(matches!(
            run("matmul", &[&a], &dims(&[("n", 2)])),
            Err(ReferenceError::InputCount { .. })
        ));
        assert!(matches!(
            run("matmul", &[&a, &a], &BTreeMap::new()),
            Err(ReferenceError::MissingDim { .. })
        ));
        assert!(matches!(
            run("transpose", &[&a], &dims(&[("rows", -1), ("cols", 2)])),
            Err(ReferenceError::BadDim { .. })
        ));
        let err = run("matmull", &[&a], &BTreeMap::new()).unwrap_err();
        assert!(err.to_string().contains("matmul_aat"));
        for name in NAMES {
            // Every listed name is dispatched (an error other than Unknown is fine here).
            let r = run(name, &[&a], &BTreeMap::new());
            assert!(!matches!(r, Err(ReferenceError::Unknown { .. })), "{name}");
        }
    }

    /// The worker compares a reduction's longer output buffer in place (no prefix copy).
    #[test]
    fn compare_prefix_ignores_the_outputs_tail_and_rejects_a_short_output() {
        let out = HostData::F32(vec![1.0, 2.0, f32::NAN, 7.0]);
        let want = HostData::F32(vec![1.0, 2.0]);
        let exact = |_: usize, _: f64| 0.0;
        let c = compare_prefix_within(&out, &want, &exact);
        assert!(c.ok, "{}", c.message);
        assert!(c.message.contains("all 2 elements"), "{}", c.message);
        let loose = |_: usize, _: f64| 1e-3;
        let bad = compare_prefix_within(&out, &HostData::F32(vec![1.0, 2.5]), &loose);
        assert_eq!((bad.ok, bad.first_bad_index), (false, Some(1)));
        let short = compare_prefix_within(&want, &out, &exact);
        assert!(!short.ok && short.message.contains("output has 2 elements"));
        assert!(
            !compare(&out, &want, 0.0).ok,
            "compare still wants equal lengths"
        );
    }

    #[test]
    fn compare_integers_exactly() {
        let a = HostData::I32(vec![1, 2, 3]);
        let c = compare(&a, &a, 0.0);
        assert!(
            c.ok && c.max_error == 0.0 && c.first_bad_index.is_none(),
            "{c:?}"
        );
        let b = HostData::I32(vec![1, 5, 4]);
        let c = compare(&b, &a, 1.0);
        assert!(!c.ok);
        assert_eq!(c.first_bad_index, Some(1));
        assert_eq!(c.max_error, 3.0);
        assert!(c.message.contains("2 of 3"), "{}", c.message);
        let c = compare(&HostData::I32(vec![1]), &a, 0.0);
        assert!(!c.ok && c.message.contains("elements"));
    }

    #[test]
    fn compare_floats_relative_and_nan_never_passes() {
        let want = HostData::F32(vec![100.0, 200.0]);
        let got = HostData::F32(vec![100.0, 200.01]);
        let c = compare(&got, &want, 1e-4);
        assert!(c.ok, "{}", c.message);
        assert!((c.max_error - 0.01 / 200.0).abs() < 1e-7);
        assert!(!compare(&got, &want, 1e-6).ok);
        // Small references: the scale is at least 1.
        let c = compare(&HostData::F64(vec![1e-6]), &HostData::F64(vec![0.0]), 1e-5);
        assert!(c.ok);
        let nan = HostData::F32(vec![f32::NAN, 200.0]);
        let c = compare(&nan, &want, 1e9);
        assert!(!c.ok && c.first_bad_index == Some(0) && c.max_error.is_infinite());
        let c = compare(&nan, &nan, 1e9);
        assert!(!c.ok, "NaN in both never passes");
        // Many chunks: first bad index is the global first.
        let mut v = vec![0.0f64; 3 * SUM_CHUNK];
        let want = HostData::F64(v.clone());
        v[2 * SUM_CHUNK + 5] = 1.0;
        v[SUM_CHUNK + 3] = 1.0;
        let c = compare(&HostData::F64(v), &want, 0.5);
        assert_eq!(c.first_bad_index, Some(SUM_CHUNK + 3));
    }

    #[test]
    fn freivalds_accepts_right_and_rejects_wrong_products() {
        let n = 40;
        for ty in [ElemType::I32, ElemType::F32] {
            let a = generate(ty, n * n, &Init::Random { lo: -5.0, hi: 5.0 }, 1).unwrap();
            let b = generate(ty, n * n, &Init::Random { lo: -5.0, hi: 5.0 }, 2).unwrap();
            let c = matmul(&a, &b, n).unwrap();
            let ok = freivalds(&a, &b, &c, n, 1e-5, 4, 7).unwrap();
            assert!(ok.ok, "{ty}: {}", ok.message);
            let mut bad = c.clone();
            match &mut bad {
                HostData::I32(v) => v[n * 7 + 3] += 1,
                HostData::F32(v) => v[n * 7 + 3] += 10.0,
                _ => unreachable!(),
            }
            let r = freivalds(&a, &b, &bad, n, 1e-5, 8, 7).unwrap();
            assert!(!r.ok, "{ty}");
            assert_eq!(r.first_bad_index, Some(7 * n));
        }
    }

    #[test]
    #[ignore = "timing check: run with --release --ignored"]
    fn matmul_4096_f32_is_fast() {
        let n = 4096;
        let a = generate(ElemType::F32, n * n, &Init::Random { lo: 0.0, hi: 1.0 }, 1).unwrap();
        let b = generate(ElemType::F32, n * n, &Init::Random { lo: 0.0, hi: 1.0 }, 2).unwrap();
        let t = std::time::Instant::now();
        let c = matmul(&a, &b, n).unwrap();
        eprintln!(
            "4096² f32 matmul reference: {:?} on {} threads",
            t.elapsed(),
            rayon::current_num_threads()
        );
        assert_eq!(c.len(), n * n);
    }
}

#[cfg(test)]
#[path = "reference_types_tests.rs"]
mod types_tests;
