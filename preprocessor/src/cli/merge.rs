//! `mdbook-gpulab merge DIR…`: merges other `data/` folders into the book's, the newer point winning.

use crate::record::{DataDir, Recording};
use anyhow::Context;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub(super) fn run(dir: &Path, sources: &[PathBuf]) -> anyhow::Result<ExitCode> {
    let (ws, _) = super::book::load(dir)?;
    anyhow::ensure!(!sources.is_empty(), "name at least one folder to merge");
    // Read and check every file before writing anything, by the rules `check` applies.
    let mut incoming: Vec<(PathBuf, Recording)> = Vec::new();
    let mut device_files = Vec::new();
    for src in sources {
        let data = data_folder(src)?;
        let before = (incoming.len(), device_files.len());
        for device in data.devices()? {
            device_files.extend(super::merge_files::read_shard(&data, &device)?);
            let folder = data.root().join(&device);
            let mut files: Vec<PathBuf> = std::fs::read_dir(&folder)
                .with_context(|| format!("reading {}", folder.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "json"))
                .collect();
            files.sort();
            for path in files {
                let stem = path.file_stem().unwrap_or_default().to_string_lossy();
                if let Some(rec) = data.load(&device, &stem)? {
                    incoming.push((path, rec));
                }
            }
        }
        // A wrong folder (or a shard that recorded nothing) is named, not merged as nothing.
        anyhow::ensure!(
            (incoming.len(), device_files.len()) != before,
            "{} holds no recordings: expected a data/ folder (device folders of <experiment>.json) or a copy of a book with one",
            src.display()
        );
    }
    warn_of_strangers(&ws, &incoming);
    let target = ws.data();
    let lock = target.lock()?;
    let sources: Vec<String> = incoming
        .iter()
        .map(|(from, _)| from.display().to_string())
        .collect();
    let merged = target.merge_newer(&lock, incoming.into_iter().map(|(_, r)| r).collect())?;
    let others = super::merge_files::plan(&target, device_files)?;
    // All or nothing: every file is staged before any is replaced.
    let writes = merged
        .iter()
        .map(|(path, text, _)| (path.as_path(), text.as_str()))
        .chain(others.writes.iter().map(|(p, t)| (p.as_path(), t.as_str())));
    crate::record::store::write_all_atomic(writes)?;
    for log in &others.removals {
        std::fs::remove_file(log).with_context(|| format!("removing {}", log.display()))?;
    }
    let points: usize = merged.iter().map(|(_, _, taken)| taken).sum();
    for (path, _, taken) in &merged {
        eprintln!("{}: {taken} point(s)", path.display());
    }
    for line in &others.said {
        eprintln!("{line}");
    }
    eprintln!(
        "merged {points} point(s) from {} file(s) into {} file(s){}",
        sources.len(),
        merged.len(),
        match others.said.len() {
            0 => String::new(),
            n => format!(", and {n} newer calibration, profiler-check or library-anchor file(s)"),
        }
    );
    Ok(ExitCode::SUCCESS)
}

/// Recordings of experiments this book does not have are merged, but said.
fn warn_of_strangers(ws: &crate::workspace::Workspace, incoming: &[(PathBuf, Recording)]) {
    let known = ws.experiment_names();
    let mut strangers: Vec<&str> = incoming
        .iter()
        .map(|(_, r)| r.experiment.as_str())
        .filter(|e| !known.iter().any(|k| k == e))
        .collect();
    strangers.sort_unstable();
    strangers.dedup();
    if !strangers.is_empty() {
        let named: Vec<String> = strangers.iter().map(|e| format!("`{e}`")).collect();
        eprintln!(
            "warning: this book has no experiment {}: merging their recordings anyway (no chapter shows them)",
            named.join(", ")
        );
    }
}

/// `src` itself when it holds device folders, else its `data/` (a copy of the book).
fn data_folder(src: &Path) -> anyhow::Result<DataDir> {
    anyhow::ensure!(src.is_dir(), "{} is not a folder", src.display());
    let inner = src.join("data");
    Ok(DataDir::new(match inner.is_dir() {
        true => inner,
        false => src.to_path_buf(),
    }))
}
