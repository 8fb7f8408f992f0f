//! The `[preprocessor.gpulab]` table of `book.toml`, with defaults.

use serde::Deserialize;
use std::path::{Path, PathBuf};

/// When directives run kernels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Run stale points when a GPU is present, else use recordings.
    #[default]
    Auto,
    /// Never run kernels; render from `data/`.
    Recorded,
    /// Always run stale points; fail without a GPU.
    Live,
}

/// Book-wide options. Unknown keys that mdBook itself uses (`command`, `renderers`, …) are ignored.
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct Config {
    pub mode: Mode,
    /// A missing or stale recording is an error, not a warning.
    pub strict: bool,
    /// Device slug shown by default (else the device with the newest recording).
    pub device: Option<String>,
    /// Folders relative to the book root.
    pub data: PathBuf,
    pub kernels: PathBuf,
    /// Cache for compiled PTX (outside `book/`, so `mdbook serve` does not loop).
    pub cache: PathBuf,
    /// Default measurement rules (a directive's `measure` overrides them).
    pub timeout_s: Option<f64>,
    pub max_samples: Option<usize>,
    pub min_samples: Option<usize>,
    pub noise: Option<f64>,
    /// Default time budget per point for CPU baselines and long launch sequences, seconds.
    pub budget_s: Option<f64>,
    /// Seconds a point may run without a result before its worker is killed as hung (default:
    /// derived from the timeout and budget, at least 60 s).
    pub watchdog_s: Option<f64>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            mode: Mode::Auto,
            strict: false,
            device: None,
            data: "data".into(),
            kernels: "kernels".into(),
            cache: ".cache/gpulab".into(),
            timeout_s: None,
            max_samples: None,
            min_samples: None,
            noise: None,
            budget_s: None,
            watchdog_s: None,
        }
    }
}

impl Config {
    /// Reads `[preprocessor.gpulab]` from mdBook's config.
    pub fn from_mdbook(cfg: &mdbook_preprocessor::config::Config) -> anyhow::Result<Config> {
        Ok(cfg
            .get::<Config>("preprocessor.gpulab")?
            .unwrap_or_default())
    }

    pub fn data_dir(&self, root: &Path) -> PathBuf {
        root.join(&self.data)
    }
    pub fn kernels_dir(&self, root: &Path) -> PathBuf {
        root.join(&self.kernels)
    }
    pub fn cache_dir(&self, root: &Path) -> PathBuf {
        root.join(&self.cache)
    }
}
