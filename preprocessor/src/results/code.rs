//! The code beside a result: the spec and the kernel sources a directive's variants compile, read
//! from the kernels folder so the page can show exactly what produced its numbers.

use super::view::CodeFile;
use crate::directive::Directive;
use crate::spec::{Exec, Experiment};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// `experiment.toml`, then each source file of the variants shown (in variant order, once each),
/// then the spec's `includes`. A file that cannot be read is shown with the reason instead. A file
/// in `earlier` (listed by an earlier result on the same page, at that code box `id`) is not read
/// again: the page links to that listing.
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

/// The files [`code_files`] shows for directive `d`, in order.
pub fn code_paths(exp: &Experiment, d: &Directive) -> Vec<PathBuf> {
    let shown: Vec<&crate::spec::Variant> = if d.variants.is_empty() {
        exp.variants.iter().collect()
    } else {
        d.variants.iter().filter_map(|v| exp.variant(v)).collect()
    };
    let mut paths: Vec<PathBuf> = vec![exp.dir.join("experiment.toml")];
    for v in shown {
        if let Exec::Kernel { source, .. } = &v.exec
            && !paths.contains(source)
        {
            paths.push(source.clone());
        }
    }
    for inc in &exp.includes {
        if !paths.contains(inc) {
            paths.push(inc.clone());
        }
    }
    paths
}

fn code_file(exp: &Experiment, path: &Path, read: bool) -> CodeFile {
    // `kernels/<experiment>/<file>`: the kernels folder's own name, then the path inside it.
    let root = exp.dir.parent().unwrap_or(&exp.dir);
    let inside = path.strip_prefix(root).unwrap_or(path);
    let prefix = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = Path::new(&prefix)
        .join(inside)
        .to_string_lossy()
        .replace('\\', "/");
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
