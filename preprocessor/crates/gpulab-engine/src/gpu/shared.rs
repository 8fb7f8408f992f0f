//! `Shared`: what every GPU object holds (context, stream) and the context-poisoning latch.

use super::error::{self, GpuError, driver};
use cudarc::driver::{CudaContext, CudaStream, DriverError};
use std::sync::{Arc, OnceLock};

/// What every GPU object holds: the context, the one stream all work goes to, and the fatal-error latch.
#[derive(Debug)]
pub(crate) struct Shared {
    pub ctx: Arc<CudaContext>,
    pub stream: Arc<CudaStream>,
    fatal: OnceLock<String>,
}

impl Shared {
    pub(crate) fn new(ctx: Arc<CudaContext>, stream: Arc<CudaStream>) -> Self {
        Shared {
            ctx,
            stream,
            fatal: OnceLock::new(),
        }
    }

    /// `Err(ContextLost)` once a fatal error was seen: nothing more is sent to the driver.
    pub(crate) fn alive(&self) -> Result<(), GpuError> {
        match self.fatal.get() {
            Some(first) => Err(GpuError::ContextLost {
                first: first.clone(),
            }),
            None => Ok(()),
        }
    }

    pub(crate) fn is_poisoned(&self) -> bool {
        self.fatal.get().is_some()
    }

    /// Records `e` if it is fatal, and returns it.
    pub(crate) fn note(&self, e: GpuError) -> GpuError {
        if e.is_fatal() {
            let _ = self.fatal.set(e.to_string());
        }
        e
    }

    /// Maps a driver result of `op`, latching fatal errors.
    pub(crate) fn call<T>(&self, op: &str, r: Result<T, DriverError>) -> Result<T, GpuError> {
        r.map_err(|e| self.note(driver(op, e)))
    }

    /// Binds the context to this thread (after checking it is alive).
    pub(crate) fn bind(&self) -> Result<(), GpuError> {
        self.alive()?;
        let r = self.ctx.bind_to_thread();
        self.call("cuCtxSetCurrent", r)
    }

    /// Waits for all queued work; a fault of an earlier kernel surfaces here as `GpuError::Launch`.
    pub(crate) fn sync(&self) -> Result<(), GpuError> {
        self.bind()?;
        let r = self.stream.synchronize().and_then(|_| self.ctx.check_err());
        r.map_err(|e| {
            self.note(error::launch(
                e,
                Some("reported at synchronisation: an earlier kernel or copy failed".into()),
            ))
        })
    }
}
