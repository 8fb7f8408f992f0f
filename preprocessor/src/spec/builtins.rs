//! The names of the engine's built-in references and CPU baselines, which a spec may use.

/// Every built-in reference name, as a spec's `[verify] reference` may use it.
pub const REFERENCES: &[&str] = &[
    "matmul",
    "matmul_aat",
    "transpose",
    "gather",
    "sum",
    "dot",
    "row_sum",
    "row_mean",
    "row_max",
    "row_min",
    "row_sumsq",
    "sin_sqrt",
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
