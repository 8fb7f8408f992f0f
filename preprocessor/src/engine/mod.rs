//! The live engine: runs planned points on the GPU (in a worker subprocess), verifies and times
//! them, and records the results.

pub mod buffer_reset;
pub mod cpu_baseline;
pub mod expected;
pub mod job;
pub mod live;
pub mod measure;
pub mod ptx_cache;
pub mod recorder;
pub mod reference;
pub mod resolve;
pub mod sequence;
pub mod shard;
pub mod supervisor;
pub mod tolerance;
pub mod worker;

use crate::config::Mode;
pub use live::{LiveRunner, Work};

/// Whether a GPU can run experiments here (libcuda present and a device visible).
pub fn gpu_present() -> bool {
    crate::gpu::driver_library_present()
        && crate::gpu::device_count().map(|n| n > 0).unwrap_or(false)
}

/// The live runner for a build: none in `recorded` mode; in `auto` mode only when a GPU is
/// present; in `live` mode always (a missing GPU then fails the run with a clear message).
pub fn live_runner(mode: Mode) -> Option<Box<dyn LiveRunner>> {
    match mode {
        Mode::Recorded => None,
        Mode::Auto if !gpu_present() => None,
        _ => Some(Box::new(recorder::Recorder {
            verbose: true,
            ..Default::default()
        })),
    }
}

/// The slug of the GPU that would run experiments here, or why there is none.
pub fn local_device_slug() -> anyhow::Result<String> {
    let devices = crate::gpu::devices()?;
    devices
        .first()
        .map(|d| d.slug.clone())
        .ok_or_else(|| anyhow::anyhow!("no NVIDIA GPU is visible"))
}

/// Ctrl-C stops the run: the worker is killed and no partial recording is written.
pub fn install_interrupt_handler() {
    let _ = ctrlc::set_handler(|| {
        supervisor::INTERRUPTED.store(true, std::sync::atomic::Ordering::SeqCst);
        eprintln!("\ninterrupted: stopping (data/ is left as it was)");
    });
}
