//! Data-movement references: `transpose` and `gather` (no arithmetic, any element type).

use super::*;

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
