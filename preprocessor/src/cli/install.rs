//! `mdbook-gpulab install [BOOK]`: sets up an existing mdBook for the preprocessor, as
//! `mdbook-admonish install` does: registers `[preprocessor.gpulab]`, writes the stylesheet where
//! mdBook serves it and lists it in `additional-css`, and creates `kernels/` and `data/`.
//! Idempotent: a second run changes nothing (an outdated stylesheet is replaced).

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
    if changes.is_empty() {
        eprintln!("{}: already set up for mdbook-gpulab", dir.display());
    } else {
        for c in &changes {
            eprintln!("{c}");
        }
        eprintln!(
            "next: add a kernel and its spec under kernels/ (see \"Adding an experiment\"), a ```gpulab directive to a chapter, then `mdbook build`"
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Sets up the book at `dir`; returns what it changed, one line each.
pub(super) fn install(dir: &Path) -> anyhow::Result<Vec<String>> {
    let mut changes = Vec::new();
    let toml_path = dir.join("book.toml");
    let text = fs::read_to_string(&toml_path)
        .with_context(|| format!("reading {}", toml_path.display()))?;
    let mut doc: DocumentMut = text
        .parse()
        .with_context(|| format!("parsing {}", toml_path.display()))?;
    changes.extend(configure(&mut doc)?);
    if !changes.is_empty() {
        fs::write(&toml_path, doc.to_string())
            .with_context(|| format!("writing {}", toml_path.display()))?;
    }

    changes.extend(write_stylesheet(dir)?);
    for folder in ["kernels", "data"] {
        let path = dir.join(folder);
        if !path.is_dir() {
            fs::create_dir_all(&path).with_context(|| format!("creating {}", path.display()))?;
            // git records no empty folder: a `.gitkeep` makes the new ones part of the book's
            // repository from the first commit.
            let keep = path.join(".gitkeep");
            fs::write(&keep, "").with_context(|| format!("writing {}", keep.display()))?;
            changes.push(format!("created {folder}/"));
        }
    }
    Ok(changes)
}

/// Where a stylesheet that differs from this version's is kept before it is replaced (a user's
/// edits, or an older version's rules).
pub(super) const CSS_BACKUP: &str = "theme/gpulab.css.bak";

/// Writes this version's stylesheet to [`CSS_PATH`]. One that differs (edited, or an older
/// version's) is first copied to [`CSS_BACKUP`], so nobody's edits are lost silently.
fn write_stylesheet(dir: &Path) -> anyhow::Result<Option<String>> {
    let css = dir.join(CSS_PATH);
    // Nothing is written outside the book: a theme/ or stylesheet linked to elsewhere would have
    // `install` overwrite a file there (a link inside the book, as this repository's, is fine).
    if !crate::confine::is_inside(&css, &[dir]) {
        anyhow::bail!(
            "{} resolves outside the book (a symbolic link?): install writes the stylesheet only inside the book",
            css.display()
        );
    }
    let found = fs::read_to_string(&css).ok();
    if found.as_deref() == Some(crate::render::CSS) {
        return Ok(None);
    }
    fs::create_dir_all(css.parent().unwrap_or(dir))
        .with_context(|| format!("creating the folder of {}", css.display()))?;
    let kept = match &found {
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
    fs::write(&css, crate::render::CSS).with_context(|| format!("writing {}", css.display()))?;
    let verb = if found.is_some() { "updated" } else { "wrote" };
    Ok(Some(format!(
        "{verb} {CSS_PATH} (tables, charts and badges, light and dark themes){kept}"
    )))
}

/// Adds `[preprocessor.gpulab]` and the stylesheet to `additional-css`, keeping everything else
/// (comments included) as it was.
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
}
