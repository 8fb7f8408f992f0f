//! The code beside a result: a collapsed `<details>` with the spec and kernel sources, highlighted.

use super::html::{escape, escape_pre};
use crate::results::view::CodeFile;
use std::fmt::Write as _;

/// `<details id="{anchor}-code">` with one block (or link) per file, as one HTML block.
pub fn code_html(anchor: &str, files: &[CodeFile]) -> String {
    if files.is_empty() {
        return String::new();
    }
    let names: Vec<String> = files
        .iter()
        .map(|f| format!("<code>{}</code>", escape(&f.name)))
        .collect();
    let mut out = format!(
        "<details class=\"gpulab-code\" id=\"{}-code\"><summary>The code behind this result: {}</summary>",
        escape(anchor),
        names.join(", ")
    );
    for (i, f) in files.iter().enumerate() {
        let _ = match &f.listed_at {
            Some(id) => write!(
                out,
                "<div class=\"gpulab-code-file\"><div class=\"gpulab-code-name\">{}</div>\
                 <p class=\"gpulab-code-same\">The same file as in <a href=\"#{}\">the code of \
                 an earlier result on this page</a>.</p></div>",
                escape(&f.name),
                escape(id)
            ),
            None => write!(
                out,
                "<div class=\"gpulab-code-file\" id=\"{}\"><div class=\"gpulab-code-name\">{}</div>\
                 <pre><code class=\"language-{}\">{}</code></pre></div>",
                escape(&file_id(anchor, i)),
                escape(&f.name),
                f.language,
                escape_pre(&f.text)
            ),
        };
    }
    out.push_str("</details>");
    out
}

/// The `id` of the `index`-th file listed in directive `anchor`'s code box.
pub fn file_id(anchor: &str, index: usize) -> String {
    format!("{anchor}-code-{}", index + 1)
}

#[cfg(test)]
#[path = "code_tests.rs"]
mod tests;
