//! Every user-supplied string that reaches HTML is escaped: spec titles, notes and variant labels,
//! directive and table/chart titles, claim text, paper metadata, device names and failure messages
//! from recordings, and error messages. Element and attribute injection are both tried.

use crate::common;

use common::{BookCopy, main_element};
use snapbox::cmd::{Command, cargo_bin};

/// Opens elements, breaks out of double- and single-quoted attributes.
const PAYLOAD: &str = "<script>alert(1)</script><img src=x onerror=alert(2)>\" onmouseover=\"alert(3)' onfocus='alert(4)";

fn toml_str(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

/// The fixture book with the payload in every place a user's text reaches a page.
fn hostile_book() -> BookCopy {
    let book = BookCopy::new("basic");
    let spec = "kernels/scale/experiment.toml";
    book.edit(
        spec,
        "title = \"Scale a vector\"",
        &format!(
            "title = {}\nnotes = {}",
            toml_str(PAYLOAD),
            toml_str(PAYLOAD)
        ),
    );
    book.edit(
        spec,
        "label = \"One thread per element\"",
        &format!("label = {}", toml_str(PAYLOAD)),
    );
    let chapter = "src/chapter.md";
    book.edit(
        chapter,
        "title = \"Scale: time and bandwidth\"",
        &format!("title = {}", toml_str(PAYLOAD)),
    );
    book.edit(
        chapter,
        "chart = { kind = \"bar\", x = \"N\", y = \"time_ms\", series = \"variant\" }",
        &format!(
            "chart = {{ kind = \"bar\", x = \"N\", y = \"time_ms\", series = \"variant\", title = {} }}\ntable = {{ title = {} }}",
            toml_str(PAYLOAD),
            toml_str(PAYLOAD)
        ),
    );
    // An invalid claim and an invalid experiment name: their error messages quote the payload.
    book.edit(
        chapter,
        "experiment = \"copy\"",
        &format!("experiment = \"copy\"\nexpect = [{}]", toml_str(PAYLOAD)),
    );
    let chapter_text =
        book.read(chapter) + &format!("\n```gpulab\nexperiment = {}\n```\n", toml_str(PAYLOAD));
    book.write(chapter, &chapter_text);
    let rec = "data/test-device/scale.json";
    book.edit(
        rec,
        "\"name\": \"Synthetic Test GPU (not a measurement)\"",
        &format!("\"name\": {}", json_str(PAYLOAD)),
    );
    book.edit(
        rec,
        "\"message\": \"y[17] = 0.5 but the reference gives 1 (synthetic failure)\"",
        &format!("\"message\": {}", json_str(PAYLOAD)),
    );
    let paper = "data/papers/demo/table1.csv";
    let csv = book
        .read(paper)
        .replace("# gpu: Imaginary GPU", &format!("# gpu: {PAYLOAD}"))
        .replace(
            "# source: made up",
            &format!("# note: {PAYLOAD}\n# source: made up"),
        );
    book.write(paper, &csv);
    book
}

/// Every tag of `html` as (name, attribute names), read the way a browser tokenises them
/// (quoted attribute values skipped whole), so escaped text is never mistaken for markup.
fn tags(html: &str) -> Vec<(String, Vec<String>)> {
    let b = html.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'<' || !b.get(i + 1).is_some_and(|c| c.is_ascii_alphabetic()) {
            i += 1;
            continue;
        }
        i += 1;
        let start = i;
        while i < b.len() && !b[i].is_ascii_whitespace() && b[i] != b'>' && b[i] != b'/' {
            i += 1;
        }
        let name = html[start..i].to_ascii_lowercase();
        let mut attrs = Vec::new();
        while i < b.len() && b[i] != b'>' {
            if b[i].is_ascii_whitespace() || b[i] == b'/' {
                i += 1;
                continue;
            }
            let a = i;
            while i < b.len() && !b[i].is_ascii_whitespace() && !b"=>/".contains(&b[i]) {
                i += 1;
            }
            attrs.push(html[a..i].to_ascii_lowercase());
            if i < b.len() && b[i] == b'=' {
                i += 1;
                match b.get(i) {
                    Some(&q) if q == b'"' || q == b'\'' => {
                        i += 1;
                        while i < b.len() && b[i] != q {
                            i += 1;
                        }
                        i += 1;
                    }
                    _ => {
                        while i < b.len() && !b[i].is_ascii_whitespace() && b[i] != b'>' {
                            i += 1;
                        }
                    }
                }
            }
        }
        out.push((name, attrs));
    }
    out
}

fn assert_escaped(page: &str, html: &str, expect_payload: bool) {
    // The one script a page may hold is ours, verbatim: the one after each chart that makes its
    // hover tips titles. Any other <script> is an injection.
    let main = main_element(html).replace(mdbook_gpulab::render::chart::TIPS_SCRIPT, "");
    for (name, attrs) in tags(&main) {
        assert!(
            !matches!(name.as_str(), "script" | "img" | "iframe"),
            "{page}: an injected <{name}> element:\n{main}"
        );
        for a in attrs {
            assert!(
                !a.starts_with("on"),
                "{page}: an injected `{a}` attribute in <{name}>:\n{main}"
            );
        }
    }
    if expect_payload {
        assert!(
            main.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
            "{page}: the payload should be shown, escaped:\n{main}"
        );
    }
}

#[test]
fn the_tag_reader_sees_injection_and_ignores_escaped_text() {
    let ok = "<p title=\"a&quot; onmouseover=&quot;x\">&lt;script&gt; \" onfocus='y'</p>";
    assert_eq!(tags(ok), [("p".to_string(), vec!["title".to_string()])]);
    let bad = "<p title=\"a\" onmouseover=\"x\"><script>1</script>";
    let t = tags(bad);
    assert_eq!(t[0].1, ["title", "onmouseover"]);
    assert_eq!(t[1].0, "script");
}

#[test]
fn user_strings_are_escaped_against_element_and_attribute_injection() {
    let book = hostile_book();
    let out = Command::new(cargo_bin!("mdbook-gpulab"))
        .args(["build", "--mode", "recorded"])
        .arg(&book.root)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let html = book.read("out/chapter.html");
    assert_escaped("chapter.html", &html, true);
    // The error boxes are there (and escaped, above).
    assert!(html.contains("Invalid gpulab directive"), "{html}");
    let status = book.read("out/status.html");
    assert_escaped("status.html", &status, false);
}
