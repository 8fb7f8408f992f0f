//! Loading a book folder for the commands that work outside mdBook (check, list, run, record).

use crate::config::Config;
use crate::preprocess::scan_book;
use crate::workspace::{FoundDirective, Workspace};
use anyhow::Context;
use std::path::Path;

/// The workspace and every directive of the book at `dir`.
/// Fails with a clear message when `dir` is not a book's root folder.
pub fn require_book(dir: &Path) -> anyhow::Result<()> {
    if !dir.join("book.toml").is_file() {
        anyhow::bail!(
            "{} has no book.toml: pass the book's root folder",
            dir.display()
        );
    }
    Ok(())
}

pub fn load(dir: &Path) -> anyhow::Result<(Workspace, Vec<FoundDirective>)> {
    require_book(dir)?;
    let md = mdbook_driver::MDBook::load(dir)
        .with_context(|| format!("loading the book at {}", dir.display()))?;
    let config = Config::from_mdbook(&md.config)?;
    let ws = Workspace::new(dir, &md.config.book.src, config);
    let found = scan_book(&ws, &md.book);
    Ok((ws, found))
}
