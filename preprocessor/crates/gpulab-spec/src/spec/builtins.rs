//! The names of the engine's built-in references and CPU baselines, which a spec may use.

/// Every built-in reference name, as a spec's `[verify] reference` may use it.
pub const REFERENCES: &[&str] = &[
    "matmul",
    "matmul_aat",
    "matvec",
    "transpose",
    "gather",
    "sum",
    "dot",
    "row_sum",
    "row_mean",
    "row_max",
    "row_min",
    "row_sumsq",
    "col_mean",
    "sin_sqrt",
];

/// The `dims` a built-in reference reads: (required, optional). Any other name is a mistake.
pub(crate) fn dims_of(name: &str) -> Option<(&'static [&'static str], &'static [&'static str])> {
    Some(match name {
        "matmul" | "matmul_aat" => (&["n"], &[]),
        "transpose" => (&["rows", "cols"], &[]),
        "gather" => (&["n", "offset", "stride"], &[]),
        "sum" | "dot" | "sin_sqrt" => (&[], &[]),
        "row_sum" | "row_mean" | "row_max" | "row_min" | "row_sumsq" | "col_mean" | "matvec" => {
            (&["rows", "cols"], &["pitch"])
        }
        _ => return None,
    })
}

/// The built-in references that sum many terms per output element: a float output is verified
/// within a bound derived from its arithmetic (`engine::tolerance`), which a spec's `tolerance`
/// can only tighten; without one, the bound alone.
pub(crate) const ACCUMULATING: &[&str] = &[
    "matmul",
    "matmul_aat",
    "matvec",
    "dot",
    "sum",
    "row_sum",
    "row_mean",
    "row_sumsq",
    "col_mean",
];

/// Built-in CPU baselines a variant may run with `cpu = "…"`.
pub const CPU_BASELINES: &[&str] = &[
    "matmul_i32_naive",
    "matmul_i32_threads",
    "matmul_f32_naive",
    "matmul_f32_threads",
    "transpose_naive",
    "transpose_threads",
];

#[cfg(test)]
#[path = "builtins_tests.rs"]
mod tests;
