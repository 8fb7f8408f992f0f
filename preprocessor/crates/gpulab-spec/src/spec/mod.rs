//! Experiment specs (`kernels/<name>/experiment.toml`): two-stage parsing into `Experiment`.

pub mod builtins;
pub mod metrics;
pub mod model;
pub mod raw;
pub mod validate;

pub use model::*;

use crate::diagnostic::Diagnostic;
use crate::source::{SourceFile, toml_error};
use std::path::Path;

/// Loads and validates `kernels/<name>/experiment.toml` below `book_root`.
pub fn load(
    book_root: &Path,
    kernels_dir: &Path,
    name: &str,
) -> Result<Experiment, Vec<Diagnostic>> {
    let dir = kernels_dir.join(name);
    let path = dir.join("experiment.toml");
    let shown = path.strip_prefix(book_root).unwrap_or(&path).to_path_buf();
    let refuse = |message: String| {
        let file = SourceFile::new(shown.clone(), "");
        Err(vec![file.error(0..0, message, "")])
    };
    if let Err(e) = crate::confine::plain_name(name) {
        return refuse(format!("invalid experiment name: {e}"));
    }
    if path.exists() && !crate::confine::is_inside(&path, &[book_root, kernels_dir]) {
        return refuse(format!(
            "the experiment spec resolves outside the book (a symlink?): {}",
            crate::confine::ConfineError::Outside(shown.clone())
        ));
    }
    let text = match crate::confine::read_regular_file(&path) {
        Ok(t) => t,
        Err(e) => {
            let file = SourceFile::new(shown, "");
            return Err(vec![file.error(
                0..0,
                format!("cannot read the experiment spec: {e}"),
                "",
            )]);
        }
    };
    let file = SourceFile::new(shown, text.as_str());
    let raw = raw::parse(&text).map_err(|e| vec![toml_error(&file, 0, &e)])?;
    validate::validate(raw, name, &dir, book_root, &file).map_err(crate::diagnostic::cap)
}
