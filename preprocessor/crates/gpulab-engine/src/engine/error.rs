//! Why the live engine could not record: the worker, the store, or no GPU.

use super::supervisor::WorkerError;
use crate::gpu::GpuError;
use crate::record::StoreError;

/// Everything that stops a recording run (a point that fails is a recorded outcome, not this).
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// Ctrl-C or SIGTERM: the worker was killed and nothing of the job was written.
    #[error("interrupted: data/ left as it was")]
    Interrupted,
    /// The worker of `experiment`'s job could not run it (the message names the worker's error,
    /// so it is not also given as a source: `{:#}` would print it twice).
    #[error("{experiment}: {error}")]
    Worker {
        experiment: String,
        error: WorkerError,
    },
    /// The worker asked for its device could not answer.
    #[error(transparent)]
    Probe(WorkerError),
    #[error("no NVIDIA GPU is visible")]
    NoGpu,
    /// A recorder's thread panicked (`record --gpus`).
    #[error("a GPU's recorder panicked")]
    Panicked,
    #[error(transparent)]
    Gpu(#[from] GpuError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Library(#[from] crate::error::Error),
}
