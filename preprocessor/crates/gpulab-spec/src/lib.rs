//! gpulab-spec: what a gpulab book's authors write and what it means — directives, experiment
//! specs, the expression language, diagnostics, the recording schema and store, plans and cache
//! keys. It knows nothing of GPUs or rendering, so an editor or another tool can use it alone.

pub mod claims;
pub mod config;
pub mod confine;
pub mod diagnostic;
pub mod directive;
pub mod error;
pub mod expr;
pub mod host_data;
pub mod inventory;
pub mod kernel_check;
pub mod key;
pub mod limits;
pub mod metrics;
pub mod papers;
pub mod plan;
pub mod point_check;
pub mod point_diagnostics;
pub mod ptx;
pub mod record;
pub mod source;
pub mod spec;
pub mod stats;
pub mod value;
pub mod workspace;
