//! Tests of `html`.

use super::*;

#[test]
fn escapes() {
    assert_eq!(
        escape("a<b & \"c\" 'd'"),
        "a&lt;b &amp; &quot;c&quot; &#39;d&#39;"
    );
    assert_eq!(escape_pre("a,b\n1,2\n"), "a,b&#10;1,2&#10;");
}

#[test]
fn data_uri_encodes() {
    assert_eq!(
        csv_data_uri("N,t\n1,\"x y\"\n"),
        "data:text/csv;charset=utf-8,N,t%0A1,%22x%20y%22%0A"
    );
}

#[test]
fn one_block_has_no_blank_lines_or_indent() {
    let folded = one_block("<div>\n\n    <p>x</p>\n   \n\t</div>\n");
    assert_eq!(folded, "<div>\n<p>x</p>\n</div>");
}
