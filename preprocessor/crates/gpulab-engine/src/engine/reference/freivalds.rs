//! Freivalds' probabilistic check of a matrix product, for outputs too large for a CPU reference.

use super::*;

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
        let bad_row = match a {
            HostData::I32(_) | HostData::U32(_) => {
                let r: Vec<u32> = (0..n).map(|j| sign(round, j) as u32).collect();
                let bad = int_round([a, b, c], n, &r);
                if bad.is_some() {
                    worst = f64::INFINITY;
                }
                bad
            }
            _ => {
                let r: Vec<f64> = (0..n).map(|j| sign(round, j) as f64).collect();
                let (round_worst, bad) = float_round([a, b, c], n, &r, tolerance);
                worst = worst.max(round_worst);
                bad
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

/// One round on 32-bit integers, whose products wrap as the GPU's do: the first row where
/// A·(B·r) and C·r differ.
fn int_round([a, b, c]: [&HostData; 3], n: usize, r: &[u32]) -> Option<usize> {
    let as_u32 = |d: &HostData| -> Vec<u32> {
        match d {
            HostData::I32(v) => v.par_iter().map(|&x| x as u32).collect(),
            HostData::U32(v) => v.clone(),
            _ => Vec::new(),
        }
    };
    let (a, b, c) = (as_u32(a), as_u32(b), as_u32(c));
    let matvec = |m: &[u32], v: &[u32]| -> Vec<u32> {
        m.par_chunks(n)
            .map(|row| {
                row.iter()
                    .zip(v)
                    .fold(0u32, |s, (&x, &y)| s.wrapping_add(x.wrapping_mul(y)))
            })
            .collect()
    };
    let abr = matvec(&a, &matvec(&b, r));
    let cr = matvec(&c, r);
    abr.iter().zip(&cr).position(|(x, y)| x != y)
}

/// One round in f64: the largest error of a row (relative to C's scale), and the first row whose
/// error is NaN or over `tolerance`.
fn float_round(
    [a, b, c]: [&HostData; 3],
    n: usize,
    r: &[f64],
    tolerance: f64,
) -> (f64, Option<usize>) {
    let (a, b, c) = (to_f64_vec(a), to_f64_vec(b), to_f64_vec(c));
    let matvec = |m: &[f64], v: &[f64]| -> Vec<f64> {
        m.par_chunks(n)
            .map(|row| row.iter().zip(v).map(|(&x, &y)| x * y).sum())
            .collect()
    };
    let abr = matvec(&a, &matvec(&b, r));
    let cr = matvec(&c, r);
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
    let worst = errs.iter().fold(0.0f64, |w, &e| w.max(e));
    (
        worst,
        errs.iter().position(|&e| e.is_nan() || e > tolerance),
    )
}
