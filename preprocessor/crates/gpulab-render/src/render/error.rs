//! Typed rendering errors.

use std::path::PathBuf;

/// Why a directive, status table or error box could not be rendered.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    #[error("cannot read template override {path}: {source}")]
    TemplateRead {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("template override {path} resolves outside the book (a symlink?)")]
    TemplateOutside { path: PathBuf },
    #[error("invalid template `{name}` ({origin}): {source}")]
    TemplateSyntax {
        name: String,
        origin: String,
        source: Box<handlebars::TemplateError>,
    },
    #[error("rendering template `{name}`: {source}")]
    Template {
        name: String,
        source: Box<handlebars::RenderError>,
    },
    #[error("drawing a chart: {0}")]
    Chart(String),
}
