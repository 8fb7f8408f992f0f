//! gpulab-engine: runs planned points on the GPU (cudarc), verifies and times them, records them.

pub mod engine;
pub mod gpu;

// The spec crate's modules at this crate's root, so a path reads the same in every crate.
use gpulab_spec::{
    directive, error, expr, host_data, key, limits, metrics, plan, ptx, record, spec, stats, value,
    workspace,
};
