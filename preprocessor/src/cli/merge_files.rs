//! The files beside a device's recordings that `merge` brings from a shard: the library anchors,
//! the event-overhead calibration and the Nsight Compute check (each with its log). One file per
//! device, not per point: the newer by its own date wins, and a corrupt one is never written or
//! overwritten.

use crate::record::DataDir;
use crate::results::device_files::{DEVICE_FILES, DeviceFile};
use anyhow::Context;
use chrono::{DateTime, FixedOffset};
use std::path::{Path, PathBuf};

/// A device file found in a shard, read and checked.
pub(super) struct Incoming {
    slug: String,
    file: &'static DeviceFile,
    from: PathBuf,
    date: DateTime<FixedOffset>,
    text: String,
    log: Option<String>,
}

/// The date a device file states: `Ok(None)` when it states none, an error when it is no RFC 3339
/// time (compared as instants, so `…+02:00` and `…Z` order correctly).
fn date_of(text: &str, file: &DeviceFile) -> anyhow::Result<Option<DateTime<FixedOffset>>> {
    let value: serde_json::Value = serde_json::from_str(text)?;
    let Some(date) = value.pointer(file.date) else {
        return Ok(None);
    };
    let date = date
        .as_str()
        .with_context(|| format!("`{}` is not a string", file.date))?;
    DateTime::parse_from_rfc3339(date)
        .map(Some)
        .with_context(|| format!("`{}` = \"{date}\" is not an RFC 3339 time", file.date))
}

/// The date of the book's own file of this kind; `None` when it has none (or states no date: then
/// any dated file is newer). A corrupt one is an error, checked before anything is written.
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

/// Every device file of the shard `data`, parsed as a build would (an unreadable one fails the
/// merge before anything is written).
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
                file.date
            );
            continue;
        };
        let log = match file.log {
            Some(log) => {
                let path = data.root().join(slug).join(log);
                crate::confine::is_present(&path)
                    .then(|| crate::confine::read_regular_file(&path))
                    .transpose()
                    .with_context(|| format!("reading {}", path.display()))?
            }
            None => None,
        };
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

/// Checks the book's own file of every kind `incoming` brings (parsed, dated or undated), before
/// anything is written: a corrupt one stops the merge.
pub(super) fn check_book(target: &DataDir, incoming: &[Incoming]) -> anyhow::Result<()> {
    for inc in incoming {
        book_date(target, &inc.slug, inc.file)?;
    }
    Ok(())
}

/// Writes each incoming file whose date is newer than the book's own (or that the book lacks),
/// oldest first, so the newest of several shards wins; returns the files written. Call under the
/// data lock, after [`check_book`].
pub(super) fn merge_newer(target: &DataDir, mut incoming: Vec<Incoming>) -> anyhow::Result<usize> {
    incoming.sort_by_key(|a| a.date);
    let mut written = 0;
    for inc in incoming {
        // The book's own file must be readable: a corrupt one is reported, never overwritten.
        let current = book_date(target, &inc.slug, inc.file)?;
        if current.is_some_and(|d| d >= inc.date) {
            continue;
        }
        let path = confined(target, &inc.slug, inc.file.rel)?;
        crate::record::store::write_atomic(&path, &inc.text)?;
        if let Some(log) = inc.file.log {
            let log_path = confined(target, &inc.slug, log)?;
            match &inc.log {
                Some(text) => crate::record::store::write_atomic(&log_path, text)?,
                // The book's old log would describe another run.
                None if log_path.exists() => std::fs::remove_file(&log_path)
                    .with_context(|| format!("removing {}", log_path.display()))?,
                None => {}
            }
        }
        eprintln!(
            "{}: from {} ({})",
            path.display(),
            inc.from.display(),
            inc.date.to_rfc3339()
        );
        written += 1;
    }
    Ok(written)
}

/// `data/<slug>/<rel>` of the book, its folder created, refused when it resolves outside `data/`.
fn confined(target: &DataDir, slug: &str, rel: &str) -> anyhow::Result<PathBuf> {
    crate::confine::plain_name(slug)?;
    let device = target.root().join(slug);
    let path = device.join(rel);
    let folder = path.parent().unwrap_or(Path::new("."));
    let outside = |p: &Path| p.exists() && !crate::confine::is_inside(p, &[target.root()]);
    // Checked before anything is created in it, then again for the subfolder.
    anyhow::ensure!(
        !outside(&device) && !outside(folder),
        "{} resolves outside data/ (a symlink?): not written",
        path.display()
    );
    std::fs::create_dir_all(folder).with_context(|| format!("creating {}", folder.display()))?;
    anyhow::ensure!(
        !outside(folder),
        "{} resolves outside data/ (a symlink?): not written",
        path.display()
    );
    Ok(path)
}
