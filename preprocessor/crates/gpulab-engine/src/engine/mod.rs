//! The live engine: runs planned points in GPU worker processes, verifies, times and records them.

pub(crate) mod buffer_reset;
pub mod calibrate;
pub mod counters;
pub mod cpu_baseline;
pub mod cpus;
pub mod error;
pub mod estimate;
pub mod expected;
pub mod job;
pub mod live;
pub mod measure;
pub mod phases;
pub mod ptx_cache;
pub mod recorder;
pub mod reference;
pub mod resolve;
pub mod schedule;
pub mod sequence;
pub mod shard;
pub mod supervisor;
pub mod tolerance;
pub mod worker;

pub use error::EngineError;
pub use live::{LiveRunner, Work};

/// Whether a GPU can run experiments here (libcuda present and a device visible).
pub fn gpu_present() -> bool {
    crate::gpu::driver_library_present()
        && crate::gpu::device_count().map(|n| n > 0).unwrap_or(false)
}

/// The live runner of a build that runs kernels: the recorder, with progress shown.
pub fn live_runner() -> Box<dyn LiveRunner> {
    Box::new(recorder::Recorder {
        verbose: true,
        ..Default::default()
    })
}

/// The slug of the GPU that would run experiments here, or why there is none.
pub fn local_device_slug() -> Result<String, EngineError> {
    let devices = crate::gpu::devices()?;
    devices
        .first()
        .map(|d| d.slug.clone())
        .ok_or(EngineError::NoGpu)
}

/// Ctrl-C stops the run: the worker is killed and no partial recording is written.
pub fn install_interrupt_handler() {
    let _ = ctrlc::set_handler(|| {
        supervisor::INTERRUPTED.store(true, std::sync::atomic::Ordering::SeqCst);
        eprintln!("\ninterrupted: stopping (data/ is left as it was)");
    });
}
