//! Tests of `fence`.

use super::*;

/// Issue 36: a chapter with CR-only line endings had its directives ignored.
#[test]
fn cr_only_line_endings_are_read_as_lines() {
    let md = "# T\r\r```gpulab\rexperiment = \"x\"\r```\r\r\n";
    let normal = normalise_line_endings(md);
    assert_eq!(normal, "# T\n\n```gpulab\nexperiment = \"x\"\n```\n\r\n");
    let fences = find_fences(&normal);
    assert_eq!(fences.len(), 1);
    assert!(!fences[0].unclosed);
    assert_eq!(fences[0].body, "experiment = \"x\"\n");
    assert!(matches!(normalise_line_endings("a\r\nb"), Cow::Borrowed(_)));
}

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
fn unclosed_fence_is_flagged() {
    let md = "text\n\n```gpulab\nexperiment = \"x\"\n";
    let f = find_fences(md);
    assert_eq!(f.len(), 1);
    assert!(f[0].unclosed);
    let md = "```gpulab\nexperiment = \"x\"\n```\n";
    assert!(!find_fences(md)[0].unclosed);
    let md = "````gpulab\nexperiment = \"x\"\n```\n";
    assert!(
        find_fences(md)[0].unclosed,
        "a shorter fence does not close it"
    );
    assert!(find_fences("```gpulab\n")[0].unclosed);
}

#[test]
fn crlf_and_blockquote_bodies_map_to_their_chapter_lines() {
    for md in [
        "# T\r\n\r\n```gpulab\r\nexperiment = \"x\"\r\naxes = 1\r\n```\r\n",
        "# T\n\n> ```gpulab\n> experiment = \"x\"\n> axes = 1\n> ```\n",
    ] {
        let f = &find_fences(md)[0];
        assert!(!f.unclosed, "{md:?}");
        let at = f.body.find("axes").unwrap();
        let span = f.to_chapter(at..at + 4);
        assert_eq!(&md[span.clone()], "axes", "{md:?}");
        assert_eq!(crate::diagnostic::line_col(md, span.start).0, 5, "{md:?}");
    }
}

#[test]
fn info_string_with_attributes_still_matches() {
    let md = "~~~gpulab {id=1}\nexperiment = \"x\"\n~~~\n";
    assert_eq!(find_fences(md).len(), 1);
}
