//! Why a book build failed: the library's, the engine's and the renderer's errors, each kept whole.

use crate::engine::EngineError;
use crate::error::Error;
use crate::inventory::InventoryError;
use crate::record::StoreError;
use crate::render::RenderError;
use std::path::PathBuf;

/// Everything that stops `process_book` (else a directive that cannot be shown is an error box).
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error(transparent)]
    Library(#[from] Error),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Engine(#[from] EngineError),
    #[error(transparent)]
    Render(#[from] RenderError),
    #[error(transparent)]
    Inventory(#[from] InventoryError),
    /// A `gpulab-anchors` block whose TOML is invalid (named in the message, not as a source).
    #[error("{}: gpulab-anchors: {error}", chapter.display())]
    Anchors {
        chapter: PathBuf,
        error: toml::de::Error,
    },
    /// `--strict`: what would otherwise be warnings (stale or unreadable recordings, …).
    #[error("--strict: {}", .0.join("; "))]
    Strict(Vec<String>),
}
