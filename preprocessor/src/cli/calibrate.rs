//! `mdbook-gpulab calibrate`: the empty kernel timed as cold points are, printed as JSON.
//! `scripts/event_offset.py` runs it, then runs it again under Nsight Compute, and stores the
//! difference (what the event pair adds to a launch) in `data/<slug>/checks/`.

use crate::engine::calibrate::time_null_kernel;
use crate::gpu::{Gpu, NULL_KERNEL_NAME};
use std::process::ExitCode;

pub fn run(gpu: usize, samples: usize) -> anyhow::Result<ExitCode> {
    let gpu = Gpu::open(gpu)?;
    let t = time_null_kernel(&gpu, samples)?;
    let info = gpu.info();
    let out = serde_json::json!({
        "gpu": info.name,
        "slug": info.slug,
        "kernel": NULL_KERNEL_NAME,
        "tool_version": env!("CARGO_PKG_VERSION"),
        "events": t,
    });
    println!("{}", serde_json::to_string_pretty(&out)?);
    Ok(ExitCode::SUCCESS)
}
