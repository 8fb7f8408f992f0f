//! Matrix-product references (`matmul`, `matmul_aat`): a blocked GEMM in a fixed summation order.

use super::*;

const GEMM_BI: usize = 32;
const GEMM_BK: usize = 256;
const GEMM_BJ: usize = 512;

/// Row-major `C (m×n) = A (m×k) · B (k×n)` with `fma(a, b, c) = c + a·b`; each element sums in
/// k order whatever the blocking, threads or instruction set.
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

/// [`gemm_block`] compiled for AVX2, several times faster than SSE2 code.
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

/// Rows of `C` from `i0`, blocked over k and j, four rows per loaded row of `B`.
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
        _ => return Err(type_pair(name, a, b)),
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
