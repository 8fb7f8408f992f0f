//! The device files `merge` brings from a shard: the newer by its date wins, a corrupt one never.

use crate::record::DataDir;
use crate::results::device_files::{DEVICE_FILES, DeviceFile};
use anyhow::Context;
use chrono::{DateTime, FixedOffset};
use std::path::PathBuf;

/// A device file found in a shard, read and checked.
pub(super) struct Incoming {
    slug: String,
    file: &'static DeviceFile,
    from: PathBuf,
    date: DateTime<FixedOffset>,
    text: String,
    log: Option<String>,
}

/// The date a device file states (`None`: it states none).
fn date_of(text: &str, file: &DeviceFile) -> anyhow::Result<Option<DateTime<FixedOffset>>> {
    let value = file.schema.check(text).map_err(anyhow::Error::msg)?;
    file.schema.date(&value).map_err(anyhow::Error::msg)
}

/// The date of the book's own file of this kind (`None`: none, or undated); a corrupt one is an error.
fn book_date(
    target: &DataDir,
    slug: &str,
    file: &DeviceFile,
) -> anyhow::Result<Option<DateTime<FixedOffset>>> {
    if !(file.parse)(target, slug)? {
        return Ok(None);
    }
    let path = target.root().join(slug).join(file.rel);
    let text = crate::confine::read_regular_file(&path)
        .with_context(|| format!("reading {}", path.display()))?;
    date_of(&text, file).with_context(|| path.display().to_string())
}

/// Every device file of the shard `data`, parsed as a build would (an unreadable one fails the merge).
pub(super) fn read_shard(data: &DataDir, slug: &str) -> anyhow::Result<Vec<Incoming>> {
    let mut out = Vec::new();
    for file in &DEVICE_FILES {
        if !(file.parse)(data, slug)? {
            continue;
        }
        let from = data.root().join(slug).join(file.rel);
        let text = crate::confine::read_regular_file(&from)
            .with_context(|| format!("reading {}", from.display()))?;
        let Some(date) = date_of(&text, file).with_context(|| from.display().to_string())? else {
            eprintln!(
                "warning: {} states no date ({}): not merged",
                from.display(),
                file.schema.date
            );
            continue;
        };
        let log = file.log.map(|log| data.root().join(slug).join(log));
        let log = log
            .filter(|path| crate::confine::is_present(path))
            .map(|path| {
                crate::confine::read_regular_file(&path)
                    .with_context(|| format!("reading {}", path.display()))
            })
            .transpose()?;
        out.push(Incoming {
            slug: slug.to_string(),
            file,
            from,
            date,
            text,
            log,
        });
    }
    Ok(out)
}

/// What merging the device files changes, decided before anything is written.
#[derive(Default)]
pub(super) struct Planned {
    /// Files to write, with their texts (each device file and its log).
    pub(super) writes: Vec<(PathBuf, String)>,
    /// The book's logs to remove, which would describe another run.
    pub(super) removals: Vec<PathBuf>,
    /// One line per device file taken.
    pub(super) said: Vec<String>,
}

/// For each device and kind, the newest incoming file when newer than the book's own (which must read).
pub(super) fn plan(target: &DataDir, incoming: Vec<Incoming>) -> anyhow::Result<Planned> {
    let mut newest: std::collections::BTreeMap<(String, &str), Incoming> = Default::default();
    for inc in incoming {
        let key = (inc.slug.clone(), inc.file.rel);
        if newest.get(&key).is_none_or(|n| n.date < inc.date) {
            newest.insert(key, inc);
        }
    }
    let mut planned = Planned::default();
    for inc in newest.into_values() {
        let current = book_date(target, &inc.slug, inc.file)?;
        if current.is_some_and(|d| d >= inc.date) {
            continue;
        }
        let path = confined(target, &inc.slug, inc.file.rel)?;
        if let Some(log) = inc.file.log {
            let log_path = confined(target, &inc.slug, log)?;
            match inc.log {
                Some(text) => planned.writes.push((log_path, text)),
                None if crate::confine::is_present(&log_path) => planned.removals.push(log_path),
                None => {}
            }
        }
        planned.said.push(format!(
            "{}: from {} ({})",
            path.display(),
            inc.from.display(),
            inc.date.to_rfc3339()
        ));
        planned.writes.push((path, inc.text));
    }
    Ok(planned)
}

/// `data/<slug>/<rel>` of the book, refused when it resolves outside `data/`.
fn confined(target: &DataDir, slug: &str, rel: &str) -> anyhow::Result<PathBuf> {
    crate::confine::plain_name(slug)?;
    let path = target.root().join(slug).join(rel);
    anyhow::ensure!(
        crate::confine::is_inside(&path, &[target.root()]),
        "{} resolves outside data/ (a symlink?): not written",
        path.display()
    );
    Ok(path)
}
