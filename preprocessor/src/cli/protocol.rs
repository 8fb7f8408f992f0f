//! mdBook's preprocessor protocol: `supports <renderer>`, and `[context, book]` JSON on stdin
//! answered by the processed book on stdout. Diagnostics go to stderr only.

use crate::preprocess::GpuLab;
use anyhow::Context;
use mdbook_preprocessor::Preprocessor;
use std::process::ExitCode;

/// Exit 0 when the renderer is supported, 1 when not (mdBook then skips the preprocessor).
pub fn supports(renderer: &str) -> ExitCode {
    match GpuLab::new().supports_renderer(renderer) {
        Ok(true) => ExitCode::SUCCESS,
        _ => ExitCode::FAILURE,
    }
}

pub fn run_preprocessor() -> anyhow::Result<ExitCode> {
    let (ctx, book) = mdbook_preprocessor::parse_input(std::io::stdin())
        .context("reading mdBook's input on stdin")?;
    if ctx.mdbook_version != mdbook_preprocessor::MDBOOK_VERSION {
        eprintln!(
            "warning: mdbook-gpulab was built against mdBook {} but is called by mdBook {}",
            mdbook_preprocessor::MDBOOK_VERSION,
            ctx.mdbook_version
        );
    }
    let processed = GpuLab::new().run(&ctx, book)?;
    serde_json::to_writer(std::io::stdout().lock(), &processed)
        .context("writing the book to stdout")?;
    Ok(ExitCode::SUCCESS)
}
