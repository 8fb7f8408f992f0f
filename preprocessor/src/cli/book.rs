//! Loading a book folder for the commands that work outside mdBook, and selecting its directives.

use crate::config::Config;
use crate::directive::fence::FenceKind;
use crate::preprocess::scan_book;
use crate::workspace::{FoundDirective, Workspace};
use anyhow::Context;
use std::path::Path;

/// Fails with a clear message when `dir` is not a book's root folder.
pub(super) fn require_book(dir: &Path) -> anyhow::Result<()> {
    if !dir.join("book.toml").is_file() {
        anyhow::bail!(
            "{} has no book.toml: pass the book's root folder",
            dir.display()
        );
    }
    Ok(())
}

/// The workspace and every directive of the book at `dir`.
pub(super) fn load(dir: &Path) -> anyhow::Result<(Workspace, Vec<FoundDirective>)> {
    let (md, ws) = open(dir)?;
    let found = scan_book(&ws, &md.book);
    Ok((ws, found))
}

/// The book at `dir` as mdBook loads it, and its workspace.
pub(super) fn open(dir: &Path) -> anyhow::Result<(mdbook_driver::MDBook, Workspace)> {
    require_book(dir)?;
    let md = mdbook_driver::MDBook::load(dir)
        .with_context(|| format!("loading the book at {}", dir.display()))?;
    let config = Config::from_mdbook(&md.config, dir)?;
    let ws = Workspace::new(dir, &md.config.book.src, config);
    Ok((md, ws))
}

/// Chapters under src/ with a `gpulab` fence that `SUMMARY.md` does not list, sorted.
pub(super) fn unlisted_with_directives(
    md: &mdbook_driver::MDBook,
    ws: &Workspace,
) -> Vec<std::path::PathBuf> {
    let src = &ws.src_dir;
    let listed: std::collections::HashSet<std::path::PathBuf> = md
        .book
        .iter()
        .filter_map(|item| match item {
            mdbook_preprocessor::book::BookItem::Chapter(ch) => {
                ch.source_path.as_ref().or(ch.path.as_ref())
            }
            _ => None,
        })
        .filter_map(|p| src.join(p).canonicalize().ok())
        .collect();
    let build_dir = md.build_dir_for("html").canonicalize().ok();
    let mut out = Vec::new();
    let mut stack = vec![src.to_path_buf()];
    let mut seen = std::collections::HashSet::new();
    while let Some(folder) = stack.pop() {
        // Each folder once, by its canonical path: a link to a parent cannot loop the walk.
        let Ok(canonical) = folder.canonicalize() else {
            continue;
        };
        if Some(&canonical) == build_dir.as_ref() || !seen.insert(canonical) {
            continue;
        }
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let hidden = entry.file_name().to_string_lossy().starts_with('.');
            if path.is_dir() {
                if !hidden {
                    stack.push(path);
                }
            } else if path.extension().is_some_and(|e| e == "md")
                && let Ok(rel) = path.strip_prefix(src)
                && path.canonicalize().is_ok_and(|c| !listed.contains(&c))
                && crate::confine::read_regular_file(&path)
                    .is_ok_and(|t| !crate::directive::fence::find_fences(&t).is_empty())
            {
                out.push(rel.to_path_buf());
            }
        }
    }
    out.sort();
    out
}

/// The chapter's `gpulab` directives, or why there are none (with a did-you-mean).
pub(super) fn chapter_directives<'f>(
    md: &mdbook_driver::MDBook,
    ws: &Workspace,
    found: &'f [FoundDirective],
    chapter: &str,
) -> anyhow::Result<Vec<&'f FoundDirective>> {
    let chapter_rel = Path::new(chapter);
    let selected: Vec<&FoundDirective> = found
        .iter()
        .filter(|f| chapter_rel.ends_with(&f.chapter_path) || f.chapter_path.ends_with(chapter_rel))
        .filter(|f| f.fence.kind == FenceKind::Experiment)
        .collect();
    if selected.is_empty() {
        let exists = [ws.src_dir.join(chapter_rel), ws.root.join(chapter_rel)]
            .iter()
            .any(|p| p.is_file());
        if exists {
            let unlisted = unlisted_with_directives(md, ws);
            if unlisted
                .iter()
                .any(|p| chapter_rel.ends_with(p) || p.ends_with(chapter_rel))
            {
                anyhow::bail!(
                    "`{chapter}` is not listed in SUMMARY.md, so mdBook does not build it: add it there to run its directives"
                );
            }
            anyhow::bail!("`{chapter}` has no gpulab directive");
        }
        let mut chapters: Vec<String> = found
            .iter()
            .filter(|f| f.fence.kind == FenceKind::Experiment)
            .map(|f| f.chapter_path.display().to_string())
            .collect();
        chapters.dedup();
        let hint = crate::diagnostic::did_you_mean(chapter, chapters.iter().map(String::as_str))
            .map_or_else(String::new, |h| format!("; {h}"));
        anyhow::bail!(
            "no chapter `{chapter}` in the book (paths are relative to the book's src folder or the book root){hint}"
        );
    }
    Ok(selected)
}

/// Fails on the first of `names` that no valid directive of the book shows (with a did-you-mean).
pub(super) fn require_experiments<'a>(
    found: &[FoundDirective],
    names: impl IntoIterator<Item = &'a String>,
) -> anyhow::Result<()> {
    let known: Vec<&str> = found
        .iter()
        .filter_map(|f| f.parsed.as_ref().ok())
        .map(|(_, exp)| exp.name.as_str())
        .collect();
    if let Some(unknown) = names.into_iter().find(|n| !known.contains(&n.as_str())) {
        let hint = crate::diagnostic::did_you_mean(unknown, known.iter().copied())
            .map_or_else(String::new, |h| format!("; {h}"));
        anyhow::bail!("`{unknown}`: no directive of the book shows this experiment{hint}");
    }
    Ok(())
}
