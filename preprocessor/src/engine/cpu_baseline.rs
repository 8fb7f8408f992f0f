//! CPU baselines that the papers timed (`cpu = "…"` variants); the caller times `run`.
//!
//! The `*_naive` baselines are single-threaded loops written like the papers' C code; the `*_threads`
//! ones use every core through rayon. Integer arithmetic wraps, like C's on the usual targets.

use super::reference::{Dims, ReferenceError};
use crate::host_data::HostData;
use crate::spec::builtins::CPU_BASELINES as NAMES;
use rayon::prelude::*;
use std::collections::BTreeMap;

/// Runs the baseline `name`. Matrix products take inputs `a, b` and the dim `n` (square `n×n`);
/// transposes take `a` and `rows`, `cols` (either defaults to `n` when given).
pub fn run(
    name: &str,
    inputs: &[&HostData],
    dims: &BTreeMap<String, i64>,
) -> Result<HostData, ReferenceError> {
    let d = Dims { name, dims };
    let expect_inputs = |n: usize| {
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
        "matmul_i32_naive" | "matmul_i32_threads" | "matmul_f32_naive" | "matmul_f32_threads" => {
            expect_inputs(2)?;
            let n = d.usize("n")?;
            let nn = n.checked_mul(n).ok_or_else(|| ReferenceError::BadDim {
                name: name.to_string(),
                dim: "n".to_string(),
                value: n as i64,
                reason: "n*n overflows".to_string(),
            })?;
            for (i, x) in inputs.iter().enumerate() {
                if x.len() != nn {
                    return Err(ReferenceError::Length {
                        name: name.to_string(),
                        input: i,
                        expected: format!("{nn} (n*n)"),
                        got: x.len(),
                    });
                }
            }
            let threads = name.ends_with("_threads");
            match (name.contains("_i32_"), inputs[0], inputs[1]) {
                (true, HostData::I32(a), HostData::I32(b)) => Ok(HostData::I32(if threads {
                    matmul_threads(a, b, n, 0, |c, x, y| c.wrapping_add(x.wrapping_mul(y)))
                } else {
                    matmul_naive(a, b, n, 0, |c, x, y| c.wrapping_add(x.wrapping_mul(y)))
                })),
                (false, HostData::F32(a), HostData::F32(b)) => Ok(HostData::F32(if threads {
                    matmul_threads(a, b, n, 0.0, |c, x, y| c + x * y)
                } else {
                    matmul_naive(a, b, n, 0.0, |c, x, y| c + x * y)
                })),
                (_, a, b) => Err(ReferenceError::Type {
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
        "transpose_naive" | "transpose_threads" => {
            expect_inputs(1)?;
            let pick = |dim: &str| {
                if dims.contains_key(dim) {
                    d.usize(dim)
                } else {
                    d.usize("n")
                }
            };
            let (rows, cols) = (pick("rows")?, pick("cols")?);
            let a = inputs[0];
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
            Ok(match a {
                HostData::I32(v) => HostData::I32(transpose(v, rows, cols, threads)),
                HostData::U32(v) => HostData::U32(transpose(v, rows, cols, threads)),
                HostData::F32(v) => HostData::F32(transpose(v, rows, cols, threads)),
                HostData::F64(v) => HostData::F64(transpose(v, rows, cols, threads)),
            })
        }
        _ => Err(ReferenceError::Unknown {
            kind: "CPU baseline",
            name: name.to_string(),
            known: NAMES.iter().map(|s| s.to_string()).collect(),
        }),
    }
}

/// The papers' triple loop, i-j-k, one thread: `c[i][j] = Σ_k a[i][k]·b[k][j]`.
fn matmul_naive<T: Copy>(
    a: &[T],
    b: &[T],
    n: usize,
    zero: T,
    fma: impl Fn(T, T, T) -> T,
) -> Vec<T> {
    let mut c = vec![zero; n * n];
    for i in 0..n {
        for j in 0..n {
            let mut sum = zero;
            for k in 0..n {
                sum = fma(sum, a[i * n + k], b[k * n + j]);
            }
            c[i * n + j] = sum;
        }
    }
    c
}

/// Rows in parallel, i-k-j order (unit stride in the inner loop).
fn matmul_threads<T: Copy + Send + Sync>(
    a: &[T],
    b: &[T],
    n: usize,
    zero: T,
    fma: impl Fn(T, T, T) -> T + Sync,
) -> Vec<T> {
    let mut c = vec![zero; n * n];
    if n == 0 {
        return c;
    }
    c.par_chunks_mut(n).enumerate().for_each(|(i, c_row)| {
        for k in 0..n {
            let aik = a[i * n + k];
            let b_row = &b[k * n..(k + 1) * n];
            for (cv, &bv) in c_row.iter_mut().zip(b_row) {
                *cv = fma(*cv, aik, bv);
            }
        }
    });
    c
}

/// `out[j][i] = a[i][j]`: the plain double loop, either on one thread or rows of the output in parallel.
fn transpose<T: Copy + Send + Sync + Default>(
    a: &[T],
    rows: usize,
    cols: usize,
    threads: bool,
) -> Vec<T> {
    let mut out = vec![T::default(); rows * cols];
    if rows == 0 || cols == 0 {
        return out;
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
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::reference::{self, compare};
    use crate::host_data::ElemType;
    use crate::host_data::init::{Init, generate};

    fn dims(pairs: &[(&str, i64)]) -> BTreeMap<String, i64> {
        pairs.iter().map(|&(k, v)| (k.to_string(), v)).collect()
    }

    #[test]
    fn matmul_baselines_agree_with_the_reference() {
        let n = 33;
        let d = dims(&[("n", n as i64)]);
        for (ty, names) in [
            (ElemType::I32, ["matmul_i32_naive", "matmul_i32_threads"]),
            (ElemType::F32, ["matmul_f32_naive", "matmul_f32_threads"]),
        ] {
            let a = generate(ty, n * n, &Init::Random { lo: -9.0, hi: 9.0 }, 1).unwrap();
            let b = generate(ty, n * n, &Init::Random { lo: -9.0, hi: 9.0 }, 2).unwrap();
            let want = reference::matmul(&a, &b, n).unwrap();
            for name in names {
                let got = run(name, &[&a, &b], &d).unwrap();
                let cmp = compare(&got, &want, 1e-5);
                assert!(cmp.ok, "{name}: {}", cmp.message);
            }
        }
    }

    #[test]
    fn transpose_baselines_agree_with_the_reference() {
        let a = generate(ElemType::F64, 7 * 5, &Init::Iota, 0).unwrap();
        let want = reference::transpose(&a, 7, 5).unwrap();
        for name in ["transpose_naive", "transpose_threads"] {
            assert_eq!(
                run(name, &[&a], &dims(&[("rows", 7), ("cols", 5)])).unwrap(),
                want,
                "{name}"
            );
        }
        let sq = generate(ElemType::U32, 16, &Init::Iota, 0).unwrap();
        assert_eq!(
            run("transpose_threads", &[&sq], &dims(&[("n", 4)])).unwrap(),
            reference::transpose(&sq, 4, 4).unwrap()
        );
    }

    #[test]
    fn errors_not_panics() {
        let a = HostData::F32(vec![0.0; 4]);
        assert!(matches!(
            run("nope", &[&a], &BTreeMap::new()),
            Err(ReferenceError::Unknown { .. })
        ));
        assert!(matches!(
            run("matmul_i32_naive", &[&a, &a], &dims(&[("n", 2)])),
            Err(ReferenceError::Type { .. })
        ));
        assert!(matches!(
            run("matmul_f32_naive", &[&a, &a], &dims(&[("n", 3)])),
            Err(ReferenceError::Length { .. })
        ));
        assert!(matches!(
            run("matmul_f32_naive", &[&a], &dims(&[("n", 2)])),
            Err(ReferenceError::InputCount { .. })
        ));
        assert!(matches!(
            run("transpose_naive", &[&a], &dims(&[("rows", 3), ("cols", 2)])),
            Err(ReferenceError::Length { .. })
        ));
        assert!(matches!(
            run("transpose_naive", &[&a], &BTreeMap::new()),
            Err(ReferenceError::MissingDim { .. })
        ));
    }
}
