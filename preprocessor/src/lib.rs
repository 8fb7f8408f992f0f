//! mdbook-gpulab: an mdBook preprocessor that runs CUDA memory experiments and renders their results.

pub mod claims;
pub mod cli;
pub mod config;
pub mod diagnostic;
pub mod directive;
pub mod engine;
pub mod error;
pub mod expr;
pub mod gpu;
pub mod host_data;
pub mod key;
pub mod metrics;
pub mod papers;
pub mod plan;
pub mod preprocess;
pub use preprocess::GpuLab;
pub mod record;
pub mod render;
pub mod results;
pub mod source;
pub mod spec;
pub mod stats;
pub mod value;
pub mod workspace;
