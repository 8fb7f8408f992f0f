//! Verification tolerances derived from the arithmetic, one bound per output element, for references
//! that accumulate K-long sums (`spec::builtins::ACCUMULATING`: `matmul`, `matmul_aat`, `matvec`,
//! `dot`, `sum`, `row_sum`, `row_mean`, `row_sumsq`, `col_mean`).
//!
//! The model (Higham & Mary's probabilistic analysis): a kernel adds the K terms `t_k` of an output in
//! floating point (unit roundoff `u` of the output's type, the accumulator: 2⁻²⁴ for f32; f16 or bf16
//! inputs into an f32 output are exact products summed in f32, and the reference is then the f32
//! rounding of the exact sum, see `reference::run`). Each operation rounds with a relative error of at
//! most `u`, of independent sign from one operation to the next, so the error of the output is a sum of
//! independent terms bounded by `u·|s_k|` (the partial sums) and `u·|t_k|` (the products), and exceeds
//! `λ·u·√(Σ s_k² + Σ t_k²)` with probability at most `2·exp(−λ²/2)` (Azuma).
//!
//! The partial sums of any order a kernel uses (sequential, tiled, split-K, a tree, atomics in any order)
//! are a drift towards the result `r` plus a random walk of the terms: `|s_k| ≲ (k/K)·|r| + |W_k|`, with
//! `Σ W_k² ≈ K·Σ t_k²/2`. So `√(Σ s_k²) ≤ √K·(|r| + ρ)` with `ρ ≥ √(Σ t_k²)`, and each element must satisfy
//!
//! `|out − ref| ≤ λ·u·√K·(|r| + ρ) + 2u·|r|`,   λ = [`LAMBDA`] = 10,
//!
//! the last term for the final rounding of both sides. The drift term `|r|` is what a bound from the
//! spread of the results alone misses: a sum of same-sign terms (the diagonal of A·Aᵀ, a row sum of
//! positive numbers) has partial sums growing linearly, and its error grows as `u·√K·|r|`. `ρ` is
//! `√(Σ t_k²)` computed exactly for the vector references and bounded by Cauchy–Schwarz for the matrix
//! products (`√(Σ a_k² b_k²) ≤ min(‖a‖₂·‖b‖∞, ‖a‖∞·‖b‖₂)`, O(n²) instead of a second product).
//!
//! λ = 10 makes a false failure practically impossible (`2·e⁻⁵⁰` per element), while a TF32-precision
//! result (inputs rounded to 10 mantissa bits, u = 2⁻¹¹) errs by about `0.8·2⁻¹¹·√(Σ t_k²)` on every
//! element: `8192·0.8/(λ·√K)` times the bound's random-walk part. In the tests, FP32 in every order stays
//! within about a tenth of the bound; TF32 exceeds it 59× at K = 384, 7× at K = 8192 and 5× at K = 16384. A bound
//! that also held for orders that sort terms by sign (the deterministic `γ_K·Σ|t_k|`) lets TF32 through
//! at K = 8192: see the tests. The comparison measures errors relative to `max(1, max|ref|)`
//! (see `reference::compare_within`), so each bound is divided by that too. A spec's explicit
//! `tolerance` can only tighten it.

use super::reference::{Dims, scale};
use crate::host_data::HostData;
use rayon::prelude::*;
use std::collections::BTreeMap;

/// Standard deviations of the random-rounding model allowed.
pub(crate) const LAMBDA: f64 = 10.0;

/// The tolerance a comparison uses, and where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Tolerance {
    /// "floating-point accumulation, K = 4096, λ = 10, per element", or "spec".
    pub rule: String,
    kind: Kind,
}

#[derive(Debug, Clone, PartialEq)]
enum Kind {
    /// One relative tolerance for every element.
    Uniform(f64),
    /// A bound per element, capped by the spec's tolerance.
    PerElement { bounds: Bounds, cap: f64 },
}

impl Tolerance {
    /// The same relative tolerance for every element.
    pub fn uniform(value: f64, rule: &str) -> Tolerance {
        Tolerance {
            rule: rule.to_string(),
            kind: Kind::Uniform(value),
        }
    }

    /// The relative tolerance of output element `i`, whose reference value is `r`.
    pub fn at(&self, i: usize, r: f64) -> f64 {
        match &self.kind {
            Kind::Uniform(v) => *v,
            Kind::PerElement { bounds, cap } => bounds.at(i, r).min(*cap),
        }
    }

    /// The one tolerance of a uniform rule (`None` for a per-element bound).
    pub(crate) fn uniform_value(&self) -> Option<f64> {
        match self.kind {
            Kind::Uniform(v) => Some(v),
            Kind::PerElement { .. } => None,
        }
    }
}

/// The per-element bound of an accumulation: `(λ·u·√K·(|r| + ρ_i) + 2u·|r|) / scale`.
#[derive(Debug, Clone, PartialEq)]
pub struct Bounds {
    /// `λ·u·√K`.
    walk: f64,
    /// `2u`.
    last: f64,
    /// `max(1, max|ref|)`: errors are compared relative to it.
    scale: f64,
    spread: Spread,
}

/// `ρ` of each output element (an upper bound on `√(Σ t_k²)`).
#[derive(Debug, Clone, PartialEq)]
enum Spread {
    /// One value per output element.
    PerOutput(Vec<f64>),
    /// Element `(i, j)` of an `n`-column product: `min(row[i].0·col[j].1, row[i].1·col[j].0)` from the
    /// (‖·‖₂, ‖·‖∞) of row `i` of the left and column `j` of the right factor.
    Product {
        rows: Vec<(f64, f64)>,
        cols: Vec<(f64, f64)>,
    },
}

impl Bounds {
    fn rho(&self, i: usize) -> f64 {
        match &self.spread {
            Spread::PerOutput(v) => v.get(i).copied().unwrap_or(f64::INFINITY),
            Spread::Product { rows, cols } => {
                let n = cols.len().max(1);
                match (rows.get(i / n), cols.get(i % n)) {
                    (Some(r), Some(c)) => (r.0 * c.1).min(r.1 * c.0),
                    _ => f64::INFINITY,
                }
            }
        }
    }

    /// The relative bound of element `i` with reference value `r`.
    pub fn at(&self, i: usize, r: f64) -> f64 {
        let r = r.abs();
        (self.walk * (r + self.rho(i)) + self.last * r) / self.scale
    }
}

/// Terms summed per output by the built-in reference `name`, or `None` when it does not accumulate.
pub(crate) fn accumulation_length(
    name: &str,
    inputs: &[&HostData],
    dims: &BTreeMap<String, i64>,
) -> Option<usize> {
    let d = Dims { name, dims };
    match name {
        "matmul" => d.usize("n").ok(),
        "matmul_aat" => {
            let n = d.usize("n").ok().filter(|&n| n > 0)?;
            Some(inputs.first()?.len() / n)
        }
        "dot" | "sum" => Some(inputs.first()?.len()),
        "row_sum" | "row_mean" | "row_sumsq" | "matvec" => d.usize("cols").ok(),
        "col_mean" => d.usize("rows").ok(),
        _ => None,
    }
}

/// A float buffer read as f64 without copying it.
#[derive(Clone, Copy)]
enum Floats<'a> {
    F16(&'a [half::f16]),
    BF16(&'a [half::bf16]),
    F32(&'a [f32]),
    F64(&'a [f64]),
}

impl Floats<'_> {
    fn get(self, i: usize) -> Option<f64> {
        match self {
            Floats::F16(v) => v.get(i).map(|x| x.to_f64()),
            Floats::BF16(v) => v.get(i).map(|x| x.to_f64()),
            Floats::F32(v) => v.get(i).map(|&x| f64::from(x)),
            Floats::F64(v) => v.get(i).copied(),
        }
    }
    fn len(self) -> usize {
        match self {
            Floats::F16(v) => v.len(),
            Floats::BF16(v) => v.len(),
            Floats::F32(v) => v.len(),
            Floats::F64(v) => v.len(),
        }
    }
    fn iter(self) -> impl Iterator<Item = f64> {
        (0..self.len()).filter_map(move |i| self.get(i))
    }
}

/// The float values of a buffer (`None` for integers, which compare exactly).
fn floats(d: &HostData) -> Option<Floats<'_>> {
    match d {
        HostData::F16(v) => Some(Floats::F16(v)),
        HostData::BF16(v) => Some(Floats::BF16(v)),
        HostData::F32(v) => Some(Floats::F32(v)),
        HostData::F64(v) => Some(Floats::F64(v)),
        _ => None,
    }
}

/// Unit roundoff of a float buffer's type (2⁻¹¹ f16, 2⁻⁸ bf16, 2⁻²⁴ f32, 2⁻⁵³ f64; `None` for integers).
fn unit_roundoff(d: &HostData) -> Option<f64> {
    d.elem_type().unit_roundoff()
}

/// (‖·‖₂, ‖·‖∞) of each of `count` vectors, vector `v` being `len` elements `x[start(v) + k·step]`.
fn norms(
    x: Floats<'_>,
    count: usize,
    len: usize,
    start: impl Fn(usize) -> usize + Sync,
    step: usize,
) -> Option<Vec<(f64, f64)>> {
    (0..count)
        .into_par_iter()
        .map(|v| {
            let (mut sq, mut max) = (0.0f64, 0.0f64);
            for k in 0..len {
                let t = x.get(start(v) + k * step)?;
                sq += t * t;
                max = max.max(t.abs());
            }
            Some((sq.sqrt(), max))
        })
        .collect()
}

/// `ρ` of every output of the reference `name` (an upper bound on the root of the sum of its squared terms).
fn spread(
    name: &str,
    inputs: &[&HostData],
    dims: &BTreeMap<String, i64>,
    k: usize,
) -> Option<Spread> {
    let d = Dims { name, dims };
    let x = floats(inputs.first()?)?;
    let root = |it: &mut dyn Iterator<Item = f64>| it.map(|t| t * t).sum::<f64>().sqrt();
    let rows_layout = || -> Option<(usize, usize, usize)> {
        let (rows, cols) = (d.usize("rows").ok()?, d.usize("cols").ok()?);
        let pitch = match dims.get("pitch") {
            Some(_) => d.usize("pitch").ok()?,
            None => cols,
        };
        Some((rows, cols, pitch))
    };
    match name {
        "matmul" => {
            let b = floats(inputs.get(1)?)?;
            Some(Spread::Product {
                rows: norms(x, k, k, |i| i * k, 1)?,
                cols: norms(b, k, k, |j| j, k)?,
            })
        }
        "matmul_aat" => {
            let n = d.usize("n").ok()?;
            let rows = norms(x, n, k, |i| i * k, 1)?;
            Some(Spread::Product {
                cols: rows.clone(),
                rows,
            })
        }
        "sum" => Some(Spread::PerOutput(vec![root(&mut x.iter())])),
        "dot" => {
            let y = floats(inputs.get(1)?)?;
            Some(Spread::PerOutput(vec![root(
                &mut x.iter().zip(y.iter()).map(|(a, b)| a * b),
            )]))
        }
        "row_sum" | "row_mean" | "row_sumsq" => {
            let (rows, cols, pitch) = rows_layout()?;
            let per_term = if name == "row_mean" { cols as f64 } else { 1.0 };
            (0..rows)
                .map(|r| {
                    let terms = (r * pitch..r * pitch + cols).map(|i| {
                        x.get(i)
                            .map(|t| if name == "row_sumsq" { t * t } else { t })
                    });
                    let terms: Option<Vec<f64>> = terms.collect();
                    Some(root(&mut terms?.into_iter().map(|t| t / per_term)))
                })
                .collect::<Option<Vec<_>>>()
                .map(Spread::PerOutput)
        }
        "matvec" => {
            let (rows, cols, pitch) = rows_layout()?;
            let y = floats(inputs.get(1)?)?;
            (0..rows)
                .into_par_iter()
                .map(|r| {
                    let term = |c: usize| Some(x.get(r * pitch + c)? * y.get(c)?);
                    let terms: Option<Vec<f64>> = (0..cols).map(term).collect();
                    Some(root(&mut terms?.into_iter()))
                })
                .collect::<Option<Vec<_>>>()
                .map(Spread::PerOutput)
        }
        "col_mean" => {
            let (rows, cols, pitch) = rows_layout()?;
            norms(x, cols, rows, |c| c, pitch)
                .map(|v| Spread::PerOutput(v.iter().map(|n| n.0 / rows as f64).collect()))
        }
        _ => None,
    }
}

/// The per-element bounds of an accumulation of `k` terms whose exact results are `expected` (f32 or f64
/// outputs; `None` for integers, which compare exactly, and for inputs the model does not cover).
pub fn accumulation(
    name: &str,
    inputs: &[&HostData],
    dims: &BTreeMap<String, i64>,
    k: usize,
    expected: &HostData,
) -> Option<Bounds> {
    let u = unit_roundoff(expected)?;
    Some(Bounds {
        walk: LAMBDA * u * (k as f64).sqrt(),
        last: 2.0 * u,
        scale: scale(expected),
        spread: spread(name, inputs, dims, k)?,
    })
}

/// The tolerance to verify with: the derived per-element bound for an accumulating reference (capped by
/// the spec's `tolerance` where that is smaller; the spec's alone when it is smaller everywhere), else
/// the spec's.
pub fn effective(
    reference: Option<&str>,
    inputs: &[&HostData],
    dims: &BTreeMap<String, i64>,
    expected: &HostData,
    spec: f64,
) -> Tolerance {
    let derived = reference.and_then(|name| {
        let k = accumulation_length(name, inputs, dims)?;
        Some((k, accumulation(name, inputs, dims, k, expected)?))
    });
    let Some((k, bounds)) = derived else {
        // An infinite spec tolerance asks for the derived bound: without one, the type's default.
        let spec = Some(spec)
            .filter(|t| t.is_finite())
            .unwrap_or(expected.elem_type().default_tolerance());
        return Tolerance::uniform(spec, "spec");
    };
    let (lo, hi) = (0..expected.len())
        .filter_map(|i| expected.get_f64(i).map(|r| bounds.at(i, r)))
        .fold((f64::INFINITY, 0.0f64), |(lo, hi), b| {
            (lo.min(b), hi.max(b))
        });
    if spec <= lo || !lo.is_finite() {
        return Tolerance::uniform(spec, "spec");
    }
    let capped = if spec < hi {
        format!(", capped at the spec's {spec:e}")
    } else {
        String::new()
    };
    Tolerance {
        rule: format!("floating-point accumulation, K = {k}, λ = {LAMBDA}, per element{capped}"),
        kind: Kind::PerElement { bounds, cap: spec },
    }
}

#[cfg(test)]
#[path = "tolerance_tests.rs"]
mod tests;
