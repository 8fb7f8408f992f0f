//! A source file being parsed (chapter or spec) and helpers to point diagnostics into it.

use crate::diagnostic::{Diagnostic, Level};
use std::ops::Range;
use std::path::PathBuf;
use std::sync::Arc;

/// A file's path (as shown to the user) and its whole text.
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub path: PathBuf,
    pub text: Arc<str>,
}

impl SourceFile {
    pub fn new(path: impl Into<PathBuf>, text: impl Into<Arc<str>>) -> Self {
        SourceFile {
            path: path.into(),
            text: text.into(),
        }
    }

    /// An error pointing at `span` (byte offsets into this file).
    pub fn error(
        &self,
        span: Range<usize>,
        message: impl Into<String>,
        label: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic {
            level: Level::Error,
            message: message.into(),
            path: self.path.clone(),
            source: self.text.to_string(),
            span,
            label: label.into(),
            help: None,
        }
    }
}

/// Adds a `help:` line to a diagnostic.
pub fn with_help(mut diag: Diagnostic, help: Option<String>) -> Diagnostic {
    diag.help = help;
    diag
}

/// Turns a TOML parse error into a diagnostic, with a "did you mean" for unknown keys.
/// `base` is where the TOML text starts inside `file`.
pub fn toml_error(file: &SourceFile, base: usize, err: &toml::de::Error) -> Diagnostic {
    toml_error_mapped(file, &|s| s.start + base..s.end + base, err)
}

/// Like [`toml_error`], with `map` turning a span of the TOML text into one of `file`.
pub fn toml_error_mapped(
    file: &SourceFile,
    map: &dyn Fn(Range<usize>) -> Range<usize>,
    err: &toml::de::Error,
) -> Diagnostic {
    let span = map(err.span().unwrap_or(0..0));
    let message = err.message().trim().to_string();
    let help = unknown_field_help(&message)
        .or_else(|| missing_field_help(&message))
        .or_else(|| unclosed_array_help(&message, &file.text, span.start));
    let label = if message.starts_with("unknown field") {
        "unknown key"
    } else {
        "here"
    };
    with_help(file.error(span, message.clone(), label), help)
}

/// For an array left open (`block = ["256"` with no `]`), which TOML reports on the next line
/// ("missing comma between array elements"): the line whose `[` is not closed.
fn unclosed_array_help(message: &str, text: &str, at: usize) -> Option<String> {
    let about_arrays = message.starts_with("missing comma between array elements")
        || message.contains("unclosed array")
        || message.contains("expected `]`");
    if !about_arrays {
        return None;
    }
    let before = &text[..at.min(text.len())];
    // The lines before the error's, nearest first (the error's own line is where TOML noticed).
    let mut lines: Vec<(usize, &str)> = before.lines().enumerate().collect();
    if !before.is_empty() && !before.ends_with('\n') {
        lines.pop();
    }
    lines
        .into_iter()
        .rev()
        .take(20)
        .find(|(_, line)| open_brackets(line) > 0)
        .map(|(i, _)| {
            format!(
                "the `[` on line {} is not closed: end the array with `]`",
                i + 1
            )
        })
}

/// `[` minus `]` on a line, outside strings and comments.
fn open_brackets(line: &str) -> i32 {
    let (mut depth, mut quote) = (0, None::<char>);
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '#') => break,
            (None, '[') => depth += 1,
            (None, ']') => depth -= 1,
            _ => {}
        }
    }
    depth
}

/// For serde's "missing field `verify`": what the key is for, where the tool knows it.
fn missing_field_help(message: &str) -> Option<String> {
    let name = message.strip_prefix("missing field `")?.strip_suffix('`')?;
    Some(match name {
        "verify" => "every experiment checks its output: add a `[verify]` table with the \
                     `reference` (a built-in CPU reference, `formula` or `variant:<name>`), its \
                     `inputs` and the `output` buffer (see \"Adding an experiment\")"
            .to_string(),
        "source" => "name the CUDA file beside the spec: `source = \"kernel.cu\"`".to_string(),
        "experiment" => {
            "name the experiment: `experiment = \"<folder under kernels/>\"`".to_string()
        }
        other => format!("add `{other} = …`"),
    })
}

/// For serde's "unknown field `axs`, expected one of `a`, `b`" messages: the nearest valid key.
fn unknown_field_help(message: &str) -> Option<String> {
    let rest = message.strip_prefix("unknown field `")?;
    let (name, rest) = rest.split_once('`')?;
    let candidates: Vec<&str> = rest.split('`').skip(1).step_by(2).collect();
    crate::diagnostic::did_you_mean(name, candidates.iter().copied())
        .or_else(|| Some(format!("valid keys: {}", candidates.join(", "))))
}
