//! Library probing: cudarc panics when libcuda/libnvrtc/libcublas is missing, so check first.

use super::error::{CompileError, GpuError, driver};
use cudarc::driver::sys::CUresult;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::OnceLock;

pub(crate) const DRIVER_HINT: &str = "install the NVIDIA driver (libcuda.so ships with it) and run on a machine \
     with an NVIDIA GPU; in a container, expose the GPU (e.g. `docker run --gpus all`)";
pub(crate) const NVRTC_HINT: &str = "install the CUDA toolkit, or `pip install nvidia-cuda-nvrtc \
     nvidia-cuda-runtime` into a virtual environment `.venv` here or in a folder above (found by itself), \
     or put its lib dir on LD_LIBRARY_PATH";
pub(crate) const CUBLAS_HINT: &str = "install the CUDA toolkit or `pip install nvidia-cublas` and add its \
     lib dir to LD_LIBRARY_PATH";

/// Fault injection: `GPULAB_HIDE_LIBS=cuda,nvrtc,cublas` makes the named libraries count as
/// missing, so that a GPU machine can test the paths a machine without them takes.
pub(crate) const HIDE_LIBS_ENV: &str = "GPULAB_HIDE_LIBS";

fn hidden(lib: &str) -> bool {
    std::env::var(HIDE_LIBS_ENV).is_ok_and(|v| v.split(',').any(|x| x.trim() == lib))
}

/// Whether `libcuda` (the driver API) can be loaded.
pub fn driver_library_present() -> bool {
    // SAFETY: only tries to dlopen the library by its candidate names.
    !hidden("cuda") && unsafe { cudarc::driver::sys::is_culib_present() }
}

/// Whether `libnvrtc` can be loaded: by its name, else from a virtual environment's pip wheel.
pub fn nvrtc_library_present() -> bool {
    // SAFETY: as above.
    !hidden("nvrtc")
        && (unsafe { cudarc::nvrtc::sys::is_culib_present() } || super::nvrtc_venv::preload())
}

/// Whether `libcublas` can be loaded.
pub fn cublas_library_present() -> bool {
    // SAFETY: as above.
    !hidden("cublas") && unsafe { cudarc::cublas::sys::is_culib_present() }
}

/// The text of a caught panic payload.
pub(crate) fn panic_text(payload: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_string()
    }
}

/// Runs `f`, turning a panic inside cudarc into `GpuError::InitPanic`.
pub(crate) fn guard<T>(op: &str, f: impl FnOnce() -> Result<T, GpuError>) -> Result<T, GpuError> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|p| {
        Err(GpuError::InitPanic {
            op: op.to_string(),
            message: panic_text(p),
        })
    })
}

/// Runs `f`, turning a panic inside cudarc into `CompileError::Panic`.
pub(crate) fn guard_nvrtc<T>(
    op: &str,
    f: impl FnOnce() -> Result<T, CompileError>,
) -> Result<T, CompileError> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|p| {
        Err(CompileError::Panic {
            op: op.to_string(),
            message: panic_text(p),
        })
    })
}

/// Loads libcuda and calls `cuInit` once per process; every driver entry point calls this first.
pub(crate) fn ensure_driver() -> Result<(), GpuError> {
    static INIT: OnceLock<Result<(), GpuError>> = OnceLock::new();
    INIT.get_or_init(|| {
        if !driver_library_present() {
            return Err(GpuError::LibraryMissing { lib: "libcuda.so".to_string(), hint: DRIVER_HINT.to_string() });
        }
        guard("cuInit", || match cudarc::driver::result::init() {
            Ok(()) => Ok(()),
            Err(e) if e.0 == CUresult::CUDA_ERROR_NO_DEVICE => Err(GpuError::NoDevice),
            Err(e) if e.0 == CUresult::CUDA_ERROR_SYSTEM_DRIVER_MISMATCH => Err(GpuError::LibraryMissing {
                lib: "a matching libcuda.so".to_string(),
                hint: "libcuda.so does not match the loaded NVIDIA kernel module; reinstall the driver (or \
                       fix the container's driver mounts)"
                    .to_string(),
            }),
            Err(e) => Err(driver("cuInit", e)),
        })
    })
    .clone()
}

/// Checks that libnvrtc can be loaded (once per process).
pub(crate) fn ensure_nvrtc() -> Result<(), CompileError> {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    if *PRESENT.get_or_init(nvrtc_library_present) {
        Ok(())
    } else {
        Err(CompileError::LibraryMissing {
            lib: "libnvrtc.so.13".to_string(),
            hint: NVRTC_HINT.to_string(),
        })
    }
}

/// Checks that libcublas can be loaded (once per process).
pub(crate) fn ensure_cublas() -> Result<(), GpuError> {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    if *PRESENT.get_or_init(cublas_library_present) {
        Ok(())
    } else {
        Err(GpuError::LibraryMissing {
            lib: "libcublas.so.13".to_string(),
            hint: CUBLAS_HINT.to_string(),
        })
    }
}

/// The CUDA version the driver supports, as the raw number (`13000`), without initialising it.
pub(crate) fn driver_cuda_version() -> Result<i32, GpuError> {
    ensure_driver()?;
    let mut v: std::ffi::c_int = 0;
    // SAFETY: writes one int; the library is loaded (checked above).
    guard("cuDriverGetVersion", || {
        unsafe { cudarc::driver::sys::cuDriverGetVersion(&mut v) }
            .result()
            .map_err(|e| driver("cuDriverGetVersion", e))
    })?;
    Ok(v)
}

/// `13000` → `"13.0"`, `12040` → `"12.4"`.
pub fn format_cuda_version(v: i32) -> String {
    format!("{}.{}", v / 1000, (v % 1000) / 10)
}

/// For unit tests that need NVRTC: `true` (skip, said loudly on stderr) when libnvrtc is missing,
/// unless `GPULAB_REQUIRE_NVRTC` is set (CI), where a missing library fails the test instead.
#[cfg(test)]
pub(crate) fn skip_without_nvrtc(test: &str) -> bool {
    if nvrtc_library_present() {
        return false;
    }
    eprintln!("SKIPPED {test}: libnvrtc not found (CI installs it)");
    assert!(
        std::env::var("GPULAB_REQUIRE_NVRTC").is_err(),
        "GPULAB_REQUIRE_NVRTC is set but libnvrtc is missing"
    );
    true
}

#[cfg(test)]
#[path = "probe_tests.rs"]
mod tests;
