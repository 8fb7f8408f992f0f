//! Reading and writing recordings under `data/`: atomic replace, an advisory lock, typed errors.

use super::schema::{Point, Recording, SCHEMA_VERSION};
use crate::value::params_order;
use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Folder of `data/` that holds the papers' numbers, not recordings.
pub(crate) const PAPERS_DIR: &str = "papers";

/// Errors reading or writing `data/`; each names the file concerned.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write in {path}: {source} (recording needs a writable data folder)")]
    NotWritable {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not a valid recording: {message}")]
    Corrupt { path: PathBuf, message: String },
    /// A device's calibration, profiler check or library anchors that cannot be parsed.
    #[error("{path} cannot be parsed: {message}")]
    Unparsable { path: PathBuf, message: String },
    #[error("cannot write the recording {path}: {source}")]
    Encode {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("{path} is not a recording path inside data/: {why}")]
    Outside { path: PathBuf, why: String },
    #[error(
        "{path} has schema version {found}, this mdbook-gpulab reads version {expected}; re-record it"
    )]
    WrongSchema {
        path: PathBuf,
        found: u64,
        expected: u32,
    },
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> StoreError + '_ {
    move |source| StoreError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The book's `data/` folder.
#[derive(Debug, Clone)]
pub struct DataDir {
    root: PathBuf,
}

/// Holds the `data/.lock` advisory lock until dropped.
pub struct DataLock {
    _file: File,
}

impl DataDir {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        DataDir { root: root.into() }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The file holding `experiment`'s recording on `device`.
    pub fn recording_path(&self, device: &str, experiment: &str) -> PathBuf {
        self.root.join(device).join(format!("{experiment}.json"))
    }

    /// [`DataDir::recording_path`], refusing names that are not plain and files that resolve
    /// outside `data/` (a symlink): recordings are read and written only under `data/`.
    pub(crate) fn confined_path(
        &self,
        device: &str,
        experiment: &str,
    ) -> Result<PathBuf, StoreError> {
        let path = self.recording_path(device, experiment);
        let outside = |why: String| StoreError::Outside {
            path: path.clone(),
            why,
        };
        crate::confine::plain_name(device).map_err(|e| outside(e.to_string()))?;
        crate::confine::plain_name(experiment).map_err(|e| outside(e.to_string()))?;
        // Checked also for a file not written yet whose device folder exists: a folder that is a
        // symlink to elsewhere would otherwise receive it (`merge`, `record`).
        let checkable =
            crate::confine::is_present(&path) || path.parent().is_some_and(Path::exists);
        if checkable && !crate::confine::is_inside(&path, &[&self.root]) {
            return Err(outside("it resolves outside data/ (a symlink?)".into()));
        }
        Ok(path)
    }

    /// Device slugs that have a folder of recordings, sorted.
    pub fn devices(&self) -> Result<Vec<String>, StoreError> {
        let entries = match fs::read_dir(&self.root) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(io_err(&self.root)(e)),
        };
        let mut slugs = Vec::new();
        for entry in entries {
            let entry = entry.map_err(io_err(&self.root))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            // A folder whose name is no device slug (`my gpu`, made by hand) holds no recordings
            // the tool wrote: skipped, so that it cannot turn every directive into an error box.
            if entry.path().is_dir() && name != PAPERS_DIR && crate::confine::is_plain_name(&name) {
                slugs.push(name);
            }
        }
        slugs.sort();
        Ok(slugs)
    }

    /// Loads a recording; `Ok(None)` when there is none. A corrupt file is an error, never skipped.
    pub fn load(&self, device: &str, experiment: &str) -> Result<Option<Recording>, StoreError> {
        let path = self.confined_path(device, experiment)?;
        if !crate::confine::is_present(&path) {
            return Ok(None);
        }
        let text = match crate::confine::read_regular_file(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io_err(&path)(e)),
        };
        let rec = parse_recording(&path, &text)?;
        // A file copied or renamed by hand would show one experiment's numbers as another's.
        if rec.experiment != experiment || rec.device.slug != device {
            return Err(StoreError::Corrupt {
                path,
                message: format!(
                    "it holds experiment `{}` on device `{}`, not what its path says",
                    rec.experiment, rec.device.slug
                ),
            });
        }
        Ok(Some(rec))
    }

    /// Fails unless `data/` and each device folder in it accept a new file (checked before a run,
    /// so that nothing is measured only to be lost).
    pub fn check_writable(&self) -> Result<(), StoreError> {
        let not_writable = |path: &Path| {
            let path = path.to_path_buf();
            move |source| StoreError::NotWritable { path, source }
        };
        // A book that has recorded nothing yet: data/ is created by the first write, not here
        // (a run refused later, e.g. without a GPU, leaves the book as it was).
        if !self.root.exists() {
            let parent = self.root.parent().unwrap_or(Path::new("."));
            let parent = if parent.as_os_str().is_empty() {
                Path::new(".")
            } else {
                parent
            };
            tempfile::NamedTempFile::new_in(parent).map_err(not_writable(parent))?;
            return Ok(());
        }
        let mut dirs = vec![self.root.clone()];
        dirs.extend(self.devices()?.iter().map(|d| self.root.join(d)));
        for dir in dirs {
            tempfile::NamedTempFile::new_in(&dir).map_err(not_writable(&dir))?;
        }
        Ok(())
    }

    /// Every recording of `experiments` on every device, parsed: the first that cannot be read.
    pub fn check_readable(&self, experiments: &[String]) -> Result<usize, StoreError> {
        let mut read = 0;
        for device in self.devices()? {
            for e in experiments {
                read += usize::from(self.load(&device, e)?.is_some());
            }
        }
        Ok(read)
    }

    /// Takes the advisory lock that serialises writers (two builds at once).
    pub fn lock(&self) -> Result<DataLock, StoreError> {
        fs::create_dir_all(&self.root).map_err(io_err(&self.root))?;
        let path = self.root.join(".lock");
        let file = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(io_err(&path))?;
        file.lock().map_err(io_err(&path))?;
        Ok(DataLock { _file: file })
    }

    /// Merges `points` into the stored recording (replacing points with the same variant and
    /// params) and writes it atomically. Call with the lock held.
    pub fn merge_and_save(&self, lock: &DataLock, fresh: Recording) -> Result<PathBuf, StoreError> {
        let path = self.confined_path(&fresh.device.slug, &fresh.experiment)?;
        let _ = lock;
        let stored = self.load(&fresh.device.slug, &fresh.experiment)?;
        let new_file = stored.is_none();
        let (merged, taken) = merge_points(stored, fresh, |_, _| true);
        if taken > 0 || new_file {
            write_atomic(&path, &to_pretty_json(&path, &merged)?)?;
        }
        Ok(path)
    }

    /// Merges other `data/` folders' recordings point by point, writing nothing: a point is
    /// taken when this folder lacks it or holds an older recording of it (`recorded_at`).
    /// Returns each file that changes, with its new text and how many points it took, for
    /// [`write_all_atomic`]. Call with the lock held.
    pub fn merge_newer(
        &self,
        _lock: &DataLock,
        others: Vec<Recording>,
    ) -> Result<Vec<(PathBuf, String, usize)>, StoreError> {
        let mut files: indexmap::IndexMap<PathBuf, (Option<Recording>, usize)> =
            indexmap::IndexMap::new();
        for other in others {
            let path = self.confined_path(&other.device.slug, &other.experiment)?;
            let slot = match files.entry(path) {
                indexmap::map::Entry::Occupied(e) => e.into_mut(),
                indexmap::map::Entry::Vacant(e) => {
                    let stored = self.load(&other.device.slug, &other.experiment)?;
                    e.insert((stored, 0))
                }
            };
            let (merged, taken) = merge_points(slot.0.take(), other, |old, new| {
                new.recorded_at > old.recorded_at
            });
            *slot = (Some(merged), slot.1 + taken);
        }
        let mut out = Vec::new();
        for (path, (merged, taken)) in files {
            if let Some(merged) = merged.filter(|_| taken > 0) {
                let text = to_pretty_json(&path, &merged)?;
                out.push((path, text, taken));
            }
        }
        Ok(out)
    }
}

/// Merges `fresh` into `stored`: a point of `fresh` replaces the stored one of the same cell
/// where `wins(stored, fresh)`, and is added where there is none; `fresh`'s device record is kept
/// when any of its points was taken. Returns the merge, sorted, and the points taken. Linear:
/// the stored points are found through an index, not a scan per point.
fn merge_points(
    stored: Option<Recording>,
    mut fresh: Recording,
    wins: impl Fn(&Point, &Point) -> bool,
) -> (Recording, usize) {
    use super::validate::point_identity;
    let Some(mut old) = stored else {
        let taken = fresh.points.len();
        sort_points(&mut fresh.points);
        return (fresh, taken);
    };
    let mut index: std::collections::HashMap<String, usize> = old
        .points
        .iter()
        .enumerate()
        .map(|(i, p)| (point_identity(&p.variant, &p.params), i))
        .collect();
    let mut taken = 0;
    for mut p in fresh.points.drain(..) {
        match index.entry(point_identity(&p.variant, &p.params)) {
            std::collections::hash_map::Entry::Occupied(e) => {
                let slot = &mut old.points[*e.get()];
                if wins(slot, &p) {
                    keep_counters(slot, &mut p);
                    *slot = p;
                    taken += 1;
                }
            }
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(old.points.len());
                old.points.push(p);
                taken += 1;
            }
        }
    }
    if taken == 0 {
        return (old, 0);
    }
    fresh.points = old.points;
    sort_points(&mut fresh.points);
    (fresh, taken)
}

/// A re-timed point keeps the stored point's counters when they were measured on the same code
/// (same key) and it brings none: the timing pass never discards what the profiled pass recorded.
fn keep_counters(stored: &mut Point, fresh: &mut Point) {
    if fresh.counters.is_none()
        && stored
            .counters
            .as_ref()
            .is_some_and(|c| c.current_for(&fresh.key))
    {
        fresh.counters = stored.counters.take();
    }
}

fn sort_points(points: &mut [Point]) {
    points.sort_by(|a, b| {
        a.variant
            .cmp(&b.variant)
            .then_with(|| params_order(&a.params, &b.params))
    });
}

/// The recording as the file holds it; an unserialisable recording (a non-finite number in a
/// map key, say) is an error, never an empty file written over a good one.
fn to_pretty_json(path: &Path, rec: &Recording) -> Result<String, StoreError> {
    let mut s = serde_json::to_string_pretty(rec).map_err(|source| StoreError::Encode {
        path: path.to_path_buf(),
        source,
    })?;
    s.push('\n');
    Ok(s)
}

/// Parses recording text, checking the schema version first for a helpful message.
pub fn parse_recording(path: &Path, text: &str) -> Result<Recording, StoreError> {
    let corrupt = |message: String| StoreError::Corrupt {
        path: path.to_path_buf(),
        message,
    };
    let wrong_schema = |found: u64| StoreError::WrongSchema {
        path: path.to_path_buf(),
        found,
        expected: SCHEMA_VERSION,
    };
    // One pass straight into the types (the build reads every recording); only a file that does
    // not parse is read again, for its schema version, so that an old or new schema is named as
    // such rather than as a missing field.
    if let Some(why) = super::validate::oversized_string(text) {
        return Err(corrupt(why));
    }
    match serde_json::from_str::<Recording>(text) {
        Ok(rec) if rec.schema == SCHEMA_VERSION => match super::validate::implausible(&rec, text) {
            Some(why) => Err(corrupt(why)),
            None => Ok(rec),
        },
        Ok(rec) => Err(wrong_schema(u64::from(rec.schema))),
        Err(e) => {
            #[derive(serde::Deserialize)]
            struct SchemaOnly {
                schema: Option<serde_json::Value>,
            }
            match serde_json::from_str::<SchemaOnly>(text) {
                Err(_) => Err(corrupt(e.to_string())),
                Ok(SchemaOnly { schema: None }) => Err(corrupt("no `schema` version field".into())),
                Ok(SchemaOnly {
                    schema: Some(version),
                }) => match version.as_u64() {
                    Some(found) if found != u64::from(SCHEMA_VERSION) => Err(wrong_schema(found)),
                    _ => Err(corrupt(e.to_string())),
                },
            }
        }
    }
}

/// Reads a device file beside the recordings (library anchors, checks), checked against its
/// schema before it is parsed into `T`; `None` when it does not exist.
pub fn read_device_file<T: serde::de::DeserializeOwned>(
    path: PathBuf,
    schema: &super::validate::DeviceSchema,
) -> Result<Option<T>, StoreError> {
    let unparsable = |path: PathBuf, message: String| StoreError::Unparsable { path, message };
    match crate::confine::read_regular_file(&path) {
        Ok(text) => match schema.check(&text) {
            Ok(value) => serde_json::from_value(value)
                .map(Some)
                .map_err(|e| unparsable(path, e.to_string())),
            Err(message) => Err(unparsable(path, message)),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(StoreError::Io { path, source }),
    }
}

/// Writes `text` to `path` through a temporary file in the same folder and a rename, so a
/// reader (or an interrupted run) never sees a half-written file.
pub fn write_atomic(path: &Path, text: &str) -> Result<(), StoreError> {
    write_all_atomic([(path, text)])
}

/// Writes every `(path, text)` all or nothing, as far as a file system allows: each text goes to
/// a temporary file beside its path first, and only when all are written and synced are they
/// renamed into place. A failure before the renames leaves every path as it was and no
/// temporary behind.
pub fn write_all_atomic<'a>(
    files: impl IntoIterator<Item = (&'a Path, &'a str)>,
) -> Result<(), StoreError> {
    let staged = files
        .into_iter()
        .map(|(path, text)| Ok((path, stage(path, text)?)))
        .collect::<Result<Vec<_>, StoreError>>()?;
    for (path, tmp) in staged {
        tmp.persist(path).map_err(|e| write_err(path)(e.error))?;
    }
    Ok(())
}

fn write_err(path: &Path) -> impl FnOnce(std::io::Error) -> StoreError + '_ {
    move |source| StoreError::Write {
        path: path.to_path_buf(),
        source,
    }
}

/// `text` in a synced temporary file beside `path`, with the mode of the file it will replace.
fn stage(path: &Path, text: &str) -> Result<tempfile::NamedTempFile, StoreError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(write_err(dir))?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(write_err(dir))?;
    // The temporary file is created 0600; a recording is shared data: keep the mode of the file
    // it replaces, else readable by all (0644, as a file written by an editor would be).
    let mode = fs::metadata(path)
        .map(|m| m.permissions())
        .unwrap_or_else(|_| std::os::unix::fs::PermissionsExt::from_mode(0o644));
    tmp.as_file()
        .set_permissions(mode)
        .map_err(write_err(path))?;
    tmp.as_file_mut()
        .write_all(text.as_bytes())
        .map_err(write_err(path))?;
    tmp.as_file().sync_all().map_err(write_err(path))?;
    Ok(tmp)
}

#[cfg(test)]
#[path = "store_tests.rs"]
mod tests;
