//! Tests of `code`.

use super::*;

#[test]
fn one_block_with_escaped_code_per_file() {
    let files = vec![
        CodeFile {
            name: "kernels/k/experiment.toml".into(),
            language: "toml",
            text: "title = \"k\"\n\n[params]\n".into(),
            listed_at: None,
        },
        CodeFile {
            name: "kernels/k/k.cu".into(),
            language: "cpp",
            text: "if (a < b && c) {}\n".into(),
            listed_at: None,
        },
    ];
    let html = code_html("gpulab-k-1", &files);
    assert!(html.starts_with("<details class=\"gpulab-code\" id=\"gpulab-k-1-code\">"));
    assert!(
        html.contains("<div class=\"gpulab-code-file\" id=\"gpulab-k-1-code-2\">"),
        "{html}"
    );
    assert!(html.contains("<code>kernels/k/experiment.toml</code>, <code>kernels/k/k.cu</code>"));
    assert!(
        html.contains(
            "<code class=\"language-toml\">title &#x3D; &quot;k&quot;&#10;&#10;[params]&#10;</code>"
        ) || html.contains(
            "<code class=\"language-toml\">title = &quot;k&quot;&#10;&#10;[params]&#10;</code>"
        ),
        "{html}"
    );
    assert!(html.contains("if (a &lt; b &amp;&amp; c) {}"), "{html}");
    assert!(
        !html.contains('\n'),
        "one line, so one Markdown HTML block: {html}"
    );
    assert_eq!(code_html("x", &[]), "");
}

#[test]
fn a_file_listed_earlier_on_the_page_is_a_link_not_a_second_copy() {
    let files = vec![CodeFile {
        name: "kernels/k/k.cu".into(),
        language: "cpp",
        text: String::new(),
        listed_at: Some("gpulab-k-1-code-2".into()),
    }];
    let html = code_html("gpulab-k-2", &files);
    assert!(html.contains("<code>kernels/k/k.cu</code>"), "{html}");
    assert!(html.contains("<a href=\"#gpulab-k-1-code-2\">"), "{html}");
    assert!(!html.contains("<pre>"), "{html}");
}
