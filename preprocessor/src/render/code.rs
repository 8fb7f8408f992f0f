//! The code beside a result: a collapsed `<details>` with the spec and kernel sources, as code
//! blocks mdBook's highlighter colours (`language-cpp`, `language-toml`).

use super::html::{escape, escape_pre};
use crate::results::view::CodeFile;
use std::fmt::Write as _;

/// `<details id="{anchor}-code">` with one block per file; empty when there are no files. One
/// HTML block: newlines inside the code are written `&#10;`, so Markdown never splits it.
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
    for f in files {
        let _ = write!(
            out,
            "<div class=\"gpulab-code-file\"><div class=\"gpulab-code-name\">{}</div>\
             <pre><code class=\"language-{}\">{}</code></pre></div>",
            escape(&f.name),
            f.language,
            escape_pre(&f.text)
        );
    }
    out.push_str("</details>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_block_with_escaped_code_per_file() {
        let files = vec![
            CodeFile {
                name: "kernels/k/experiment.toml".into(),
                language: "toml",
                text: "title = \"k\"\n\n[params]\n".into(),
            },
            CodeFile {
                name: "kernels/k/k.cu".into(),
                language: "cpp",
                text: "if (a < b && c) {}\n".into(),
            },
        ];
        let html = code_html("gpulab-k-1", &files);
        assert!(html.starts_with("<details class=\"gpulab-code\" id=\"gpulab-k-1-code\">"));
        assert!(
            html.contains("<code>kernels/k/experiment.toml</code>, <code>kernels/k/k.cu</code>")
        );
        assert!(html.contains("<code class=\"language-toml\">title &#x3D; &quot;k&quot;&#10;&#10;[params]&#10;</code>")
            || html.contains("<code class=\"language-toml\">title = &quot;k&quot;&#10;&#10;[params]&#10;</code>"), "{html}");
        assert!(html.contains("if (a &lt; b &amp;&amp; c) {}"), "{html}");
        assert!(
            !html.contains('\n'),
            "one line, so one Markdown HTML block: {html}"
        );
        assert_eq!(code_html("x", &[]), "");
    }
}
