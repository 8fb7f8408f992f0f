//! rustc-style diagnostics: a message, the source line with a caret under the span, and "did you mean" help.

use std::fmt;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use annotate_snippets::{AnnotationKind, Renderer, Snippet};

/// Severity of a diagnostic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Error,
    Warning,
}

/// A file's text, shared by every diagnostic that points into it, with where its lines start
/// (found once, when a diagnostic is first rendered): memory and time grow with the input, not
/// with errors × input.
#[derive(Debug, Default)]
pub struct SourceText {
    text: String,
    line_starts: OnceLock<Vec<usize>>,
}

impl SourceText {
    pub fn new(text: impl Into<String>) -> Arc<Self> {
        Arc::new(SourceText {
            text: text.into(),
            line_starts: OnceLock::new(),
        })
    }

    /// The 1-based line holding byte `offset`, and the byte where that line starts.
    fn line_of(&self, offset: usize) -> (usize, usize) {
        let starts = self.line_starts.get_or_init(|| {
            std::iter::once(0)
                .chain(self.text.match_indices('\n').map(|(i, _)| i + 1))
                .collect()
        });
        let line = starts.partition_point(|&s| s <= offset).max(1);
        (line, starts[line - 1])
    }
}

impl std::ops::Deref for SourceText {
    type Target = str;
    fn deref(&self) -> &str {
        &self.text
    }
}

impl PartialEq for SourceText {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

impl Eq for SourceText {}

/// A message about a span of a source file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub level: Level,
    pub message: String,
    pub path: PathBuf,
    /// The whole file's text, shared with every other diagnostic of the file (so that memory grows
    /// with the input, not with errors × input).
    pub source: Arc<SourceText>,
    /// Byte range in `source`; clamped to the text (and to character boundaries) when rendered.
    pub span: Range<usize>,
    /// Shown beside the caret.
    pub label: String,
    pub help: Option<String>,
}

impl Diagnostic {
    /// An error diagnostic with an empty label and no help.
    pub fn error(
        message: impl Into<String>,
        path: impl Into<PathBuf>,
        source: impl Into<String>,
        span: Range<usize>,
    ) -> Self {
        Diagnostic {
            level: Level::Error,
            message: message.into(),
            path: path.into(),
            source: SourceText::new(source),
            span,
            label: String::new(),
            help: None,
        }
    }

    #[cfg(test)]
    /// Sets the label shown beside the caret.
    pub(crate) fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = label.into();
        self
    }

    /// Sets the `help:` line.
    pub(crate) fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    #[cfg(test)]
    /// 1-based (line, column) of the span's start.
    pub(crate) fn line_col(&self) -> (usize, usize) {
        line_col(&self.source, self.span.start)
    }

    /// The span clamped into the source and widened to character boundaries.
    pub(crate) fn clamped_span(&self) -> Range<usize> {
        let s = &self.source;
        let mut start = self.span.start.min(s.len());
        while !s.is_char_boundary(start) {
            start -= 1;
        }
        let mut end = self.span.end.clamp(start, s.len());
        while !s.is_char_boundary(end) {
            end += 1;
        }
        start..end
    }

    /// Renders like rustc: `error: message`, ` --> path:line:col`, the source line(s) with a caret under
    /// the span and the label, then `= help: …`. ANSI colours when `color`.
    pub fn render(&self, color: bool) -> String {
        let level = match self.level {
            Level::Error => annotate_snippets::Level::ERROR,
            Level::Warning => annotate_snippets::Level::WARNING,
        };
        let path = self.path.display().to_string();
        // Only the lines the span touches are handed to the renderer: a diagnostic costs its
        // line, not its file.
        let span = self.clamped_span();
        let s = &*self.source;
        let (line, first) = self.source.line_of(span.start);
        let last = s[span.end..].find('\n').map_or(s.len(), |i| span.end + i);
        let mut annotation = AnnotationKind::Primary.span(span.start - first..span.end - first);
        if !self.label.is_empty() {
            annotation = annotation.label(self.label.as_str());
        }
        let snippet = Snippet::source(&s[first..last])
            .line_start(line)
            .path(path)
            .fold(true)
            .annotation(annotation);
        let mut group = level.primary_title(self.message.as_str()).element(snippet);
        if let Some(help) = &self.help {
            group = group.element(annotate_snippets::Level::HELP.message(help.as_str()));
        }
        let renderer = if color {
            Renderer::styled()
        } else {
            Renderer::plain()
        };
        renderer.render(&[group])
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(false))
    }
}

impl std::error::Error for Diagnostic {}

/// 1-based (line, column) of byte `offset` in `source`; the column counts characters. An offset past the
/// end is clamped to the end; one inside a character counts as that character.
pub(crate) fn line_col(source: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(source.len());
    while !source.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &source[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

/// The candidate closest to `name`, when it is close enough to be a plausible typo (Jaro-Winkler
/// similarity ≥ 0.8, or an edit distance of at most a third of the name's length; case is ignored).
pub fn suggest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let lower = name.to_lowercase();
    let mut best: Option<(f64, &'a str)> = None;
    for cand in candidates {
        let c = cand.to_lowercase();
        let jw = strsim::jaro_winkler(&lower, &c);
        let dist = strsim::osa_distance(&lower, &c);
        let close =
            jw >= 0.8 || (dist > 0 && dist * 3 <= lower.chars().count().max(c.chars().count()));
        let close = close || (dist == 0 && !c.is_empty());
        if close && best.is_none_or(|(score, _)| jw > score) {
            best = Some((jw, cand));
        }
    }
    best.map(|(_, c)| c)
}

/// The most diagnostics shown for one directive or spec file.
pub const MAX_SHOWN: usize = 20;

/// The first [`MAX_SHOWN`] of `diags`, then one saying how many more there are, located at the
/// first of those: a directive naming 20,000 unknown variants prints 21 messages, not 20,000.
pub fn cap(mut diags: Vec<Diagnostic>) -> Vec<Diagnostic> {
    if diags.len() <= MAX_SHOWN {
        return diags;
    }
    let rest = diags.split_off(MAX_SHOWN);
    let errors = rest.iter().filter(|d| d.level == Level::Error).count();
    let (level, kind) = match errors {
        0 => (Level::Warning, "warning(s)"),
        _ => (Level::Error, "problem(s)"),
    };
    diags.push(Diagnostic {
        level,
        message: format!(
            "and {} more {kind} here, not shown (fix the ones above, then check again)",
            rest.len()
        ),
        label: "the next one".into(),
        help: None,
        ..rest[0].clone()
    });
    diags
}

/// `diags` without repeats (the same text at the same place), in order.
pub fn dedup(diags: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let mut seen = std::collections::BTreeSet::new();
    diags
        .into_iter()
        .filter(|d| seen.insert(d.render(false)))
        .collect()
}

/// "did you mean `axes`?" for the closest candidate, if any is close enough (see [`suggest`]).
pub fn did_you_mean<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<String> {
    suggest(name, candidates)
        .filter(|c| *c != name)
        .map(|c| format!("did you mean `{c}`?"))
}

/// [`did_you_mean`], else every candidate after `lead` ("parameters of `x`: a, b").
pub(crate) fn did_you_mean_or<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    lead: &str,
) -> Option<String> {
    let all: Vec<&str> = candidates.into_iter().collect();
    did_you_mean(name, all.iter().copied()).or_else(|| Some(format!("{lead}: {}", all.join(", "))))
}

#[cfg(test)]
#[path = "diagnostic_tests.rs"]
mod tests;
