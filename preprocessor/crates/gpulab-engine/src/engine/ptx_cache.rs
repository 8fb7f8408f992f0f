//! NVRTC compilation with an on-disk cache outside `book/` (key: source, the headers beside it,
//! options, architecture and NVRTC version), so rebuilding a book does not recompile unchanged
//! kernels. A cache entry is written atomically; an unreadable entry is simply recompiled.

use crate::gpu::{Image, ImageKind, compile, nvrtc_version};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// The cache file for a compilation, or `None` when NVRTC's version cannot be read or a header
/// beside the source cannot be read (then the kernel is compiled without the cache).
pub(crate) fn cache_path(
    cache_dir: &Path,
    source: &str,
    name: &str,
    options: &[String],
    arch: (u32, u32),
) -> Option<PathBuf> {
    let nvrtc = nvrtc_version().ok()?;
    let key = cache_key(nvrtc, source, name, options, arch)?;
    Some(cache_dir.join(format!("{key}.bin")))
}

/// The cache key of a compilation; `None` when a header beside the source cannot be read, since
/// hashing it as empty would give it the key of an empty header.
fn cache_key(
    (major, minor): (u32, u32),
    source: &str,
    name: &str,
    options: &[String],
    arch: (u32, u32),
) -> Option<String> {
    let mut h = Sha256::new();
    h.update(format!("nvrtc {major}.{minor} sm_{}{}\0", arch.0, arch.1));
    h.update(source);
    h.update([0]);
    for o in options {
        h.update(o);
        h.update([0]);
    }
    // Headers beside the source (`#include "common.cuh"`) change the result too.
    if let Some(dir) = Path::new(name)
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
    {
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
    }
    Some(
        h.finalize()
            .iter()
            .take(16)
            .map(|b| format!("{b:02x}"))
            .collect(),
    )
}

/// Compiles `source`, or returns the cached image.
pub(crate) fn compile_cached(
    cache_dir: &Path,
    source: &str,
    name: &str,
    options: &[String],
    arch: (u32, u32),
) -> Result<Image, String> {
    let path = cache_path(cache_dir, source, name, options, arch);
    if let Some(p) = &path
        && let Ok(bytes) = std::fs::read(p)
        && let Some((&tag, body)) = bytes.split_first()
    {
        let kind = if tag == b'c' {
            ImageKind::Cubin
        } else {
            ImageKind::Ptx
        };
        return Ok(Image::from_cache(kind, body.to_vec(), arch, name, options));
    }
    let image = compile(source, name, options, arch).map_err(|e| e.to_string())?;
    if let Some(p) = &path {
        let mut bytes = vec![if image.kind() == ImageKind::Cubin {
            b'c'
        } else {
            b'p'
        }];
        bytes.extend_from_slice(image.bytes());
        if let Some(dir) = p.parent()
            && std::fs::create_dir_all(dir).is_ok()
            && let Ok(mut tmp) = tempfile::NamedTempFile::new_in(dir)
            && std::io::Write::write_all(&mut tmp, &bytes).is_ok()
        {
            let _ = tmp.persist(p);
        }
    }
    Ok(image)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_compile_is_read_from_the_cache() {
        if crate::gpu::skip_without_nvrtc("second_compile_is_read_from_the_cache") {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let src = "extern \"C\" __global__ void k(float* x) { x[threadIdx.x] = SCALE; }";
        let opts = vec!["-DSCALE=2.0f".to_string()];
        let first = compile_cached(dir.path(), src, "k.cu", &opts, (9, 0)).unwrap();
        let path = cache_path(dir.path(), src, "k.cu", &opts, (9, 0)).unwrap();
        assert!(path.is_file(), "the compile wrote its cache entry");
        let second = compile_cached(dir.path(), src, "k.cu", &opts, (9, 0)).unwrap();
        assert_eq!(first.bytes(), second.bytes());
        assert!(
            second.log().is_empty(),
            "the second image came from the cache, not NVRTC"
        );
        let other = cache_path(
            dir.path(),
            src,
            "k.cu",
            &["-DSCALE=3.0f".to_string()],
            (9, 0),
        )
        .unwrap();
        assert_ne!(path, other, "other defines, other entry");
    }

    /// An unreadable header was hashed as empty, so its key collided with that of an empty header
    /// (and a stale cache entry could be used); now such a compilation is not cached at all.
    #[test]
    fn unreadable_header_gives_no_cache_key() {
        let dir = tempfile::tempdir().unwrap();
        let name = dir.path().join("k.cu");
        let name = name.to_str().unwrap();
        let key = |opts: &[String]| cache_key((13, 0), "src", name, opts, (9, 0));
        std::fs::write(dir.path().join("common.cuh"), "").unwrap();
        let empty = key(&[]).expect("a readable empty header: a key");
        std::fs::write(dir.path().join("common.cuh"), "#define X 1\n").unwrap();
        let full = key(&[]).expect("a readable header: a key");
        assert_ne!(full, empty);
        // A directory named like a header cannot be read as a file (even by root).
        std::fs::create_dir(dir.path().join("broken.h")).unwrap();
        assert_eq!(key(&[]), None, "an unreadable header gives no key");
    }
}
