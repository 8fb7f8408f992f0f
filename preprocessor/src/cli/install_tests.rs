//! Tests of `install`.

use super::*;

fn write_stylesheet(dir: &Path) -> anyhow::Result<Option<String>> {
    plan_stylesheet(dir)?.map(|s| s.write(dir)).transpose()
}

fn configured(text: &str) -> (String, Vec<String>) {
    let mut doc: DocumentMut = text.parse().unwrap();
    let changes = configure(&mut doc).unwrap();
    (doc.to_string(), changes)
}

#[test]
fn a_fresh_book_toml_gets_the_preprocessor_and_the_stylesheet() {
    let (text, changes) = configured("[book]\ntitle = \"My course\"\n");
    assert_eq!(changes.len(), 2, "{changes:?}");
    let parsed: toml::Table = toml::from_str(&text).unwrap();
    assert_eq!(
        parsed["preprocessor"]["gpulab"]["command"].as_str(),
        Some("mdbook-gpulab")
    );
    assert_eq!(
        parsed["output"]["html"]["additional-css"][0].as_str(),
        Some(CSS_PATH)
    );
    assert!(
        text.starts_with("[book]\ntitle = \"My course\"\n"),
        "{text}"
    );
}

#[test]
fn existing_settings_and_comments_are_kept_and_a_second_run_changes_nothing() {
    let original = "# my book\n[book]\ntitle = \"t\"\n\n[preprocessor.gpulab]\ncommand = \"cargo run --\" # mine\n\n[output.html]\nadditional-css = [\"custom.css\"]\ndefault-theme = \"navy\"\n";
    let (text, changes) = configured(original);
    assert_eq!(changes.len(), 1, "only the stylesheet: {changes:?}");
    assert!(text.contains("command = \"cargo run --\" # mine"), "{text}");
    assert!(text.contains("# my book"), "{text}");
    assert!(
        text.contains(&format!("[\"custom.css\", \"{CSS_PATH}\"]")),
        "{text}"
    );
    let (again, changes) = configured(&text);
    assert!(changes.is_empty(), "{changes:?}");
    assert_eq!(again, text);
}

/// `install` replaced an edited theme/gpulab.css without a word: the edits are now kept.
#[test]
fn an_edited_stylesheet_is_kept_as_a_backup_before_it_is_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let first = write_stylesheet(dir.path()).unwrap().unwrap();
    assert!(first.starts_with("wrote"), "{first}");
    assert_eq!(write_stylesheet(dir.path()).unwrap(), None);
    let edited = format!("{}/* my tweak */\n", crate::render::CSS);
    fs::write(dir.path().join(CSS_PATH), &edited).unwrap();
    let again = write_stylesheet(dir.path()).unwrap().unwrap();
    assert!(again.contains(CSS_BACKUP), "{again}");
    let read = |p: &str| fs::read_to_string(dir.path().join(p)).unwrap();
    assert_eq!(read(CSS_BACKUP), edited);
    assert_eq!(read(CSS_PATH), crate::render::CSS);
}

/// `install` overwrote the file a symlinked theme/gpulab.css pointed to, outside the book.
#[test]
fn a_symlinked_stylesheet_or_theme_folder_is_refused() {
    let book = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let victim = outside.path().join("victim.css");
    fs::write(&victim, "keep").unwrap();
    fs::create_dir_all(book.path().join("theme")).unwrap();
    std::os::unix::fs::symlink(&victim, book.path().join(CSS_PATH)).unwrap();
    let err = write_stylesheet(book.path()).unwrap_err().to_string();
    assert!(err.contains("resolves outside the book"), "{err}");
    assert_eq!(fs::read_to_string(&victim).unwrap(), "keep");
    let book2 = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), book2.path().join("theme")).unwrap();
    assert!(write_stylesheet(book2.path()).is_err());
    assert!(!outside.path().join("gpulab.css").exists());
    // A link inside the book (this repository's theme/gpulab.css) is followed.
    let book3 = tempfile::tempdir().unwrap();
    fs::create_dir_all(book3.path().join("src/css")).unwrap();
    fs::create_dir_all(book3.path().join("theme")).unwrap();
    std::os::unix::fs::symlink("../src/css/g.css", book3.path().join(CSS_PATH)).unwrap();
    assert!(write_stylesheet(book3.path()).is_ok());
    assert_eq!(
        fs::read_to_string(book3.path().join("src/css/g.css")).unwrap(),
        crate::render::CSS
    );
}

#[test]
fn additional_css_that_is_not_a_list_is_reported() {
    let mut doc: DocumentMut = "[output.html]\nadditional-css = \"x.css\"\n"
        .parse()
        .unwrap();
    let err = configure(&mut doc).unwrap_err().to_string();
    assert!(err.contains("additional-css is not a list"), "{err}");
}

/// Issue 36: a dangling `theme/gpulab.css` link made `install` create the file it points to,
/// outside the book, after it had edited book.toml.
#[test]
fn a_dangling_stylesheet_link_out_of_the_book_is_refused_before_anything_is_written() {
    let book = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    fs::write(book.path().join("book.toml"), "[book]\ntitle = \"t\"\n").unwrap();
    fs::create_dir_all(book.path().join("theme")).unwrap();
    let link = book.path().join(CSS_PATH);
    std::os::unix::fs::symlink(outside.path().join("created.css"), link).unwrap();
    let err = install(book.path()).unwrap_err().to_string();
    assert!(err.contains("resolves outside the book"), "{err}");
    assert!(!outside.path().join("created.css").exists());
    let toml = fs::read_to_string(book.path().join("book.toml")).unwrap();
    assert_eq!(
        toml, "[book]\ntitle = \"t\"\n",
        "book.toml is not half-edited"
    );
    assert!(!book.path().join("kernels").exists());
}

/// Issue 36: a `theme/gpulab.css.bak` link made `install` overwrite a file outside the book.
#[test]
fn a_backup_link_out_of_the_book_is_refused() {
    let book = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    fs::write(book.path().join("book.toml"), "").unwrap();
    fs::create_dir_all(book.path().join("theme")).unwrap();
    fs::write(book.path().join(CSS_PATH), "/* edited */").unwrap();
    let victim = outside.path().join("victim");
    fs::write(&victim, "keep").unwrap();
    std::os::unix::fs::symlink(&victim, book.path().join(CSS_BACKUP)).unwrap();
    let err = install(book.path()).unwrap_err().to_string();
    assert!(
        err.contains("gpulab.css.bak resolves outside the book"),
        "{err}"
    );
    assert_eq!(fs::read_to_string(&victim).unwrap(), "keep");
    assert_eq!(
        fs::read_to_string(book.path().join(CSS_PATH)).unwrap(),
        "/* edited */"
    );
    assert_eq!(
        fs::read_to_string(book.path().join("book.toml")).unwrap(),
        ""
    );
}

/// Issue 36: install rewrote a CRLF book.toml with LF lines and dropped its byte-order mark.
#[test]
fn crlf_line_endings_and_a_byte_order_mark_are_kept() {
    let (text, changes) = edit_book_toml("\u{feff}[book]\r\ntitle = \"t\"\r\n").unwrap();
    assert_eq!(changes.len(), 2, "{changes:?}");
    assert!(text.starts_with("\u{feff}[book]\r\ntitle"), "{text:?}");
    assert!(!text.replace("\r\n", "").contains('\n'), "{text:?}");
    let (plain, _) = edit_book_toml("[book]\n").unwrap();
    assert!(
        !plain.contains('\r') && !plain.starts_with('\u{feff}'),
        "{plain:?}"
    );
}

/// Issue 36: `gpulab = "yes"` under `[preprocessor]` was "already set up".
#[test]
fn a_preprocessor_entry_that_is_not_a_table_is_refused_with_its_line() {
    let err = edit_book_toml("[book]\n\n[preprocessor]\ngpulab = \"yes\"\n")
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("line 4: `preprocessor.gpulab` is not a table"),
        "{err}"
    );
    let err = edit_book_toml("output = 3\n").unwrap_err().to_string();
    assert!(err.starts_with("line 1: `output` is not a table"), "{err}");
}
