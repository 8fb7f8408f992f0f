//! mdbook-gpulab: the mdBook preprocessor and command line over gpulab-spec, -engine and -render.

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
