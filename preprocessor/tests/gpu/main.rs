//! The GPU integration tests, one binary, all `#[ignore]`d here: run them on a GPU machine with
//! `--ignored --test-threads=1`, as scripts/gpu-suite.sh does.

#[path = "../common/mod.rs"]
mod common;
#[path = "../gpu_support/mod.rs"]
mod gpu_support;

mod engine;
mod faults;
mod fleet;
mod layer;
mod types;
