//! Loaded modules, their kernels, and their `__constant__` symbols.

use super::error::{GpuError, driver};
use super::probe::{driver_cuda_version, guard};
use super::shared::Shared;
use cudarc::driver::result;
use cudarc::driver::sys::{self, CUfunction, CUmodule, CUresult};
use std::ffi::{CStr, CString, c_char, c_uint};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

/// A `CUmodule`, unloaded on drop (unless the context is poisoned).
#[derive(Debug)]
pub(crate) struct RawModule {
    pub shared: Arc<Shared>,
    pub module: CUmodule,
}

// SAFETY: a CUmodule handle may be used from any thread once its context is bound.
unsafe impl Send for RawModule {}
unsafe impl Sync for RawModule {}

impl Drop for RawModule {
    fn drop(&mut self) {
        if self.shared.bind().is_ok() {
            // SAFETY: loaded by cuModuleLoadData, unloaded once.
            let _ = unsafe { result::module::unload(self.module) };
        }
    }
}

/// A module loaded into a `Gpu`.
#[derive(Debug, Clone)]
pub struct Module {
    raw: Arc<RawModule>,
}

/// One `extern "C" __global__` function of a module.
#[derive(Debug)]
pub struct Kernel {
    raw: Arc<RawModule>,
    func: CUfunction,
    name: String,
    /// The dynamic shared memory this function may use: the driver's default (48 KiB less its
    /// static shared memory) until a launch needs more and opts in.
    dynamic_shared_limit: AtomicU32,
}

// SAFETY: a CUfunction handle may be used from any thread once its context is bound.
unsafe impl Send for Kernel {}
unsafe impl Sync for Kernel {}

impl Module {
    pub(crate) fn new(raw: Arc<RawModule>) -> Self {
        Module { raw }
    }

    /// The kernel `name` (its `extern "C"` name). A missing name lists the module's kernels.
    pub fn function(&self, name: &str) -> Result<Kernel, GpuError> {
        let shared = &self.raw.shared;
        shared.bind()?;
        let c_name = CString::new(name).map_err(|_| GpuError::KernelNotFound {
            name: name.to_string(),
            available: self.kernel_names(),
        })?;
        // SAFETY: the module is loaded.
        match unsafe { result::module::get_function(self.raw.module, c_name) } {
            Ok(func) => {
                // Without an opt-in, static and dynamic share 48 KiB (0 when unreadable: opt in).
                use sys::CUfunction_attribute::*;
                // SAFETY: `func` was just returned by the driver for a loaded module.
                let attr = |a| unsafe { result::function::get_function_attribute(func, a) };
                let default = attr(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)
                    .map_or(0, |v| v.max(0) as u32);
                let static_bytes = attr(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)
                    .map_or(48 * 1024, |v| v.max(0) as u32);
                let default = default.min((48 * 1024u32).saturating_sub(static_bytes));
                Ok(Kernel {
                    raw: self.raw.clone(),
                    func,
                    name: name.to_string(),
                    dynamic_shared_limit: AtomicU32::new(default),
                })
            }
            Err(e) if e.0 == CUresult::CUDA_ERROR_NOT_FOUND => Err(GpuError::KernelNotFound {
                name: name.to_string(),
                available: self.kernel_names(),
            }),
            Err(e) => Err(shared.note(driver(&format!("cuModuleGetFunction({name})"), e))),
        }
    }

    /// Names of the module's kernels (needs a CUDA 12.4+ driver; empty otherwise).
    pub(crate) fn kernel_names(&self) -> Vec<String> {
        if self.raw.shared.bind().is_err() || driver_cuda_version().unwrap_or(0) < 12040 {
            return Vec::new();
        }
        let module = self.raw.module;
        let names = guard("cuModuleEnumerateFunctions", || {
            let mut count: c_uint = 0;
            // SAFETY: the module is loaded; the buffers are sized by the count the driver reports.
            unsafe {
                sys::cuModuleGetFunctionCount(&mut count, module)
                    .result()
                    .map_err(|e| driver("cuModuleGetFunctionCount", e))?;
                let mut funcs: Vec<CUfunction> = vec![std::ptr::null_mut(); count as usize];
                sys::cuModuleEnumerateFunctions(funcs.as_mut_ptr(), count, module)
                    .result()
                    .map_err(|e| driver("cuModuleEnumerateFunctions", e))?;
                let mut names = Vec::with_capacity(funcs.len());
                for f in funcs {
                    let mut p: *const c_char = std::ptr::null();
                    if sys::cuFuncGetName(&mut p, f).result().is_ok() && !p.is_null() {
                        names.push(CStr::from_ptr(p).to_string_lossy().into_owned());
                    }
                }
                Ok(names)
            }
        });
        let mut names = names.unwrap_or_default();
        names.sort();
        names
    }

    fn symbol(&self, name: &str) -> Result<(sys::CUdeviceptr, usize), GpuError> {
        let shared = &self.raw.shared;
        shared.bind()?;
        let c_name = CString::new(name).map_err(|_| GpuError::SymbolNotFound {
            name: name.to_string(),
        })?;
        // SAFETY: the module is loaded.
        match unsafe { result::module::get_global(self.raw.module, c_name) } {
            Ok(found) => Ok(found),
            Err(e) if e.0 == CUresult::CUDA_ERROR_NOT_FOUND => Err(GpuError::SymbolNotFound {
                name: name.to_string(),
            }),
            Err(e) => Err(shared.note(driver(&format!("cuModuleGetGlobal({name})"), e))),
        }
    }

    /// Copies `bytes` to the start of the `__constant__` symbol `name` (at most its size), then waits.
    pub fn set_constant(&self, name: &str, bytes: &[u8]) -> Result<(), GpuError> {
        let (ptr, capacity) = self.symbol(name)?;
        if bytes.len() > capacity {
            return Err(GpuError::SymbolSize {
                name: name.to_string(),
                capacity,
                got: bytes.len(),
            });
        }
        if bytes.is_empty() {
            return Ok(());
        }
        let shared = &self.raw.shared;
        // SAFETY: `ptr` has at least `bytes.len()` bytes; the copy completes before `sync` returns.
        let r = unsafe { result::memcpy_htod_async(ptr, bytes, shared.stream.cu_stream()) };
        shared.call(&format!("copying to __constant__ {name}"), r)?;
        shared.sync()
    }
}

impl Kernel {
    pub fn name(&self) -> &str {
        &self.name
    }

    pub(crate) fn shared(&self) -> &Arc<Shared> {
        &self.raw.shared
    }

    pub(crate) fn raw(&self) -> CUfunction {
        self.func
    }

    /// Allows `bytes` of dynamic shared memory, opting in only above the current limit.
    pub(crate) fn allow_dynamic_shared(&self, bytes: u32) -> Result<(), GpuError> {
        if bytes <= self.dynamic_shared_limit.load(Ordering::Relaxed) {
            return Ok(());
        }
        let attr = sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
        // SAFETY: valid function of a loaded module.
        let r = unsafe { result::function::set_function_attribute(self.func, attr, bytes as i32) };
        r.map_err(|e| {
            let (name, message) = super::error::describe(&e);
            GpuError::InvalidConfig(format!(
                "kernel `{}` cannot use {bytes} bytes of dynamic shared memory ({name}: {message})",
                self.name
            ))
        })?;
        self.dynamic_shared_limit.store(bytes, Ordering::Relaxed);
        Ok(())
    }

    /// A function attribute (`CU_FUNC_ATTRIBUTE_*`).
    pub(crate) fn attribute(&self, attr: sys::CUfunction_attribute) -> Result<u32, GpuError> {
        self.raw.shared.bind()?;
        // SAFETY: valid function of a loaded module.
        let r = unsafe { result::function::get_function_attribute(self.func, attr) };
        self.raw
            .shared
            .call(&format!("cuFuncGetAttribute({attr:?})"), r)
            .map(|v| v.max(0) as u32)
    }
}
