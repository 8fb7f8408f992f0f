//! CPU baselines that the papers timed (`cpu = "…"` variants): `*_naive` single-threaded loops
//! like the papers' C code, `*_threads` on every core; integers wrap, like C's.

use super::reference::{Dims, ReferenceError, check_len, input_count};
use crate::host_data::{ElemType, HostData};
use crate::spec::builtins::CPU_BASELINES as NAMES;
use rayon::prelude::*;
use std::collections::BTreeMap;

/// Runs the baseline `name` into `out`, in place when it already has the result's type and length;
/// matrix products take `a, b` and `n`, transposes `a` and `rows`, `cols` (each defaulting to `n`).
pub(crate) fn run_into(
    name: &str,
    inputs: &[&HostData],
    dims: &BTreeMap<String, i64>,
    out: &mut HostData,
) -> Result<(), ReferenceError> {
    let d = Dims { name, dims };
    let expect_inputs = |n: usize| input_count(name, inputs.len(), n);
    match name {
        "matmul_i32_naive" | "matmul_i32_threads" | "matmul_f32_naive" | "matmul_f32_threads" => {
            expect_inputs(2)?;
            matmul_into(name, inputs, d.usize("n")?, out)
        }
        "transpose_naive" | "transpose_threads" => {
            expect_inputs(1)?;
            let pick = |dim: &str| {
                if dims.contains_key(dim) {
                    d.usize(dim)
                } else {
                    d.usize("n")
                }
            };
            transpose_into(name, inputs[0], (pick("rows")?, pick("cols")?), out)
        }
        _ => Err(ReferenceError::Unknown {
            kind: "CPU baseline",
            name: name.to_string(),
            known: NAMES.iter().map(|s| s.to_string()).collect(),
        }),
    }
}

/// A matmul baseline: `inputs` are two n×n matrices of i32 (products wrap) or f32.
fn matmul_into(
    name: &str,
    inputs: &[&HostData],
    n: usize,
    out: &mut HostData,
) -> Result<(), ReferenceError> {
    let nn = n.checked_mul(n).ok_or_else(|| ReferenceError::BadDim {
        name: name.to_string(),
        dim: "n".to_string(),
        value: n as i64,
        reason: "n*n overflows".to_string(),
    })?;
    for (i, x) in inputs.iter().enumerate() {
        check_len(name, i, x, nn, "n*n")?;
    }
    let threads = is_multithreaded(name);
    let want = if name.contains("_i32_") {
        ElemType::I32
    } else {
        ElemType::F32
    };
    // Reused when it already has the result's type and length: no timed run allocates.
    if out.elem_type() != want || out.len() != nn {
        *out = HostData::zeros(want, nn);
    }
    match (inputs[0], inputs[1], out) {
        (HostData::I32(a), HostData::I32(b), HostData::I32(c)) => {
            let fma = |c: i32, x: i32, y: i32| c.wrapping_add(x.wrapping_mul(y));
            if threads {
                matmul_threads(a, b, n, 0, fma, c)
            } else {
                matmul_naive(a, b, n, 0, fma, c)
            }
            Ok(())
        }
        (HostData::F32(a), HostData::F32(b), HostData::F32(c)) => {
            if threads {
                matmul_threads(a, b, n, 0.0, |c, x, y| c + x * y, c)
            } else {
                matmul_naive(a, b, n, 0.0, |c, x, y| c + x * y, c)
            }
            Ok(())
        }
        (a, b, _) => Err(ReferenceError::Type {
            name: name.to_string(),
            ty: if a.elem_type() == b.elem_type() {
                a.elem_type()
            } else {
                b.elem_type()
            },
            detail: format!(
                " (it needs two {} inputs)",
                if name.contains("_i32_") { "i32" } else { "f32" }
            ),
        }),
    }
}

/// A transpose baseline of a `rows`×`cols` matrix `a`.
fn transpose_into(
    name: &str,
    a: &HostData,
    (rows, cols): (usize, usize),
    out: &mut HostData,
) -> Result<(), ReferenceError> {
    let len = rows.checked_mul(cols);
    if len != Some(a.len()) {
        return Err(ReferenceError::Length {
            name: name.to_string(),
            input: 0,
            expected: format!("rows*cols = {rows}*{cols}"),
            got: a.len(),
        });
    }
    let threads = name == "transpose_threads";
    if out.elem_type() != a.elem_type() || out.len() != a.len() {
        *out = HostData::zeros(a.elem_type(), a.len());
    }
    match (a, out) {
        (HostData::I32(v), HostData::I32(o)) => transpose(v, rows, cols, threads, o),
        (HostData::U32(v), HostData::U32(o)) => transpose(v, rows, cols, threads, o),
        (HostData::F32(v), HostData::F32(o)) => transpose(v, rows, cols, threads, o),
        (HostData::F64(v), HostData::F64(o)) => transpose(v, rows, cols, threads, o),
        (a, _) => {
            return Err(ReferenceError::Type {
                name: name.to_string(),
                ty: a.elem_type(),
                detail: " (CPU baselines run on i32, u32, f32 or f64)".to_string(),
            });
        }
    }
    Ok(())
}

/// The papers' triple loop, i-j-k, one thread: `c[i][j] = Σ_k a[i][k]·b[k][j]`.
fn matmul_naive<T: Copy>(
    a: &[T],
    b: &[T],
    n: usize,
    zero: T,
    fma: impl Fn(T, T, T) -> T,
    c: &mut [T],
) {
    for i in 0..n {
        for j in 0..n {
            let mut sum = zero;
            for k in 0..n {
                sum = fma(sum, a[i * n + k], b[k * n + j]);
            }
            c[i * n + j] = sum;
        }
    }
}

/// Rows in parallel, i-k-j order (unit stride in the inner loop).
fn matmul_threads<T: Copy + Send + Sync>(
    a: &[T],
    b: &[T],
    n: usize,
    zero: T,
    fma: impl Fn(T, T, T) -> T + Sync,
    c: &mut [T],
) {
    if n == 0 {
        return;
    }
    c.par_chunks_mut(n).enumerate().for_each(|(i, c_row)| {
        c_row.fill(zero);
        for k in 0..n {
            let aik = a[i * n + k];
            let b_row = &b[k * n..(k + 1) * n];
            for (cv, &bv) in c_row.iter_mut().zip(b_row) {
                *cv = fma(*cv, aik, bv);
            }
        }
    });
}

/// `out[j][i] = a[i][j]`: the plain double loop, either on one thread or rows of the output in parallel.
fn transpose<T: Copy + Send + Sync + Default>(
    a: &[T],
    rows: usize,
    cols: usize,
    threads: bool,
    out: &mut [T],
) {
    if rows == 0 || cols == 0 {
        return;
    }
    if threads {
        out.par_chunks_mut(rows)
            .enumerate()
            .for_each(|(j, out_row)| {
                for (i, o) in out_row.iter_mut().enumerate() {
                    *o = a[i * cols + j];
                }
            });
    } else {
        for i in 0..rows {
            for j in 0..cols {
                out[j * rows + i] = a[i * cols + j];
            }
        }
    }
}

/// Whether the baseline `name` spreads over every core (the `*_threads` ones).
pub fn is_multithreaded(name: &str) -> bool {
    name.ends_with("_threads")
}

/// The host CPU's model from `/proc/cpuinfo` (`None` where it cannot be read).
pub(crate) fn cpu_model() -> Option<String> {
    static MODEL: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    MODEL
        .get_or_init(|| {
            let text = std::fs::read_to_string("/proc/cpuinfo").ok()?;
            let threads = std::thread::available_parallelism().map_or(0, |n| n.get());
            parse_cpu_model(&text, threads)
        })
        .clone()
}

/// `model name` of `/proc/cpuinfo`'s text, with the number of hardware threads used.
fn parse_cpu_model(cpuinfo: &str, threads: usize) -> Option<String> {
    let line = cpuinfo.lines().find(|l| l.starts_with("model name"))?;
    let model = line
        .split_once(':')?
        .1
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    (!model.is_empty()).then(|| format!("{model}, {threads} threads"))
}

#[cfg(test)]
#[path = "cpu_baseline_tests.rs"]
mod tests;
