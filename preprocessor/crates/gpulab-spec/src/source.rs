//! A source file being parsed (chapter or spec) and helpers to point diagnostics into it.

use crate::diagnostic::{Diagnostic, Level, SourceText};
use std::ops::Range;
use std::path::PathBuf;
use std::sync::Arc;

/// A file's path (as shown to the user) and its whole text.
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub path: PathBuf,
    pub text: Arc<SourceText>,
}

impl SourceFile {
    pub fn new(path: impl Into<PathBuf>, text: impl Into<String>) -> Self {
        SourceFile {
            path: path.into(),
            text: SourceText::new(text),
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
            source: Arc::clone(&self.text),
            span,
            label: label.into(),
            help: None,
        }
    }
}

/// Adds a `help:` line to a diagnostic.
pub(crate) fn with_help(mut diag: Diagnostic, help: Option<String>) -> Diagnostic {
    diag.help = help;
    diag
}

/// Turns a TOML parse error into a diagnostic, with a "did you mean" for unknown keys.
/// `base` is where the TOML text starts inside `file`.
pub fn toml_error(file: &SourceFile, base: usize, err: &toml::de::Error) -> Diagnostic {
    toml_error_mapped(file, &|s| s.start + base..s.end + base, err)
}

/// Like [`toml_error`], with `map` turning a span of the TOML text into one of `file`.
pub(crate) fn toml_error_mapped(
    file: &SourceFile,
    map: &dyn Fn(Range<usize>) -> Range<usize>,
    err: &toml::de::Error,
) -> Diagnostic {
    let span = map(err.span().unwrap_or(0..0));
    let message = err.message().trim().to_string();
    let help = unknown_field_help(&message)
        .or_else(|| missing_field_help(&message))
        .or_else(|| unclosed_array_help(&message, &file.text, map(0..0).start, span.start));
    let label = if message.starts_with("unknown field") {
        "unknown key"
    } else {
        "here"
    };
    with_help(file.error(span, message.clone(), label), help)
}

/// For an array left open (`block = ["256"` with no `]`): TOML reports it where it notices, on
/// the next key ("missing comma between array elements") or at the end ("unclosed array"). The
/// help names the line whose `[` is still open at that point, scanning the TOML (from `start`,
/// where it begins in `text`) with its strings and comments skipped.
fn unclosed_array_help(message: &str, text: &str, start: usize, at: usize) -> Option<String> {
    let at = at.min(text.len());
    let start = start.min(at);
    let next_key = || {
        let rest = text[at..].lines().next().unwrap_or("").trim_start();
        let key_len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
            .unwrap_or(rest.len());
        rest.starts_with('[') || (key_len > 0 && rest[key_len..].trim_start().starts_with('='))
    };
    let relevant = (message.starts_with("missing comma between array elements") && next_key())
        || (message.starts_with("unclosed array") && !message.contains("table"));
    if !relevant {
        return None;
    }
    let line_of = |pos: usize| text[..pos].matches('\n').count() + 1;
    open_arrays(&text[start..at]).last().map(|&pos| {
        format!(
            "the `[` on line {} is not closed: end the array with `]`",
            line_of(start + pos)
        )
    })
}

/// Where each array still open at the end of `toml` starts (byte offsets), outermost first:
/// strings (basic, literal, multi-line, with escapes) and comments are skipped, and a `[` that
/// begins a line outside any array is a table header, not an array.
fn open_arrays(toml: &str) -> Vec<usize> {
    let bytes = toml.as_bytes();
    let mut open = Vec::new();
    let mut i = 0;
    let mut line_start = true;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'\n' => {
                line_start = true;
                i += 1;
                continue;
            }
            b' ' | b'\t' | b'\r' => {
                i += 1;
                continue;
            }
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'"' | b'\'' => {
                let triple = toml[i..].starts_with(if b == b'"' { "\"\"\"" } else { "\'\'\'" });
                let close = &bytes[i..i + if triple { 3 } else { 1 }];
                i += close.len();
                while i < bytes.len() && !bytes[i..].starts_with(close) {
                    // A basic string's backslash escapes the next character; a one-line string
                    // ends at the line's end even when unterminated.
                    if b == b'"' && bytes[i] == b'\\' {
                        i += 1;
                    } else if !triple && bytes[i] == b'\n' {
                        break;
                    }
                    i += 1;
                }
                i += close.len();
            }
            b'[' if line_start && open.is_empty() => {
                // A table header: `[x]` or `[[x]]`, to the end of its line.
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'[' => {
                open.push(i);
                i += 1;
            }
            b']' => {
                open.pop();
                i += 1;
            }
            _ => i += 1,
        }
        line_start = false;
    }
    open
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
    let candidates = rest.split('`').skip(1).step_by(2);
    crate::diagnostic::did_you_mean_or(name, candidates, "valid keys")
}

#[cfg(test)]
#[path = "source_tests.rs"]
mod tests;
