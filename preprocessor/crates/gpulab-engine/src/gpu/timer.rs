//! GPU-side timing with CUDA events recorded on the session's stream.

use super::error::{self, GpuError};
use super::session::Gpu;
use super::shared::Shared;
use cudarc::driver::CudaEvent;
use cudarc::driver::sys::CUevent_flags;
use std::sync::Arc;

/// A start/stop pair of timing events.
#[derive(Debug)]
pub struct Timer {
    shared: Arc<Shared>,
    start: CudaEvent,
    stop: CudaEvent,
}

impl Gpu {
    /// A new timer (events created with timing enabled).
    pub fn timer(&self) -> Result<Timer, GpuError> {
        let shared = self.shared().clone();
        shared.bind()?;
        // `new_event(None)` would disable timing: ask for CU_EVENT_DEFAULT explicitly.
        let start = shared.ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT));
        let start = shared.call("cuEventCreate", start)?;
        let stop = shared.ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT));
        let stop = shared.call("cuEventCreate", stop)?;
        Ok(Timer {
            shared,
            start,
            stop,
        })
    }
}

impl Timer {
    /// Records the start event on the stream (after all work queued so far).
    pub fn start(&self) -> Result<(), GpuError> {
        self.shared.bind()?;
        let r = self.start.record(&self.shared.stream);
        self.shared.call("cuEventRecord", r)
    }

    /// Records the stop event on the stream.
    pub fn stop(&self) -> Result<(), GpuError> {
        self.shared.bind()?;
        let r = self.stop.record(&self.shared.stream);
        self.shared.call("cuEventRecord", r)
    }

    /// Waits for the stop event: milliseconds between the events (a fault surfaces here).
    pub fn elapsed_ms(&self) -> Result<f64, GpuError> {
        self.shared.bind()?;
        let r = self.start.elapsed_ms(&self.stop);
        r.map(f64::from).map_err(|e| {
            self.shared.note(error::launch(
                e,
                Some("reported while reading the timer".into()),
            ))
        })
    }
}
