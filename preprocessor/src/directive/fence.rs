//! Finds `gpulab` fenced code blocks in a chapter's markdown, with their byte ranges.

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};
use std::ops::Range;

/// The info string of an experiment directive.
pub const DIRECTIVE_INFO: &str = "gpulab";
/// The info string of the reproduction-status directive.
pub const STATUS_INFO: &str = "gpulab-status";

/// What a fence asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FenceKind {
    Experiment,
    Status,
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
}

/// Every `gpulab` / `gpulab-status` fence of `markdown`, in order.
pub fn find_fences(markdown: &str) -> Vec<Fence> {
    let mut fences = Vec::new();
    let mut current: Option<(FenceKind, usize, String, Option<usize>)> = None;
    for (event, range) in Parser::new_ext(markdown, Options::all()).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) => {
                let word = info.split_whitespace().next().unwrap_or("");
                let kind = match word {
                    DIRECTIVE_INFO => Some(FenceKind::Experiment),
                    STATUS_INFO => Some(FenceKind::Status),
                    _ => None,
                };
                current = kind.map(|k| (k, range.start, String::new(), None));
            }
            Event::Text(text) => {
                if let Some((_, _, body, start)) = current.as_mut() {
                    start.get_or_insert(range.start);
                    body.push_str(&text);
                }
            }
            Event::End(TagEnd::CodeBlock) => {
                if let Some((kind, block_start, body, start)) = current.take() {
                    let block_end = trim_trailing_newline(markdown, range.end);
                    fences.push(Fence {
                        kind,
                        block: block_start..block_end,
                        body_start: start.unwrap_or(block_start),
                        body,
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
mod tests {
    use super::*;

    #[test]
    fn finds_directive_and_status_fences_with_ranges() {
        let md = "# T\n\n```gpulab\nexperiment = \"x\"\n```\n\ntext\n\n```gpulab-status\n```\n\n```rust\nfn main(){}\n```\n";
        let fences = find_fences(md);
        assert_eq!(fences.len(), 2);
        assert_eq!(fences[0].kind, FenceKind::Experiment);
        assert_eq!(fences[0].body, "experiment = \"x\"\n");
        assert_eq!(
            &md[fences[0].body_start..fences[0].body_start + 10],
            "experiment"
        );
        assert_eq!(
            &md[fences[0].block.clone()],
            "```gpulab\nexperiment = \"x\"\n```"
        );
        assert_eq!(fences[1].kind, FenceKind::Status);
        assert_eq!(fences[1].body, "");
    }

    #[test]
    fn ignores_other_languages_and_indented_code() {
        let md = "```toml\nexperiment = 1\n```\n\n    gpulab\n";
        assert!(find_fences(md).is_empty());
    }

    #[test]
    fn info_string_with_attributes_still_matches() {
        let md = "~~~gpulab {id=1}\nexperiment = \"x\"\n~~~\n";
        assert_eq!(find_fences(md).len(), 1);
    }
}
