//! Tests of `nvrtc_venv`.

use super::*;

/// Issue 35: NVRTC installed by pip in the repository's `.venv` was not found until its folder
/// was put on `LD_LIBRARY_PATH` by hand; now the wheels' places are searched.
#[test]
fn finds_pips_nvrtc_in_a_venv_above_the_current_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    let site = repo.join(".venv/lib/python3.11/site-packages/nvidia");
    let cu12 = site.join("cuda_nvrtc/lib/libnvrtc.so.12");
    let cu13 = site.join("cu13/lib/libnvrtc.so.13");
    let sub = repo.join("book/part1");
    std::fs::create_dir_all(&sub).unwrap();
    for lib in [&cu12, &cu13] {
        std::fs::create_dir_all(lib.parent().unwrap()).unwrap();
        std::fs::write(lib, "").unwrap();
    }
    let roots = std::slice::from_ref(&sub);
    assert_eq!(find(None, roots), Some(cu13.clone()), "13 before 12");
    std::fs::remove_file(&cu13).unwrap();
    assert_eq!(find(None, roots), Some(cu12));
    // The active environment comes first.
    let active = tmp.path().join("env");
    let other = active.join("lib/python3.12/site-packages/nvidia/cu13/lib/libnvrtc.so.13");
    std::fs::create_dir_all(other.parent().unwrap()).unwrap();
    std::fs::write(&other, "").unwrap();
    assert_eq!(find(Some(active), roots), Some(other));
}
