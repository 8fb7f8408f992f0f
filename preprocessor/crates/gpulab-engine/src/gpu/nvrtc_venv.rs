//! NVRTC from pip in a Python virtual environment (`$VIRTUAL_ENV`, else a `.venv*` here, beside the
//! executable or above either), when the loader finds none by its name.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The library names cudarc loads, newest first.
const LIBS: [&str; 2] = ["libnvrtc.so.13", "libnvrtc.so.12"];

/// The virtual environment's NVRTC library, found once per process (not loaded).
pub(crate) fn library() -> Option<&'static Path> {
    static LIB: OnceLock<Option<PathBuf>> = OnceLock::new();
    LIB.get_or_init(|| {
        let mut roots: Vec<PathBuf> = std::env::current_dir().into_iter().collect();
        roots.extend(
            std::env::current_exe()
                .ok()
                .and_then(|e| Some(e.parent()?.to_path_buf())),
        );
        let venv = std::env::var_os("VIRTUAL_ENV").map(PathBuf::from);
        find(venv, &roots)
    })
    .as_deref()
}

/// Loads the virtual environment's NVRTC by its path, once, and keeps it loaded: cudarc's later
/// load by name (`libnvrtc.so.13`) then finds it among the loaded libraries. Whether it loaded.
pub(crate) fn preload() -> bool {
    static LOADED: OnceLock<bool> = OnceLock::new();
    *LOADED.get_or_init(|| {
        let Some(lib) = library() else { return false };
        let Ok(path) = std::ffi::CString::new(lib.as_os_str().as_encoded_bytes()) else {
            return false;
        };
        // SAFETY: loads a library by its path (its initialisers run); the handle is never closed.
        !unsafe { libc::dlopen(path.as_ptr(), libc::RTLD_NOW) }.is_null()
    })
}

/// The first NVRTC of pip's wheels in `venv`, else in a `.venv*` folder of a directory in `roots` or
/// above one.
fn find(venv: Option<PathBuf>, roots: &[PathBuf]) -> Option<PathBuf> {
    let mut envs: Vec<PathBuf> = venv.into_iter().collect();
    for dir in roots.iter().flat_map(|r| r.ancestors()) {
        let mut here = entries(dir, |name| name.starts_with(".venv"));
        here.sort();
        envs.extend(here);
    }
    envs.iter().find_map(|env| {
        let sites = entries(&env.join("lib"), |name| name.starts_with("python"));
        let packages = sites
            .iter()
            .flat_map(|s| entries(&s.join("site-packages/nvidia"), |_| true));
        let libs: Vec<PathBuf> = packages
            .flat_map(|p| LIBS.map(|l| p.join("lib").join(l)))
            .collect();
        LIBS.iter()
            .find_map(|l| libs.iter().find(|p| p.ends_with(l) && p.is_file()).cloned())
    })
}

/// The entries of `dir` whose names `keep` accepts, sorted.
fn entries(dir: &Path, keep: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| keep(&e.file_name().to_string_lossy()))
        .map(|e| e.path())
        .collect();
    out.sort();
    out
}

#[cfg(test)]
#[path = "nvrtc_venv_tests.rs"]
mod tests;
