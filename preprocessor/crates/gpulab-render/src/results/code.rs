//! The code beside a result: the spec and kernel sources a directive's variants compile.

use super::view::CodeFile;
use crate::directive::Directive;
use crate::spec::{Exec, Experiment};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// `experiment.toml`, the variants' sources, then `includes` (one in `earlier`: a link).
pub fn code_files(
    exp: &Experiment,
    d: &Directive,
    earlier: &HashMap<PathBuf, String>,
) -> Vec<CodeFile> {
    code_paths(exp, d)
        .iter()
        .map(|p| match earlier.get(p) {
            Some(id) => CodeFile {
                listed_at: Some(id.clone()),
                ..code_file(exp, p, false)
            },
            None => code_file(exp, p, true),
        })
        .collect()
}

/// The files [`code_files`] shows for directive `d`, in order, with `.` and `..` resolved.
pub fn code_paths(exp: &Experiment, d: &Directive) -> Vec<PathBuf> {
    let shown: Vec<&crate::spec::Variant> = if d.variants.is_empty() {
        exp.variants.iter().collect()
    } else {
        d.variants.iter().filter_map(|v| exp.variant(v)).collect()
    };
    let mut paths: Vec<PathBuf> = vec![lexical(&exp.dir.join("experiment.toml"))];
    let sources = shown.into_iter().filter_map(|v| match &v.exec {
        Exec::Kernel { source, .. } => Some(source),
        _ => None,
    });
    for path in sources.chain(&exp.includes).map(|p| lexical(p)) {
        if !paths.contains(&path) {
            paths.push(path);
        }
    }
    paths
}

/// `path` with `.` and `..` resolved without the file system (`a/b/../c` is `a/c`).
pub fn lexical(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir
                if matches!(out.components().next_back(), Some(Component::Normal(_))) =>
            {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// `kernels/<experiment>/<file>`: the kernels folder's name, then the path inside it.
fn shown_name(dir: &Path, path: &Path) -> String {
    let dir = lexical(dir);
    let root = dir.parent().unwrap_or(&dir);
    let inside = path.strip_prefix(root).unwrap_or(path);
    let prefix = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    Path::new(&prefix)
        .join(inside)
        .to_string_lossy()
        .replace('\\', "/")
}

fn code_file(exp: &Experiment, path: &Path, read: bool) -> CodeFile {
    let name = shown_name(&exp.dir, path);
    let language = match path.extension().and_then(|e| e.to_str()) {
        Some("toml") => "toml",
        _ => "cpp",
    };
    let text = if read {
        std::fs::read_to_string(path)
            .unwrap_or_else(|e| format!("(cannot read {}: {e})", path.display()))
    } else {
        String::new()
    };
    CodeFile {
        name,
        language,
        text,
        listed_at: None,
    }
}

#[cfg(test)]
#[path = "code_tests.rs"]
mod tests;
