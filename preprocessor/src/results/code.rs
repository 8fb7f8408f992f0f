//! The code beside a result: the spec and the kernel sources a directive's variants compile, read
//! from the kernels folder so the page can show exactly what produced its numbers.

use super::view::CodeFile;
use crate::directive::Directive;
use crate::spec::{Exec, Experiment};
use std::path::{Path, PathBuf};

/// `experiment.toml`, then each source file of the variants shown (in variant order, once each),
/// then the spec's `includes`. A file that cannot be read is shown with the reason instead.
pub fn code_files(exp: &Experiment, d: &Directive) -> Vec<CodeFile> {
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
    paths.iter().map(|p| code_file(exp, p)).collect()
}

fn code_file(exp: &Experiment, path: &Path) -> CodeFile {
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
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| format!("(cannot read {}: {e})", path.display()));
    CodeFile {
        name,
        language,
        text,
    }
}
