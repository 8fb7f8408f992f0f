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
#[path = "install_tests.rs"]
mod tests;
