//! `mdbook-gpulab calibrate`: the empty kernel timed as cold points are, as JSON for event_offset.py.

use crate::engine::calibrate::time_null_kernel;
use crate::gpu::{Gpu, NULL_KERNEL_NAME};
use std::process::ExitCode;

pub(super) fn run(gpu: usize, samples: usize, launches: usize) -> anyhow::Result<ExitCode> {
    let gpu = Gpu::open(gpu)?;
    let t = time_null_kernel(&gpu, samples, launches)?;
    let info = gpu.info();
    let out = serde_json::json!({
        "gpu": info.name,
        "slug": info.slug,
        "kernel": NULL_KERNEL_NAME,
        "launches": launches,
        "tool_version": env!("CARGO_PKG_VERSION"),
        "events": t,
    });
    println!("{}", serde_json::to_string_pretty(&out)?);
    Ok(ExitCode::SUCCESS)
}
