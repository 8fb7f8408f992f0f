//! mdBook's `[context, book]` JSON of mdBook 0.4 or 0.5, read as 0.5 and written back as it came.

use anyhow::{Context, bail};
use mdbook_preprocessor::PreprocessorContext;
use mdbook_preprocessor::book::Book;
use serde_json::{Map, Value};

/// The mdBook versions this preprocessor speaks, for messages.
pub(super) const SUPPORTED: &str = "mdBook 0.4.x (0.4.52 tested) and 0.5.x";

/// Which book JSON the calling mdBook reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Dialect {
    /// mdBook 0.4: `{"sections": [...], "__non_exhaustive": null}`.
    V04,
    /// mdBook 0.5: `{"items": [...]}`.
    V05,
}

impl Dialect {
    /// The dialect of `mdbook_version` ("0.4.52"), or one line saying which versions work.
    pub(super) fn of(mdbook_version: &str) -> anyhow::Result<Dialect> {
        let mut parts = mdbook_version.trim().split('.');
        let major = parts.next().and_then(|p| p.parse::<u64>().ok());
        let minor = parts.next().and_then(|p| p.parse::<u64>().ok());
        match (major, minor) {
            (Some(0), Some(4)) => Ok(Dialect::V04),
            (Some(0), Some(5)) => Ok(Dialect::V05),
            _ => bail!(
                "mdbook-gpulab works with {SUPPORTED}; this is mdBook {mdbook_version}: install a supported mdBook (`cargo install mdbook --version 0.5.4`)"
            ),
        }
    }
}

/// Keys of the 0.5 config tables (which reject unknown keys); anything else in a 0.4 config is dropped.
const BOOK_KEYS: &[&str] = &[
    "title",
    "authors",
    "description",
    "src",
    "language",
    "text-direction",
];
const BUILD_KEYS: &[&str] = &[
    "build-dir",
    "create-missing",
    "use-default-preprocessors",
    "extra-watch-dirs",
];
const TOP_KEYS: &[&str] = &["book", "build", "rust", "output", "preprocessor"];

fn keep_only(value: &mut Value, keys: &[&str]) {
    if let Value::Object(map) = value {
        map.retain(|k, _| keys.contains(&k.as_str()));
    }
}

/// Parses mdBook's stdin: the context, the book, and the dialect to answer in.
pub(super) fn parse(input: &str) -> anyhow::Result<(PreprocessorContext, Book, Dialect)> {
    let value: Value =
        serde_json::from_str(input).context("reading mdBook's input on stdin: not JSON")?;
    let Value::Array(mut pair) = value else {
        bail!("reading mdBook's input on stdin: not a [context, book] array");
    };
    if pair.len() != 2 {
        bail!("reading mdBook's input on stdin: not a [context, book] array");
    }
    let mut book = pair.pop().unwrap_or_default();
    let mut ctx = pair.pop().unwrap_or_default();
    let version = ctx
        .get("mdbook_version")
        .and_then(Value::as_str)
        .unwrap_or("unknown")
        .to_string();
    let dialect = Dialect::of(&version)?;
    if dialect == Dialect::V04 {
        if let Some(config) = ctx.get_mut("config") {
            keep_only(config, TOP_KEYS);
            if let Some(b) = config.get_mut("book") {
                keep_only(b, BOOK_KEYS);
            }
            if let Some(b) = config.get_mut("build") {
                keep_only(b, BUILD_KEYS);
            }
        }
        if let Value::Object(map) = &mut book {
            map.remove("__non_exhaustive");
            if let Some(sections) = map.remove("sections") {
                map.insert("items".into(), sections);
            }
        }
    }
    let ctx: PreprocessorContext = serde_json::from_value(ctx)
        .with_context(|| format!("reading the context from mdBook {version}"))?;
    let book: Book = serde_json::from_value(book)
        .with_context(|| format!("reading the book from mdBook {version}"))?;
    Ok((ctx, book, dialect))
}

/// The processed book as JSON for the calling mdBook.
pub(super) fn to_json(book: &Book, dialect: Dialect) -> anyhow::Result<Value> {
    let mut value = serde_json::to_value(book).context("serialising the book")?;
    if dialect == Dialect::V04
        && let Value::Object(map) = &mut value
    {
        let items = map.remove("items").unwrap_or(Value::Array(Vec::new()));
        let mut out = Map::new();
        out.insert("sections".into(), items);
        out.insert("__non_exhaustive".into(), Value::Null);
        value = Value::Object(out);
    }
    Ok(value)
}

#[cfg(test)]
#[path = "mdbook_json_tests.rs"]
mod tests;
