//! Verification tolerances derived from the arithmetic, one bound per output element, for references
//! that accumulate K-long sums (`spec::builtins::ACCUMULATING`).
//!
//! Higham & Mary's probabilistic model: each rounding errs by at most `u` (the output type's unit
//! roundoff) with independent signs, and the partial sums of any summation order are a drift towards
//! the result `r` plus a random walk, so each element must satisfy
//! `|out − ref| ≤ λ·u·√K·(|r| + ρ) + 2u·|r|` with `ρ ≥ √(Σ t_k²)` (exact for vectors, Cauchy–Schwarz
//! for matrix products) and λ = [`LAMBDA`]: a false failure has probability `2·e⁻⁵⁰` per element,
//! while TF32-precision results fail (see the tests). Bounds are relative to `max(1, max|ref|)`, like
//! the comparison's errors; a spec's explicit `tolerance` can only tighten them.

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
    /// Element `(i, j)` of a product, from the (‖·‖₂, ‖·‖∞) of row `i` and column `j` of its factors.
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

/// A float buffer (`None` for integers, which compare exactly), read as f64 without copying.
fn floats(d: &HostData) -> Option<&HostData> {
    d.elem_type().is_float().then_some(d)
}

/// Every element of a float buffer, as f64.
fn values(x: &HostData) -> impl Iterator<Item = f64> + '_ {
    (0..x.len()).filter_map(move |i| x.get_f64(i))
}

/// (‖·‖₂, ‖·‖∞) of each of `count` vectors, vector `v` being `len` elements `x[start(v) + k·step]`.
fn norms(
    x: &HostData,
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
                let t = x.get_f64(start(v) + k * step)?;
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
        "sum" => Some(Spread::PerOutput(vec![root(&mut values(x))])),
        "dot" => {
            let y = floats(inputs.get(1)?)?;
            Some(Spread::PerOutput(vec![root(
                &mut values(x).zip(values(y)).map(|(a, b)| a * b),
            )]))
        }
        "row_sum" | "row_mean" | "row_sumsq" => {
            let (rows, cols, pitch) = d.matrix().ok()?;
            let per_term = if name == "row_mean" { cols as f64 } else { 1.0 };
            (0..rows)
                .map(|r| {
                    let terms = (r * pitch..r * pitch + cols).map(|i| {
                        x.get_f64(i)
                            .map(|t| if name == "row_sumsq" { t * t } else { t })
                    });
                    let terms: Option<Vec<f64>> = terms.collect();
                    Some(root(&mut terms?.into_iter().map(|t| t / per_term)))
                })
                .collect::<Option<Vec<_>>>()
                .map(Spread::PerOutput)
        }
        "matvec" => {
            let (rows, cols, pitch) = d.matrix().ok()?;
            let y = floats(inputs.get(1)?)?;
            (0..rows)
                .into_par_iter()
                .map(|r| {
                    let term = |c: usize| Some(x.get_f64(r * pitch + c)? * y.get_f64(c)?);
                    let terms: Option<Vec<f64>> = (0..cols).map(term).collect();
                    Some(root(&mut terms?.into_iter()))
                })
                .collect::<Option<Vec<_>>>()
                .map(Spread::PerOutput)
        }
        "col_mean" => {
            let (rows, cols, pitch) = d.matrix().ok()?;
            norms(x, cols, rows, |c| c, pitch)
                .map(|v| Spread::PerOutput(v.iter().map(|n| n.0 / rows as f64).collect()))
        }
        _ => None,
    }
}

/// The per-element bounds of an accumulation of `k` terms whose exact results are `expected`
/// (`None` for integers and for inputs the model does not cover).
pub fn accumulation(
    name: &str,
    inputs: &[&HostData],
    dims: &BTreeMap<String, i64>,
    k: usize,
    expected: &HostData,
) -> Option<Bounds> {
    let u = expected.elem_type().unit_roundoff()?;
    Some(Bounds {
        walk: LAMBDA * u * (k as f64).sqrt(),
        last: 2.0 * u,
        scale: scale(expected),
        spread: spread(name, inputs, dims, k)?,
    })
}

/// The tolerance to verify with: an accumulating reference's derived bound capped by the spec's
/// `tolerance`, else (or when the spec's is smaller everywhere) the spec's.
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
