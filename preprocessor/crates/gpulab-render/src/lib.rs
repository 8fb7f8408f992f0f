//! gpulab-render: recordings matched with planned points (the results), rendered as HTML and SVG.

pub mod render;
pub mod results;

// The spec crate's modules at this crate's root, so a path reads the same in every crate.
use gpulab_spec::{
    claims, confine, directive, expr, inventory, key, metrics, papers, plan, record, spec, stats,
    value,
};
