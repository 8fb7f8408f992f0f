//! Confinement: the files a book names stay inside the book.
//!
//! The rule: a name that becomes a path component (an experiment, a paper key) is a plain name;
//! the book's folders from book.toml (`kernels`, `data`, `cache`) are relative paths without `..`;
//! and every file read or written (specs, sources, includes, papers, recordings, templates)
//! resolves, after symlinks, inside the book root or inside the folder it belongs to as that
//! folder resolves. So `kernels/` may be a symlink to a shared tree (its files are then inside
//! it), but a symlink inside `kernels/<exp>/` or `data/` that points elsewhere is refused.

use std::path::{Component, Path, PathBuf};

/// Reads a text file the book names, refusing anything but a regular file: a FIFO put where a
/// recording or spec belongs would block the build forever, a folder or device cannot be one.
pub fn read_regular_file(path: &Path) -> std::io::Result<String> {
    if !std::fs::metadata(path)?.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file (a folder, FIFO or device)",
        ));
    }
    std::fs::read_to_string(path)
}

/// Whether anything, even a broken or looping symlink, is at `path` (`Path::exists` says no for
/// those, which would make a recording behind a symlink loop look missing instead of unreadable).
pub fn is_present(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok()
}

/// Why a path was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfineError {
    #[error("`{0}` is not a plain name (letters, digits, `_`, `-`, `.`; not starting with `.`)")]
    NotPlain(String),
    #[error("`{0}` must be a relative path inside the book, without `..`")]
    NotRelative(String),
    #[error("{0} resolves outside the book's folder")]
    Outside(PathBuf),
}

/// Whether `name` can be used as one path component: no separators, no `..`, no hidden files.
pub(crate) fn is_plain_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 128
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c))
}

/// Checks a plain name (see [`is_plain_name`]).
pub fn plain_name(name: &str) -> Result<&str, ConfineError> {
    if is_plain_name(name) {
        Ok(name)
    } else {
        Err(ConfineError::NotPlain(name.to_string()))
    }
}

/// Checks a folder option of book.toml: relative, and no `..` component.
pub(crate) fn relative_folder(path: &Path) -> Result<(), ConfineError> {
    let ok = !path.as_os_str().is_empty()
        && path
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
    if ok {
        Ok(())
    } else {
        Err(ConfineError::NotRelative(path.display().to_string()))
    }
}

/// Whether the existing `path` resolves (symlinks followed) inside one of `roots` (each resolved
/// too). A path that does not exist is inside when its nearest existing ancestor is.
pub fn is_inside(path: &Path, roots: &[&Path]) -> bool {
    let Some(resolved) = resolve_existing(path) else {
        return false;
    };
    roots
        .iter()
        .filter_map(|r| r.canonicalize().ok())
        .any(|r| resolved.starts_with(r))
}

/// Like [`is_inside`], as a `Result` naming the path.
pub fn inside(path: &Path, roots: &[&Path]) -> Result<(), ConfineError> {
    if is_inside(path, roots) {
        Ok(())
    } else {
        Err(ConfineError::Outside(path.to_path_buf()))
    }
}

/// The canonical form of `path`, or of its nearest existing ancestor joined with the rest. A
/// symbolic link that leads nowhere yet resolves to where it points, since writing through it
/// would create that file (at most 40 links are followed, as the kernel does).
fn resolve_existing(path: &Path) -> Option<PathBuf> {
    resolve_links(path, 40)
}

fn resolve_links(path: &Path, hops: u32) -> Option<PathBuf> {
    if let Ok(p) = path.canonicalize() {
        return Some(p);
    }
    if let Ok(target) = std::fs::read_link(path) {
        let base = path.parent().unwrap_or(Path::new(""));
        return resolve_links(&base.join(target), hops.checked_sub(1)?);
    }
    let name = path.file_name()?;
    let base = resolve_links(path.parent()?, hops)?;
    Some(base.join(name))
}

#[cfg(test)]
#[path = "confine_tests.rs"]
mod tests;
