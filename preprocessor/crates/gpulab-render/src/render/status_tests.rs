//! Tests of `status`.

use super::*;

#[test]
fn hrefs() {
    assert_eq!(chapter_href("part1/widuch.md", None), "part1/widuch.html");
    assert_eq!(
        chapter_href("part1/widuch.md", Some(Path::new("status.md"))),
        "part1/widuch.html"
    );
    assert_eq!(
        chapter_href("part1/widuch.md", Some(Path::new("a/b/status.md"))),
        "../../part1/widuch.html"
    );
    assert_eq!(chapter_href("README.md", None), "index.html");
    assert_eq!(chapter_href("part2/README.md", None), "part2/index.html");
}

#[test]
fn combined_states() {
    use StatusState::*;
    assert_eq!(StatusState::combine([]), None);
    assert_eq!(StatusState::combine([Recorded, Recorded]), Some(Recorded));
    assert_eq!(StatusState::combine([Recorded, Pending]), Some(Partial));
    assert_eq!(StatusState::combine([Pending, Pending]), Some(Pending));
    assert_eq!(StatusState::combine([Pending, Stale]), Some(Stale));
    assert_eq!(StatusState::combine([Stale, Failed]), Some(Failed));
}
