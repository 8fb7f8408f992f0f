//! mdbook-gpulab: an mdBook preprocessor that runs CUDA memory experiments and renders their
//! results; the command line and the preprocessor over the gpulab-spec, gpulab-engine and
//! gpulab-render crates.

pub mod cli;
pub mod preprocess;
pub use preprocess::GpuLab;

// Every crate's modules at this crate's root: one path for each module, here and in the tests.
pub use gpulab_engine::{engine, gpu};
pub use gpulab_render::{render, results};
pub use gpulab_spec::{
    claims, config, confine, diagnostic, directive, error, expr, host_data, inventory,
    kernel_check, key, limits, metrics, papers, plan, point_check, point_diagnostics, ptx, record,
    source, spec, stats, value, workspace,
};
