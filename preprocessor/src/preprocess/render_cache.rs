//! Rendered blocks kept between builds that run no kernels (`<cache>/render/`): a block whose text,
//! place and inputs (fingerprinted as build tools do: data, kernels, theme, this binary, the options)
//! are unchanged reuses its HTML and reports. One slot file per block's place, overwritten on a miss.

use super::render_one::Rendered;
use crate::directive::fence::FenceKind;
use crate::workspace::{FoundDirective, Workspace};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// Bumped whenever what a slot holds, or what its key covers, changes.
const FORMAT: &str = "gpulab-render-cache-1";

/// Folders below this depth are not hashed (a symlink loop must not hang a build).
const MAX_DEPTH: usize = 16;

/// The cache of one build: where slots live, the digest of the shared inputs, and its kernels folder.
pub(super) struct RenderCache {
    dir: PathBuf,
    shared: [u8; 32],
    kernels: PathBuf,
}

/// One block's slot file and the key its stored rendering must carry to be reused.
pub(super) struct Slot {
    file: PathBuf,
    key: String,
}

/// What a slot file holds.
#[derive(Serialize, Deserialize)]
struct Stored {
    key: String,
    rendered: Rendered,
}

impl RenderCache {
    /// The cache of a build of `ws`; `None` when this binary cannot be identified (nothing is reused).
    pub(super) fn open(ws: &Workspace) -> Option<RenderCache> {
        let exe = std::env::current_exe().ok()?;
        let meta = std::fs::metadata(&exe).ok()?;
        meta.modified().ok()?;
        let mut h = Sha256::new();
        h.update(FORMAT);
        field(&mut h, env!("CARGO_PKG_VERSION"));
        field(&mut h, &format!("{} {}", exe.display(), fingerprint(&meta)));
        field(&mut h, &ws.root.display().to_string());
        field(&mut h, &format!("{:?}", ws.config));
        let book_toml = std::fs::metadata(ws.root.join("book.toml"));
        let book_toml = book_toml.map(|m| fingerprint(&m)).unwrap_or_default();
        field(&mut h, &book_toml);
        let dir = ws.config.cache_dir(&ws.root).join("render");
        let mut seen = HashSet::new();
        for tree in [
            ws.config.data_dir(&ws.root),
            ws.config.kernels_dir(&ws.root),
            ws.root.join("theme"),
        ] {
            hash_tree(&mut h, (&tree, &tree, &dir), 0, &mut seen);
        }
        Some(RenderCache {
            dir,
            shared: h.finalize().into(),
            kernels: crate::results::code::lexical(&ws.config.kernels_dir(&ws.root)),
        })
    }

    /// The slot of `f`, the `nth` block of its chapter, with its `earlier` listings; `None` for a
    /// directive that did not parse and a status block (built from every directive's row).
    pub(super) fn slot(
        &self,
        f: &FoundDirective,
        nth: usize,
        earlier: &HashMap<PathBuf, String>,
    ) -> Option<Slot> {
        let mut key = Sha256::new();
        key.update(self.shared);
        field(&mut key, &f.chapter_name);
        field(&mut key, &f.fence.body);
        match f.fence.kind {
            FenceKind::Experiment | FenceKind::Inline => {
                let (d, exp) = f.parsed.as_ref().ok()?;
                let kind = format!("{:?} {}", f.fence.kind, d.location.index);
                field(&mut key, &kind);
                let mut listed: Vec<_> = earlier.iter().collect();
                listed.sort();
                field(&mut key, &format!("{listed:?}"));
                // Code outside the kernels folder (the kernels folder is in the shared digest).
                let mut dirs: Vec<PathBuf> = crate::results::code::code_paths(exp, d)
                    .iter()
                    .filter_map(|p| p.parent().map(Path::to_path_buf))
                    .filter(|dir| !dir.starts_with(&self.kernels))
                    .collect();
                dirs.sort();
                dirs.dedup();
                for dir in dirs {
                    // The folder's own files only (MAX_DEPTH: no subfolders).
                    hash_tree(
                        &mut key,
                        (&dir, &dir, &self.dir),
                        MAX_DEPTH,
                        &mut HashSet::new(),
                    );
                }
            }
            FenceKind::Anchors => field(&mut key, "anchors"),
            FenceKind::NcuCheck => field(&mut key, "ncu-check"),
            FenceKind::Status => return None,
        }
        let mut place = Sha256::new();
        field(&mut place, &f.chapter_path.display().to_string());
        field(&mut place, &nth.to_string());
        Some(Slot {
            file: self.dir.join(format!("{}.json", hex(&place.finalize()))),
            key: hex(&key.finalize()),
        })
    }

    /// The rendering stored in `slot`, if it was made from the same inputs.
    pub(super) fn get(&self, slot: &Slot) -> Option<Rendered> {
        let text = std::fs::read(&slot.file).ok()?;
        let stored: Stored = serde_json::from_slice(&text).ok()?;
        (stored.key == slot.key).then_some(stored.rendered)
    }

    /// Stores `rendered` in `slot` through a renamed temporary file; a failure is ignored.
    pub(super) fn put(&self, slot: &Slot, rendered: &Rendered) {
        let stored = Stored {
            key: slot.key.clone(),
            rendered: rendered.clone(),
        };
        let Ok(json) = serde_json::to_vec(&stored) else {
            return;
        };
        let tmp = slot
            .file
            .with_extension(format!("tmp{}", std::process::id()));
        let written = std::fs::create_dir_all(&self.dir)
            .and_then(|()| ignore_for_git(&self.dir))
            .and_then(|()| std::fs::write(&tmp, json))
            .and_then(|()| std::fs::rename(&tmp, &slot.file));
        if written.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
    }
}

/// Writes a `.gitignore` of `*` in the cache folder once, so git never shows the cache.
fn ignore_for_git(render_dir: &Path) -> std::io::Result<()> {
    let Some(cache) = render_dir.parent() else {
        return Ok(());
    };
    let file = cache.join(".gitignore");
    if file.exists() {
        return Ok(());
    }
    std::fs::write(
        file,
        "# Written by mdbook-gpulab: compiled kernels and rendered blocks, safe to delete.\n*\n",
    )
}

/// Adds a length-prefixed string, so that no two sequences of fields hash alike.
fn field(h: &mut Sha256, s: &str) {
    h.update((s.len() as u64).to_le_bytes());
    h.update(s);
}

/// Adds the fingerprint of every file under `dir` in name order, except under `skip` (the cache);
/// each folder is walked once by its canonical path (`seen`), so links cannot loop the walk.
fn hash_tree(
    h: &mut Sha256,
    (root, dir, skip): (&Path, &Path, &Path),
    depth: usize,
    seen: &mut HashSet<PathBuf>,
) {
    let Ok(canonical) = std::fs::canonicalize(dir) else {
        return;
    };
    if !seen.insert(canonical) {
        field(h, "walked already");
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for path in paths.into_iter().filter(|p| !p.starts_with(skip)) {
        let rel = path.strip_prefix(root).unwrap_or(&path).display();
        match std::fs::metadata(&path) {
            Ok(meta) if meta.is_dir() => {
                if depth < MAX_DEPTH {
                    field(h, &format!("dir {rel}"));
                    hash_tree(h, (root, &path, skip), depth + 1, seen);
                }
            }
            Ok(meta) => field(h, &format!("file {rel} {}", fingerprint(&meta))),
            Err(_) => field(h, &format!("file {rel} unreadable")),
        }
    }
}

/// A file's size, modification time and (on Unix) inode, which a rename within one clock tick changes.
fn fingerprint(meta: &std::fs::Metadata) -> String {
    let modified = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok());
    #[cfg(unix)]
    let inode = std::os::unix::fs::MetadataExt::ino(meta);
    #[cfg(not(unix))]
    let inode = 0;
    format!("{} {modified:?} {inode}", meta.len())
}

fn hex(digest: &[u8]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}
