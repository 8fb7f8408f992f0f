//! The `__global__` functions of a CUDA source read without a compiler (comments and literals
//! skipped), so that `check` without NVRTC still finds a kernel name the source does not define.

use crate::key::normalise::{normalise, quoted_includes};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// A `__global__` function: its name, file (as read) and 1-based line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FoundKernel {
    pub(crate) name: String,
    pub(crate) file: PathBuf,
    pub(crate) line: usize,
}

/// What a source and the files it includes by quoted name define and mention.
#[derive(Debug, Default)]
pub struct SourceScan {
    pub(crate) kernels: Vec<FoundKernel>,
    /// Every identifier outside comments and literals (a name a macro pastes in is among them).
    pub(crate) identifiers: BTreeSet<String>,
}

impl SourceScan {
    /// Scans `path` and, recursively, the files its `#include "…"` lines name beside it; a file
    /// that cannot be read adds nothing (compiling it is what reports that).
    pub fn of(path: &Path) -> SourceScan {
        let mut scan = SourceScan::default();
        let mut seen = Vec::new();
        scan.add(path, &mut seen);
        scan
    }

    fn add(&mut self, path: &Path, seen: &mut Vec<PathBuf>) {
        if seen.iter().any(|p| p == path) {
            return;
        }
        seen.push(path.to_path_buf());
        let Ok(text) = std::fs::read_to_string(path) else {
            return;
        };
        let tokens = tokens(&text);
        self.kernels.extend(
            kernels(&tokens)
                .into_iter()
                .map(|(name, line)| FoundKernel {
                    name: name.to_string(),
                    file: path.to_path_buf(),
                    line,
                }),
        );
        self.identifiers.extend(
            tokens
                .iter()
                .filter(|t| t.ident)
                .map(|t| t.text.to_string()),
        );
        let dir = path.parent().unwrap_or(Path::new(""));
        for name in quoted_includes(&normalise(&text)) {
            self.add(&dir.join(name), seen);
        }
    }
}

/// An identifier or one punctuation character, with its line.
#[derive(Debug, Clone, Copy)]
struct Token<'a> {
    text: &'a str,
    ident: bool,
    line: usize,
}

/// The identifiers and punctuation of `src`, outside comments, string and character literals
/// (numbers are dropped; a `'` inside one is a digit separator).
fn tokens(src: &str) -> Vec<Token<'_>> {
    let b = src.as_bytes();
    let (mut out, mut i, mut line) = (Vec::new(), 0, 1);
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80;
    while i < b.len() {
        let c = b[i];
        let next = if src[i..].starts_with("//") {
            src[i..].find('\n').map_or(src.len(), |k| i + k)
        } else if src[i..].starts_with("/*") {
            src[i + 2..].find("*/").map_or(src.len(), |k| i + k + 4)
        } else if c == b'"' || c == b'\'' {
            literal(b, i)
        } else if word(c) {
            let end = (i..b.len()).find(|&k| !word(b[k])).unwrap_or(b.len());
            if c.is_ascii_digit() {
                // A pp-number, with `'` separators and exponents' signs.
                (i..b.len())
                    .find(|&k| !(word(b[k]) || b[k] == b'\'' || b[k] == b'.'))
                    .unwrap_or(b.len())
            } else if b.get(end) == Some(&b'"') && src[i..end].ends_with('R') {
                raw_string(src, end)
            } else {
                out.push(Token {
                    text: &src[i..end],
                    ident: true,
                    line,
                });
                end
            }
        } else {
            if !c.is_ascii_whitespace() {
                out.push(Token {
                    text: &src[i..i + 1],
                    ident: false,
                    line,
                });
            }
            i + 1
        };
        let next = next.clamp(i + 1, src.len());
        line += src[i..next].matches('\n').count();
        i = next;
    }
    out
}

/// The end of the string or character literal opening at `start` (escapes honoured; an
/// unterminated one ends at its line's end).
fn literal(b: &[u8], start: usize) -> usize {
    let quote = b[start];
    let mut k = start + 1;
    while k < b.len() && b[k] != quote && b[k] != b'\n' {
        k += if b[k] == b'\\' { 2 } else { 1 };
    }
    (k + 1).min(b.len())
}

/// The end of the raw string `R"delim( … )delim"` whose `"` is at `quote`.
fn raw_string(src: &str, quote: usize) -> usize {
    let Some(open) = src[quote..].find('(') else {
        return quote + 1;
    };
    let close = format!("){}\"", &src[quote + 1..quote + open]);
    src[quote + open..]
        .find(&close)
        .map_or(src.len(), |k| quote + open + k + close.len())
}

/// The name and line of every `__global__` function: the last identifier before the first `(` or
/// `<` that follows `__global__`, skipping attributes such as `__launch_bounds__(256)`.
fn kernels<'a>(tokens: &[Token<'a>]) -> Vec<(&'a str, usize)> {
    let mut out = Vec::new();
    for (at, t) in tokens.iter().enumerate() {
        if !(t.ident && t.text == "__global__") {
            continue;
        }
        let (mut k, mut name) = (at + 1, None);
        while let Some(t) = tokens.get(k) {
            match (t.ident, t.text) {
                (true, "__launch_bounds__" | "__attribute__" | "__declspec") => {
                    k = past_parentheses(tokens, k + 1);
                    continue;
                }
                (true, _) => name = Some(t),
                (false, "(" | "<") => {
                    out.extend(name.map(|n| (n.text, n.line)));
                    break;
                }
                (false, ";" | "{" | "}") => break,
                _ => {}
            }
            k += 1;
        }
    }
    out
}

/// The index after the balanced parentheses that open at `k` (`k` itself when none opens there).
fn past_parentheses(tokens: &[Token], k: usize) -> usize {
    if tokens.get(k).is_none_or(|t| t.text != "(") {
        return k;
    }
    let mut depth = 0;
    for (i, t) in tokens.iter().enumerate().skip(k) {
        match t.text {
            "(" if !t.ident => depth += 1,
            ")" if !t.ident => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
    }
    tokens.len()
}

#[cfg(test)]
#[path = "source_scan_tests.rs"]
mod tests;
