//! Tests of `ptx_cache`.

use super::*;

#[test]
fn second_compile_is_read_from_the_cache() {
    if crate::gpu::skip_without_nvrtc("second_compile_is_read_from_the_cache") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let cu = dir.path().join("k.cu");
    let src = "extern \"C\" __global__ void k(float* x) { x[threadIdx.x] = SCALE; }";
    let opts = vec!["-DSCALE=2.0f".to_string()];
    let first = compile_cached(dir.path(), &cu, src, "k.cu", &opts, (9, 0)).unwrap();
    let path = cache_path(dir.path(), src, dir.path(), &opts, (9, 0)).unwrap();
    assert!(path.is_file(), "the compile wrote its cache entry");
    let second = compile_cached(dir.path(), &cu, src, "k.cu", &opts, (9, 0)).unwrap();
    assert_eq!(first.bytes(), second.bytes());
    assert_eq!(
        second.ptx(),
        first.ptx(),
        "check reads the PTX from the cache"
    );
    let other = cache_path(
        dir.path(),
        src,
        dir.path(),
        &["-DSCALE=3.0f".to_string()],
        (9, 0),
    )
    .unwrap();
    assert_ne!(path, other, "other defines, other entry");
}

/// A cubin's entry keeps the PTX it was made from; a truncated entry is not an image.
#[test]
fn an_entry_holds_the_cubin_and_its_ptx_and_a_truncated_one_is_a_miss() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("e.bin");
    let image = Image::from_cache(
        ImageKind::Cubin,
        vec![1, 2, 3],
        Some(".entry k".into()),
        (9, 0),
    );
    write_entry(&p, &image);
    let back = read_entry(&p, (9, 0)).expect("the entry reads back");
    assert_eq!(
        (back.kind(), back.bytes()),
        (ImageKind::Cubin, &[1u8, 2, 3][..])
    );
    assert_eq!(back.ptx(), Some(".entry k"));
    let bytes = std::fs::read(&p).unwrap();
    std::fs::write(&p, &bytes[..bytes.len() - 10]).unwrap();
    assert!(read_entry(&p, (9, 0)).is_none());
}

/// An unreadable header was hashed as empty, so its key collided with that of an empty header
/// (and a stale cache entry could be used); now such a compilation is not cached at all.
#[test]
fn unreadable_header_gives_no_cache_key() {
    let dir = tempfile::tempdir().unwrap();
    let key = |opts: &[String]| cache_key((13, 0), "src", dir.path(), opts, (9, 0));
    std::fs::write(dir.path().join("common.cuh"), "").unwrap();
    let empty = key(&[]).expect("a readable empty header: a key");
    std::fs::write(dir.path().join("common.cuh"), "#define X 1\n").unwrap();
    let full = key(&[]).expect("a readable header: a key");
    assert_ne!(full, empty);
    // A directory named like a header cannot be read as a file (even by root).
    std::fs::create_dir(dir.path().join("broken.h")).unwrap();
    assert_eq!(key(&[]), None, "an unreadable header gives no key");
}
