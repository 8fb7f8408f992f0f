//! NVRTC compilation with an on-disk cache (key: source, headers beside it, options, architecture,
//! NVRTC version), shared by the engine and `check`; an unreadable entry is recompiled.

use crate::gpu::{CompileError, Image, ImageKind, compile, nvrtc_version};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// Bumped whenever what an entry holds, or what its key covers, changes.
const FORMAT: &str = "gpulab-ptx-cache-2";

/// The cache file for a compilation of a source in `dir` (`None`: a version or header unreadable).
pub(crate) fn cache_path(
    cache_dir: &Path,
    source: &str,
    dir: &Path,
    options: &[String],
    arch: (u32, u32),
) -> Option<PathBuf> {
    let nvrtc = nvrtc_version().ok()?;
    let key = cache_key(nvrtc, source, dir, options, arch)?;
    Some(cache_dir.join(format!("{key}.bin")))
}

/// The cache key of a compilation; `None` when a header in `dir` cannot be read.
fn cache_key(
    (major, minor): (u32, u32),
    source: &str,
    dir: &Path,
    options: &[String],
    arch: (u32, u32),
) -> Option<String> {
    let mut h = Sha256::new();
    h.update(format!(
        "{FORMAT} nvrtc {major}.{minor} sm_{}{}\0",
        arch.0, arch.1
    ));
    h.update(source);
    h.update([0]);
    for o in crate::ptx::FIXED_COMPILE_OPTIONS
        .iter()
        .copied()
        .chain(options.iter().map(String::as_str))
    {
        h.update(o);
        h.update([0]);
    }
    // Headers beside the source (`#include "common.cuh"`) change the result too.
    let mut headers: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "cuh" || x == "h"))
        .collect();
    headers.sort();
    for p in headers {
        h.update(std::fs::read(&p).ok()?);
    }
    Some(
        h.finalize()
            .iter()
            .take(16)
            .map(|b| format!("{b:02x}"))
            .collect(),
    )
}

/// Compiles `source` (of the file `path`, `name` in NVRTC's messages), or returns the cached image.
pub fn compile_cached(
    cache_dir: &Path,
    path: &Path,
    source: &str,
    name: &str,
    options: &[String],
    arch: (u32, u32),
) -> Result<Image, CompileError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let entry = cache_path(cache_dir, source, dir, options, arch);
    if let Some(image) = entry.as_deref().and_then(|p| read_entry(p, arch)) {
        return Ok(image);
    }
    let image = compile(source, name, options, arch)?;
    if let Some(p) = &entry {
        write_entry(p, &image);
    }
    Ok(image)
}

/// An entry: `p` and the PTX, or `c`, the cubin's length (u64 LE), the cubin and its PTX.
fn read_entry(p: &Path, arch: (u32, u32)) -> Option<Image> {
    let bytes = std::fs::read(p).ok()?;
    let (&tag, body) = bytes.split_first()?;
    let (kind, image, ptx) = match tag {
        b'p' => (ImageKind::Ptx, body, None),
        b'c' => {
            let (len, rest) = body.split_first_chunk::<8>()?;
            let len = usize::try_from(u64::from_le_bytes(*len)).ok()?;
            let ptx = String::from_utf8(rest.get(len..)?.to_vec()).ok()?;
            (ImageKind::Cubin, rest.get(..len)?, Some(ptx))
        }
        _ => return None,
    };
    let image = image.to_vec();
    Some(Image::from_cache(kind, image, ptx, arch))
}

/// Writes `image` as the entry `p`, atomically; a failure only costs a later compile.
fn write_entry(p: &Path, image: &Image) {
    let mut bytes = Vec::new();
    match image.kind() {
        ImageKind::Ptx => bytes.push(b'p'),
        ImageKind::Cubin => {
            bytes.push(b'c');
            bytes.extend_from_slice(&(image.bytes().len() as u64).to_le_bytes());
        }
    }
    bytes.extend_from_slice(image.bytes());
    if image.kind() == ImageKind::Cubin {
        bytes.extend_from_slice(image.ptx().unwrap_or_default().as_bytes());
    }
    if let Some(dir) = p.parent()
        && std::fs::create_dir_all(dir).is_ok()
        && let Ok(mut tmp) = tempfile::NamedTempFile::new_in(dir)
        && std::io::Write::write_all(&mut tmp, &bytes).is_ok()
    {
        let _ = tmp.persist(p);
    }
}

#[cfg(test)]
#[path = "ptx_cache_tests.rs"]
mod tests;
