//! Finds `gpulab` fenced code blocks in a chapter's markdown, with their byte ranges.

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};
use std::borrow::Cow;
use std::ops::Range;

/// The info string of an experiment directive.
pub(crate) const DIRECTIVE_INFO: &str = "gpulab";
/// The info string of the reproduction-status directive.
pub(crate) const STATUS_INFO: &str = "gpulab-status";
/// The info string of the library-anchors table (rows as TOML `[[row]]`s).
pub const ANCHORS_INFO: &str = "gpulab-anchors";
/// The info string of the Nsight Compute check's table (empty body).
pub const NCU_CHECK_INFO: &str = "gpulab-ncu-check";

/// What a fence asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FenceKind {
    Experiment,
    Status,
    Anchors,
    NcuCheck,
    /// An inline value in prose (`{{#gpulab …}}`, `directive::inline`).
    Inline,
}

/// A fenced block found in markdown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fence {
    pub kind: FenceKind,
    /// The whole block, fences included: what gets replaced.
    pub block: Range<usize>,
    /// The body (TOML) text and where it starts in the chapter.
    pub body: String,
    pub body_start: usize,
    /// `(offset in body, offset in chapter)` where each piece of the body starts: inside a
    /// blockquote or a CRLF file the body is not one contiguous slice of the chapter.
    pub pieces: Vec<(usize, usize)>,
    /// The chapter ended before the closing fence.
    pub unclosed: bool,
}

impl Fence {
    /// The chapter byte range of a byte range of the body.
    pub(crate) fn to_chapter(&self, span: Range<usize>) -> Range<usize> {
        map_span(&self.pieces, self.body_start, span)
    }
}

/// Maps a body span to the chapter through `pieces` (see [`Fence::pieces`]); `fallback` is
/// where an empty body starts.
pub(crate) fn map_span(
    pieces: &[(usize, usize)],
    fallback: usize,
    span: Range<usize>,
) -> Range<usize> {
    let at = |off: usize| match pieces.iter().rev().find(|(body, _)| *body <= off) {
        Some((body, chapter)) => chapter + (off - body),
        None => fallback + off,
    };
    let start = at(span.start);
    let end = at(span.end).max(start);
    start..end
}

/// Whether the last line of a fenced block is a closing fence (pulldown-cmark closes an
/// unterminated block at the end of the document without one).
fn has_closing_fence(block: &str) -> bool {
    let mut lines = block.lines();
    let Some(open) = lines.next() else {
        return false;
    };
    let open = open.trim_start_matches([' ', '>']).trim_start();
    let Some(ch) = open.chars().next().filter(|c| *c == '`' || *c == '~') else {
        return false;
    };
    let open_len = open.chars().take_while(|c| *c == ch).count();
    let Some(last) = lines.last() else {
        return false;
    };
    let last = last
        .trim_start_matches(|c: char| c == '>' || c.is_whitespace())
        .trim_end();
    last.chars().take_while(|c| *c == ch).count() >= open_len && last.chars().all(|c| c == ch)
}

/// `markdown` with every carriage return that ends a line by itself (old Mac line endings) made a
/// line feed, so that its fences and TOML read as written; byte offsets are unchanged.
pub fn normalise_line_endings(markdown: &str) -> Cow<'_, str> {
    let bytes = markdown.as_bytes();
    let lone = |i: usize| bytes[i] == b'\r' && bytes.get(i + 1) != Some(&b'\n');
    if !(0..bytes.len()).any(lone) {
        return Cow::Borrowed(markdown);
    }
    let out: Vec<u8> = (0..bytes.len())
        .map(|i| if lone(i) { b'\n' } else { bytes[i] })
        .collect();
    // One ASCII byte replaced by another keeps the text UTF-8.
    Cow::Owned(String::from_utf8(out).unwrap_or_else(|_| markdown.to_string()))
}

/// Every `gpulab` / `gpulab-status` fence of `markdown`, in order.
pub fn find_fences(markdown: &str) -> Vec<Fence> {
    let mut fences = Vec::new();
    // kind, block start, body, body start, pieces
    type Open = (FenceKind, usize, String, Option<usize>, Vec<(usize, usize)>);
    let mut current: Option<Open> = None;
    for (event, range) in Parser::new_ext(markdown, Options::all()).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) => {
                let word = info.split_whitespace().next().unwrap_or("");
                let kind = match word {
                    DIRECTIVE_INFO => Some(FenceKind::Experiment),
                    STATUS_INFO => Some(FenceKind::Status),
                    ANCHORS_INFO => Some(FenceKind::Anchors),
                    NCU_CHECK_INFO => Some(FenceKind::NcuCheck),
                    _ => None,
                };
                current = kind.map(|k| (k, range.start, String::new(), None, Vec::new()));
            }
            Event::Text(text) => {
                if let Some((_, _, body, start, pieces)) = current.as_mut() {
                    start.get_or_insert(range.start);
                    pieces.push((body.len(), range.start));
                    body.push_str(&text);
                }
            }
            Event::End(TagEnd::CodeBlock) => {
                if let Some((kind, block_start, body, start, pieces)) = current.take() {
                    let block_end = trim_trailing_newline(markdown, range.end);
                    let unclosed = !has_closing_fence(&markdown[block_start..block_end]);
                    fences.push(Fence {
                        kind,
                        block: block_start..block_end,
                        body_start: start.unwrap_or(block_start),
                        body,
                        pieces,
                        unclosed,
                    });
                }
            }
            _ => {}
        }
    }
    fences
}

fn trim_trailing_newline(text: &str, end: usize) -> usize {
    let mut end = end.min(text.len());
    while end > 0 && matches!(text.as_bytes()[end - 1], b'\n' | b'\r') {
        end -= 1;
    }
    end
}

#[cfg(test)]
#[path = "fence_tests.rs"]
mod tests;
