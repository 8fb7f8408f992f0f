//! The comparison of a kernel's output with its reference (integers exactly, floats relatively).

use super::*;

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

fn scan<A: Copy + Sync, B: Copy + Sync>(
    out: &[A],
    exp: &[B],
    err: impl Fn(A, B) -> f64 + Sync,
    tolerance: impl Fn(usize, B) -> f64 + Sync,
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

/// Exact comparison of two integer arrays of any integer types, never through f64.
fn int_scan<A: Element, B: Element>(o: &[A], e: &[B]) -> Partial {
    let err = |x: A, y: B| match (x.to_i128(), y.to_i128()) {
        (Some(a), Some(b)) => (a - b).unsigned_abs() as f64,
        _ => f64::NAN,
    };
    scan(o, e, err, |_, _| 0.0)
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

/// Compares `output` with `expected` under one `tolerance`: integers exactly, floats by
/// `|out - ref| / max(1, max|ref|)`; a NaN or infinity never passes.
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

/// [`compare_within`] on the first `expected.len()` elements of `output`, which may be longer.
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
        let p = each!(output, o => each!(expected, e => int_scan(&o[..n], e)));
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
