//! Where the CUDA toolkit's headers (`<cuda_fp16.h>`…) are, for NVRTC, which has no default
//! include path: `$GPULAB_CUDA_INCLUDE`, a toolkit install, or PyPI's headers beside `libnvrtc.so*`.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The header that marks a toolkit include directory.
const MARKER: &str = "cuda_fp16.h";

/// The toolkit include directory, found once per process; `None` when there is none.
pub fn include_dir() -> Option<&'static Path> {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    DIR.get_or_init(|| {
        let env = |k: &str| std::env::var_os(k).map(PathBuf::from);
        find(&env, super::nvrtc_venv::library())
    })
    .as_deref()
}

/// The search, with the environment and the virtual environment's NVRTC passed in (for tests).
fn find(env: &dyn Fn(&str) -> Option<PathBuf>, venv_nvrtc: Option<&Path>) -> Option<PathBuf> {
    let mut candidates: Vec<PathBuf> = Vec::new();
    candidates.extend(env("GPULAB_CUDA_INCLUDE"));
    for var in ["CUDA_HOME", "CUDA_PATH"] {
        candidates.extend(env(var).map(|d| d.join("include")));
    }
    candidates.push(PathBuf::from("/usr/local/cuda/include"));
    let mut libs: Vec<PathBuf> = env("LD_LIBRARY_PATH")
        .map(|paths| std::env::split_paths(&paths).collect())
        .unwrap_or_default();
    libs.retain(|lib| {
        std::fs::read_dir(lib).is_ok_and(|entries| {
            entries
                .flatten()
                .any(|e| e.file_name().to_string_lossy().starts_with("libnvrtc.so"))
        })
    });
    libs.extend(venv_nvrtc.and_then(Path::parent).map(Path::to_path_buf));
    for package in libs.iter().filter_map(|lib| lib.parent()) {
        candidates.push(package.join("include"));
        if let Some(nvidia) = package.parent().filter(|d| d.ends_with("nvidia")) {
            let mut siblings: Vec<PathBuf> = std::fs::read_dir(nvidia)
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.path().join("include"))
                .collect();
            siblings.sort();
            candidates.extend(siblings);
        }
    }
    candidates.into_iter().find(|d| d.join(MARKER).is_file())
}

#[cfg(test)]
#[path = "toolkit_headers_tests.rs"]
mod tests;
