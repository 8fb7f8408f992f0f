//! Figures typed into a chapter's prose that equal a value its page shows (they should be inline).

use crate::diagnostic::Diagnostic;
use crate::directive::inline::prose_ranges;
use crate::source::SourceFile;
use std::ops::Range;

/// A warning for each number of `file`'s prose that equals one of `shown` (as its page shows them).
pub(super) fn literal_warnings(file: &SourceFile, shown: &[String]) -> Vec<Diagnostic> {
    let values: Vec<(f64, &String)> = shown.iter().filter_map(|s| Some((number(s)?, s))).collect();
    let mut out = Vec::new();
    for range in prose_ranges(&file.text) {
        for (span, literal) in numbers(&file.text[range.clone()]) {
            let at = range.start + span.start;
            let after = &file.text[at + literal.len()..];
            let Some(value) = number(&literal).filter(|_| significant(&literal, after)) else {
                continue;
            };
            if file.text[..at].trim_end().ends_with('=') || cites_a_source(&file.text, at) {
                continue;
            }
            let Some((_, as_shown)) = values.iter().find(|(v, _)| *v == value) else {
                continue;
            };
            let span = range.start + span.start..range.start + span.end;
            let d = file.error(
                span,
                format!("`{literal}` in the prose equals a value this page shows ({as_shown})"),
                "typed by hand",
            );
            out.push(Diagnostic {
                level: crate::diagnostic::Level::Warning,
                help: Some(
                    "write it as an inline value, `{{#gpulab EXPERIMENT variant.metric NAME=VALUE}}`, so that it follows the recordings (a paper's number stays as it is, labelled as the paper's)"
                        .into(),
                ),
                ..d
            });
        }
    }
    out
}

/// The numbers a rendered block shows: the text of each `gpulab-num` element.
pub(super) fn shown_numbers(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(at) = rest.find("gpulab-num") {
        rest = &rest[at..];
        let Some(open) = rest.find('>') else { break };
        let text = &rest[open + 1..];
        out.push(text[..text.find('<').unwrap_or(text.len())].to_string());
        rest = text;
    }
    out
}

/// A number as written or shown (`3052`, `3 052`, `1,234.5`, `−0.5`, `91.0 %`, `6.7×`).
fn number(text: &str) -> Option<f64> {
    let digits: String = text
        .trim()
        .replace('−', "-")
        .chars()
        .take_while(|c| {
            c.is_ascii_digit() || matches!(c, '.' | '-' | ',' | ' ' | '\u{202f}' | '\u{a0}')
        })
        .filter(|c| !matches!(c, ',' | ' ' | '\u{202f}' | '\u{a0}'))
        .collect();
    digits.parse().ok()
}

/// Whether a literal is specific enough to have been copied: three significant digits, or fewer
/// before `×`, `%` or "times" (`after`); not a year, a round number or a power of two.
fn significant(literal: &str, after: &str) -> bool {
    let decimal = literal.contains('.');
    let digits: String = literal.chars().filter(char::is_ascii_digit).collect();
    let n: u64 = digits.parse().unwrap_or(0);
    let year = !decimal && (1990..=2035).contains(&n);
    let trimmed = digits.trim_start_matches('0');
    let trimmed = if decimal {
        trimmed
    } else {
        trimmed.trim_end_matches('0')
    };
    let after = after.trim_start_matches([' ', '\u{a0}', '\u{202f}']);
    let ratio = decimal && ["×", "%", "times"].iter().any(|u| after.starts_with(u));
    (trimmed.len() >= 3 || ratio) && !year && (decimal || !n.is_power_of_two())
}

/// Whether the clause around byte `at` of `text` names the source of a published figure.
fn cites_a_source(text: &str, at: usize) -> bool {
    const ENDS: [&str; 4] = [". ", ".\n", "; ", "\n\n"];
    let start = ENDS
        .iter()
        .filter_map(|e| text[..at].rfind(e).map(|i| i + e.len()))
        .max()
        .unwrap_or(0);
    let end = ENDS
        .iter()
        .filter_map(|e| text[at..].find(e).map(|i| at + i))
        .min()
        .unwrap_or(text.len());
    let clause = text[start..end].to_lowercase();
    ["paper", "thesis", "article", "report", "lab's", "the lab"]
        .iter()
        .any(|w| clause.contains(w))
}

/// The numbers of a run of prose with their ranges (groups of three, decimals), not within a name.
fn numbers(text: &str) -> Vec<(Range<usize>, String)> {
    let bytes = text.as_bytes();
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if !bytes[i].is_ascii_digit() || (i > 0 && (is_word(bytes[i - 1]) || bytes[i - 1] == b'.'))
        {
            i += 1;
            continue;
        }
        let start = i;
        let mut end = digits_end(bytes, i);
        // Groups of three after a separator: `46 561`, `1,234`, `1 234` (narrow no-break space).
        loop {
            let sep = [" ", ",", "\u{202f}", "\u{a0}"]
                .iter()
                .find(|s| text[end..].starts_with(*s))
                .map(|s| s.len());
            match sep {
                Some(n)
                    if end - start <= 3
                        || text[start..end].contains(|c: char| !c.is_ascii_digit()) =>
                {
                    let group = digits_end(bytes, end + n);
                    if group - (end + n) != 3 {
                        break;
                    }
                    end = group;
                }
                _ => break,
            }
        }
        if bytes.get(end) == Some(&b'.') && bytes.get(end + 1).is_some_and(u8::is_ascii_digit) {
            end = digits_end(bytes, end + 1);
        }
        i = end;
        if bytes.get(end).is_some_and(|b| is_word(*b)) {
            continue;
        }
        out.push((start..end, text[start..end].to_string()));
    }
    out
}

fn digits_end(bytes: &[u8], mut i: usize) -> usize {
    while bytes.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    i
}

#[cfg(test)]
#[path = "prose_literals_tests.rs"]
mod tests;
