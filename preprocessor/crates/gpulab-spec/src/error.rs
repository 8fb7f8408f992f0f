//! The typed errors of the layers below the engine (invalid input, the store, reading files); the
//! engine's `EngineError` and a build's `BuildError` wrap
//! it. `anyhow` is used only at the command-line edge.

use crate::diagnostic::Diagnostic;
use std::path::PathBuf;

/// What can go wrong below the engine, by kind.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A directive or spec is invalid; the diagnostics point into the source.
    #[error("{}", render_all(.0))]
    Invalid(Vec<Diagnostic>),
    #[error(transparent)]
    Store(#[from] crate::record::StoreError),
    #[error("{path}: {message}")]
    Io { path: PathBuf, message: String },
}

fn render_all(diags: &[Diagnostic]) -> String {
    diags
        .iter()
        .map(|d| d.render(false))
        .collect::<Vec<_>>()
        .join("\n")
}

impl Error {
    pub fn io(path: impl Into<PathBuf>, err: impl std::fmt::Display) -> Self {
        Error::Io {
            path: path.into(),
            message: err.to_string(),
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
