//! Verification tolerances derived from the arithmetic, for references that accumulate K-long sums
//! (`matmul`, `matmul_aat`, `dot`, `sum`, `row_sum`, `row_mean`, `row_sumsq`).
//!
//! The model: a kernel adds K terms in floating point (unit roundoff `u`: 2⁻²⁴ for f32). Each addition
//! rounds with an error of at most `u·|partial sum|`, of independent sign from one addition to the next
//! (Higham & Mary's probabilistic analysis), so the error of an output is a random walk of standard
//! deviation at most `u·√(Σₖ sₖ²)`. With partial sums `sₖ` growing linearly (same-sign terms) or as a
//! random walk (random signs), `Σₖ sₖ² ≈ K·s²/2` or less, so over the outputs
//!
//! `|out − ref| ≤ λ·u·√(K/2)·rms(ref) + 2u·|ref|`,   λ = [`LAMBDA`] = 32,
//!
//! the last term for the final rounding of both sides. λ = 32 is far outside what correct FP32 kernels
//! reach (the H100 recordings' largest errors sit near λ ≈ 6), while TF32 (inputs rounded to 10 mantissa
//! bits, `u` = 2⁻¹¹) errs 2¹³ times more per product and fails by a wide margin: see the tests. The
//! comparison measures errors relative to `max(1, max|ref|)` (see `reference::compare`), so the bound is
//! divided by that too. A spec's explicit `tolerance` can only tighten it.

use super::reference::Dims;
use crate::host_data::HostData;
use std::collections::BTreeMap;

/// Standard deviations of the random-walk model allowed.
pub const LAMBDA: f64 = 32.0;

/// The tolerance a comparison used, and where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Tolerance {
    pub value: f64,
    /// "floating-point accumulation, K = 4096, λ = 32", or "spec".
    pub rule: String,
}

/// Terms summed per output by the built-in reference `name`, or `None` when it does not accumulate.
pub fn accumulation_length(
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
        "row_sum" | "row_mean" | "row_sumsq" => d.usize("cols").ok(),
        _ => None,
    }
}

/// The tolerance of an accumulation of `k` terms whose exact results are `expected`, with the unit
/// roundoff of `expected`'s float type (`None` for integers, which compare exactly).
pub fn accumulation(k: usize, expected: &HostData) -> Option<f64> {
    // The unit roundoff of the output's type: 2⁻²⁴ for f32, 2⁻⁵³ for f64, 2⁻¹¹ for f16, 2⁻⁸ for bf16.
    let u = expected.elem_type().unit_roundoff()?;
    let finite: Vec<f64> = expected.as_f64_iter().filter(|x| x.is_finite()).collect();
    if finite.is_empty() {
        return None;
    }
    let max = finite.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let rms = (finite.iter().map(|x| x * x).sum::<f64>() / finite.len() as f64).sqrt();
    let bound = LAMBDA * u * (k as f64 / 2.0).sqrt() * rms + 2.0 * u * max;
    Some(bound / max.max(1.0))
}

/// The tolerance to verify with: the derived one for an accumulating reference (tightened by the spec's
/// `tolerance` when that is smaller), else the spec's.
pub fn effective(
    reference: Option<&str>,
    inputs: &[&HostData],
    dims: &BTreeMap<String, i64>,
    expected: &HostData,
    spec: f64,
) -> Tolerance {
    let derived = reference
        .and_then(|name| accumulation_length(name, inputs, dims))
        .and_then(|k| Some((k, accumulation(k, expected)?)));
    match derived {
        Some((k, value)) if value < spec => Tolerance {
            value,
            rule: format!("floating-point accumulation, K = {k}, λ = {LAMBDA}"),
        },
        _ => Tolerance {
            value: spec,
            rule: "spec".into(),
        },
    }
}

#[cfg(test)]
#[path = "tolerance_tests.rs"]
mod tests;
