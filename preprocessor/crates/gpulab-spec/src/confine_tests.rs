//! Tests of `confine`.

use super::*;

#[test]
fn plain_names() {
    for ok in ["matmul_widuch", "a-b", "x.v2", "K1"] {
        assert!(is_plain_name(ok), "{ok}");
    }
    for bad in [
        "", "../x", "a/b", ".hidden", "..", "/abs", "a\\b", "a b", "é",
    ] {
        assert!(!is_plain_name(bad), "{bad}");
    }
}

#[test]
fn folders_are_relative_without_parent_steps() {
    assert!(relative_folder(Path::new("data")).is_ok());
    assert!(relative_folder(Path::new("./shared/kernels")).is_ok());
    assert!(relative_folder(Path::new("../data")).is_err());
    assert!(relative_folder(Path::new("/tmp/data")).is_err());
    assert!(relative_folder(Path::new("a/../../b")).is_err());
    assert!(relative_folder(Path::new("")).is_err());
}

/// Issue 36: a dangling `theme/gpulab.css` link counted as inside the book (its folder is),
/// and `install` created the file it pointed to, outside.
#[cfg(unix)]
#[test]
fn a_dangling_link_resolves_to_where_it_points() {
    let book = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let link = book.path().join("theme.css");
    std::os::unix::fs::symlink(outside.path().join("new.css"), &link).unwrap();
    assert!(!is_inside(&link, &[book.path()]));
    // Through a dangling link to a dangling link, and one that stays inside.
    let twice = book.path().join("twice.css");
    std::os::unix::fs::symlink(&link, &twice).unwrap();
    assert!(!is_inside(&twice, &[book.path()]));
    let near = book.path().join("near.css");
    std::os::unix::fs::symlink("sub/new.css", &near).unwrap();
    assert!(is_inside(&near, &[book.path()]));
    let looped = book.path().join("loop.css");
    std::os::unix::fs::symlink(&looped, &looped).unwrap();
    assert!(!is_inside(&looped, &[book.path()]));
}

#[cfg(unix)]
#[test]
fn symlinks_are_followed_before_the_check() {
    let book = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret"), "x").unwrap();
    std::fs::write(book.path().join("mine"), "x").unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret"), book.path().join("link")).unwrap();
    let roots = [book.path()];
    assert!(is_inside(&book.path().join("mine"), &roots));
    assert!(!is_inside(&book.path().join("link"), &roots));
    assert!(
        is_inside(&book.path().join("new/file"), &roots),
        "not yet written"
    );
    assert!(!is_inside(&book.path().join("link/x"), &roots));
    // a folder symlinked in as a root of its own is accepted
    let shared = outside.path();
    assert!(is_inside(&book.path().join("link"), &[book.path(), shared]));
}
