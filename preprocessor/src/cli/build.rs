//! `mdbook-gpulab build`: builds the book in-process with the preprocessor registered.

use crate::config::Mode;
use crate::preprocess::{GpuLab, Overrides};
use anyhow::Context;
use std::path::Path;
use std::process::ExitCode;

pub(super) fn run(dir: &Path, strict: bool, mode: Option<Mode>) -> anyhow::Result<ExitCode> {
    super::book::require_book(dir)?;
    let mut md = mdbook_driver::MDBook::load(dir)
        .with_context(|| format!("loading the book at {}", dir.display()))?;
    let mut lab = GpuLab::new();
    lab.overrides = Overrides {
        strict: strict.then_some(true),
        mode,
    };
    md.with_preprocessor(lab);
    md.build().context("building the book")?;
    eprintln!("built {}", md.build_dir_for("html").display());
    Ok(ExitCode::SUCCESS)
}
