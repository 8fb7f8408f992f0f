//! HTML helpers: escaping, `data:` URIs, and folding output into one CommonMark HTML block.

use std::fmt::Write as _;

/// Escapes text for an HTML text node or a double-quoted attribute value.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Escapes text for a `<pre>` on one line: newlines become `&#10;` so the block stays one line.
pub(crate) fn escape_pre(text: &str) -> String {
    escape(text).replace('\n', "&#10;")
}

/// `data:text/csv` URI for a download link: everything but unreserved characters percent-encoded.
pub(crate) fn csv_data_uri(csv: &str) -> String {
    let mut out = String::from("data:text/csv;charset=utf-8,");
    for b in csv.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~,:".contains(&b) {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// Folds rendered HTML into one CommonMark HTML block (`<pre>` content is one line, [`escape_pre`]).
pub(crate) fn one_block(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    for line in html.lines() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(line);
    }
    out
}

#[cfg(test)]
#[path = "html_tests.rs"]
mod tests;
