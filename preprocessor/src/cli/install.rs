//! `mdbook-gpulab install [BOOK]`: sets up an mdBook for gpulab; a second run changes nothing.

use anyhow::Context;
use std::fs;
use std::path::Path;
use std::process::ExitCode;
use toml_edit::{Array, DocumentMut, Item, Table, value};

/// Where the stylesheet goes, relative to the book root (also the `additional-css` entry).
pub(super) const CSS_PATH: &str = "theme/gpulab.css";

pub(super) fn run(dir: &Path) -> anyhow::Result<ExitCode> {
    super::book::require_book(dir)?;
    let changes = install(dir)?;
    for c in &changes {
        eprintln!("{c}");
    }
    if changes.is_empty() {
        eprintln!("{}: already set up for mdbook-gpulab", dir.display());
    } else {
        eprintln!(
            "next: add a kernel and its spec under kernels/ (see \"Adding an experiment\"), a ```gpulab directive to a chapter, then `mdbook build`"
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Sets up the book at `dir`; returns what it changed, one line each. Everything is checked before
/// anything is written, and book.toml last, so a failure leaves no dangling stylesheet entry.
pub(super) fn install(dir: &Path) -> anyhow::Result<Vec<String>> {
    let toml_path = dir.join("book.toml");
    let text = fs::read_to_string(&toml_path)
        .with_context(|| format!("reading {}", toml_path.display()))?;
    let (edited, mut changes) =
        edit_book_toml(&text).with_context(|| format!("{}", toml_path.display()))?;
    let style = plan_stylesheet(dir)?;
    let folders: Vec<&str> = ["kernels", "data"]
        .into_iter()
        .filter(|f| !dir.join(f).is_dir())
        .collect();
    let toml_changes = edited != text;
    let written = toml_changes.then(|| toml_path.clone());
    for path in folders.iter().map(|f| dir.join(f)).chain(written) {
        confined(dir, &path)?;
    }

    if let Some(style) = style {
        changes.push(style.write(dir)?);
    }
    for folder in folders {
        let path = dir.join(folder);
        fs::create_dir_all(&path).with_context(|| format!("creating {}", path.display()))?;
        // git records no empty folder.
        let keep = path.join(".gitkeep");
        fs::write(&keep, "").with_context(|| format!("writing {}", keep.display()))?;
        changes.push(format!("created {folder}/"));
    }
    if toml_changes {
        fs::write(&toml_path, &edited)
            .with_context(|| format!("writing {}", toml_path.display()))?;
    }
    Ok(changes)
}

/// Refuses a path that resolves outside the book (a link would have `install` write there).
fn confined(dir: &Path, path: &Path) -> anyhow::Result<()> {
    anyhow::ensure!(
        crate::confine::is_inside(path, &[dir]),
        "{} resolves outside the book (a symbolic link?): install writes only inside the book",
        path.display()
    );
    Ok(())
}

/// `text` (book.toml) with the preprocessor and the stylesheet added, keeping its line endings and BOM.
fn edit_book_toml(text: &str) -> anyhow::Result<(String, Vec<String>)> {
    let (bom, body) = match text.strip_prefix('\u{feff}') {
        Some(body) => ("\u{feff}", body),
        None => ("", text),
    };
    let parsed = toml_edit::Document::parse(body)?;
    check_shapes(&parsed, body)?;
    let mut doc = parsed.into_mut();
    let changes = configure(&mut doc)?;
    let mut out = doc.to_string();
    if body.contains("\r\n") {
        out = out.replace("\r\n", "\n").replace('\n', "\r\n");
    }
    Ok((format!("{bom}{out}"), changes))
}

/// A key of book.toml the edit goes through, what it must be, and the test of it.
type Shape = (&'static [&'static str], &'static str, fn(&Item) -> bool);

/// Every table and list the edit goes through is what it must be; else an error naming its line.
fn check_shapes(parsed: &toml_edit::Document<&str>, body: &str) -> anyhow::Result<()> {
    const SHAPES: [Shape; 5] = [
        (&["preprocessor"], "a table", Item::is_table),
        (&["preprocessor", "gpulab"], "a table", Item::is_table_like),
        (&["output"], "a table", Item::is_table),
        (&["output", "html"], "a table", Item::is_table),
        (
            &["output", "html", "additional-css"],
            "a list",
            Item::is_array,
        ),
    ];
    for (keys, shape, is) in SHAPES {
        let mut item = Some(parsed.as_item());
        for key in keys {
            item = item.and_then(|i| i.get(key));
        }
        if let Some(item) = item.filter(|i| !is(i)) {
            let line = item
                .span()
                .map_or(0, |s| 1 + body[..s.start].matches('\n').count());
            let fix = match keys {
                ["preprocessor", "gpulab"] => {
                    ": replace it with a `[preprocessor.gpulab]` table (install adds one)"
                }
                _ => "",
            };
            anyhow::bail!("line {line}: `{}` is not {shape}{fix}", keys.join("."));
        }
    }
    Ok(())
}

/// Where a stylesheet that differs from this version's is kept before it is replaced.
pub(super) const CSS_BACKUP: &str = "theme/gpulab.css.bak";

/// This version's stylesheet to write, and the one it replaces (kept as [`CSS_BACKUP`]).
struct Stylesheet {
    found: Option<String>,
}

/// Whether [`CSS_PATH`] needs this version's stylesheet (it and [`CSS_BACKUP`] confined to the book).
fn plan_stylesheet(dir: &Path) -> anyhow::Result<Option<Stylesheet>> {
    let css = dir.join(CSS_PATH);
    confined(dir, &css)?;
    let found = fs::read_to_string(&css).ok();
    if found.as_deref() == Some(crate::render::CSS) {
        return Ok(None);
    }
    if found.is_some() {
        confined(dir, &dir.join(CSS_BACKUP))?;
    }
    Ok(Some(Stylesheet { found }))
}

impl Stylesheet {
    /// Writes this version's stylesheet to [`CSS_PATH`], first copying one that differs to [`CSS_BACKUP`].
    fn write(self, dir: &Path) -> anyhow::Result<String> {
        let css = dir.join(CSS_PATH);
        fs::create_dir_all(css.parent().unwrap_or(dir))
            .with_context(|| format!("creating the folder of {}", css.display()))?;
        let kept = match &self.found {
            Some(old) => {
                let backup = dir.join(CSS_BACKUP);
                fs::write(&backup, old).with_context(|| format!("writing {}", backup.display()))?;
                format!(
                    "; the previous one is kept as {CSS_BACKUP} (put your own rules in a stylesheet of \
                     your own, listed in additional-css: this one is replaced on every install)"
                )
            }
            None => String::new(),
        };
        fs::write(&css, crate::render::CSS)
            .with_context(|| format!("writing {}", css.display()))?;
        let verb = match self.found {
            Some(_) => "updated",
            None => "wrote",
        };
        Ok(format!(
            "{verb} {CSS_PATH} (tables, charts and badges, light and dark themes){kept}"
        ))
    }
}

/// Adds `[preprocessor.gpulab]` and the stylesheet to `additional-css`, keeping everything else.
fn configure(doc: &mut DocumentMut) -> anyhow::Result<Vec<String>> {
    let mut changes = Vec::new();
    let preprocessors = table(doc.as_table_mut(), "preprocessor")?;
    if !preprocessors.contains_key("gpulab") {
        let mut gpulab = Table::new();
        gpulab["command"] = value("mdbook-gpulab");
        gpulab.decor_mut().set_prefix(
            "\n# Runs CUDA experiments and renders their tables and charts (mdbook-gpulab).\n",
        );
        preprocessors.insert("gpulab", Item::Table(gpulab));
        changes.push("added [preprocessor.gpulab] to book.toml".to_string());
    }
    let output = table(doc.as_table_mut(), "output")?;
    let html = table(output, "html")?;
    let css = html
        .entry("additional-css")
        .or_insert_with(|| value(Array::new()));
    let list = css
        .as_array_mut()
        .context("book.toml: output.html.additional-css is not a list")?;
    let listed = list.iter().any(|v| {
        v.as_str()
            .is_some_and(|s| Path::new(s.trim_start_matches("./")) == Path::new(CSS_PATH))
    });
    if !listed {
        list.push(CSS_PATH);
        changes.push(format!(
            "added {CSS_PATH} to [output.html] additional-css in book.toml"
        ));
    }
    Ok(changes)
}

/// The sub-table `key` of `parent`, created (without a header of its own) when missing.
fn table<'a>(parent: &'a mut Table, key: &str) -> anyhow::Result<&'a mut Table> {
    let item = parent.entry(key).or_insert_with(|| {
        let mut t = Table::new();
        t.set_implicit(true);
        Item::Table(t)
    });
    item.as_table_mut()
        .with_context(|| format!("book.toml: `{key}` is not a table"))
}

#[cfg(test)]
mod tests {
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
}
