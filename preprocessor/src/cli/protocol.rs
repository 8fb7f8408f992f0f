//! mdBook's preprocessor protocol: `supports`, and the book as JSON in and out (stderr for the rest).

use super::mdbook_json;
use crate::preprocess::GpuLab;
use anyhow::Context;
use mdbook_preprocessor::Preprocessor;
use std::io::Read;
use std::process::ExitCode;

/// Exit 0 when the renderer is supported, 1 when not (mdBook then skips the preprocessor).
pub(super) fn supports(renderer: &str) -> ExitCode {
    match GpuLab::new().supports_renderer(renderer) {
        Ok(true) => ExitCode::SUCCESS,
        _ => ExitCode::FAILURE,
    }
}

pub(super) fn run_preprocessor() -> anyhow::Result<ExitCode> {
    let mut input = String::new();
    std::io::stdin()
        .read_to_string(&mut input)
        .context("reading mdBook's input on stdin")?;
    let (ctx, book, dialect) = mdbook_json::parse(&input)?;
    let processed = GpuLab::new().run(&ctx, book)?;
    let json = mdbook_json::to_json(&processed, dialect)?;
    serde_json::to_writer(std::io::stdout().lock(), &json).context("writing the book to stdout")?;
    Ok(ExitCode::SUCCESS)
}
