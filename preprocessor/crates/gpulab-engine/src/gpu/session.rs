//! `Gpu`: one device's context and stream, its `DeviceInfo` and the L2-flush scratch buffer.

use super::compile::{Image, ImageKind};
use super::device::{DeviceInfo, device_info};
use super::error::{self, GpuError, driver};
use super::module::{Kernel, Module, RawModule};
use super::probe::guard;
use super::shared::Shared;
use super::smi;
use cudarc::driver::sys::CUresult;
use cudarc::driver::{CudaContext, CudaSlice, result};
use std::sync::atomic::AtomicU8;
use std::sync::{Arc, Mutex, OnceLock};

/// An open GPU: context + stream, its `DeviceInfo`, and the L2-flush scratch buffer.
pub struct Gpu {
    shared: Arc<Shared>,
    info: DeviceInfo,
    /// The L2 flush's scratch buffer and the byte it writes next (`gpu::l2_clean`).
    pub(super) flush: Mutex<Option<CudaSlice<u8>>>,
    pub(super) flush_value: AtomicU8,
    /// The kernel that drops the flush's dirty lines, with its module (`None`: the GPU or NVRTC
    /// cannot; said once on stderr).
    pub(super) l2_discard: OnceLock<Option<(Module, Kernel)>>,
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gpu")
            .field("device", &self.info.name)
            .field("ordinal", &self.info.ordinal)
            .finish()
    }
}

impl Gpu {
    /// Opens device `ordinal`: retains its primary context and creates one stream.
    pub fn open(ordinal: usize) -> Result<Gpu, GpuError> {
        let info = device_info(ordinal)?;
        let (ctx, stream) = guard("opening the CUDA context", || {
            let ctx =
                CudaContext::new(ordinal).map_err(|e| driver("creating the CUDA context", e))?;
            // One stream, ordered by us: no per-buffer events (they would add work around every launch).
            // SAFETY: all work goes to the single stream below, so no cross-stream synchronisation is needed.
            unsafe { ctx.disable_event_tracking() };
            let stream = ctx
                .new_stream()
                .map_err(|e| driver("creating a CUDA stream", e))?;
            Ok((ctx, stream))
        })?;
        Ok(Gpu {
            shared: Arc::new(Shared::new(ctx, stream)),
            info,
            flush: Mutex::new(None),
            flush_value: AtomicU8::new(0),
            l2_discard: OnceLock::new(),
        })
    }

    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    pub(crate) fn shared(&self) -> &Arc<Shared> {
        &self.shared
    }

    /// Whether a fatal error poisoned this context (the process should exit).
    pub fn is_poisoned(&self) -> bool {
        self.shared.is_poisoned()
    }

    /// Waits for all queued work and reports any asynchronous fault.
    pub fn synchronize(&self) -> Result<(), GpuError> {
        self.shared.sync()
    }

    /// Loads the tool's own hand-written PTX (sm_70, no NVRTC needed) and its kernel `entry`.
    pub(crate) fn load_own_ptx(
        &self,
        ptx: &str,
        entry: &str,
    ) -> Result<(Module, Kernel), GpuError> {
        let image = Image::from_cache(ImageKind::Ptx, ptx.as_bytes().to_vec(), None, (7, 0));
        let module = self.load(&image)?;
        let kernel = module.function(entry)?;
        Ok((module, kernel))
    }

    /// Loads a compiled image into this context.
    pub fn load(&self, image: &Image) -> Result<Module, GpuError> {
        self.shared.bind()?;
        let mut bytes = image.bytes().to_vec();
        if image.kind() == ImageKind::Ptx {
            bytes.push(0);
        }
        // SAFETY: `bytes` is a complete cubin, or NUL-terminated PTX; the driver copies it.
        let r = unsafe { result::module::load_data(bytes.as_ptr().cast()) };
        let module = r.map_err(|e| {
            let (name, message) = error::describe(&e);
            let hint = match e.0 {
                CUresult::CUDA_ERROR_UNSUPPORTED_PTX_VERSION => {
                    " (the PTX is newer than this driver understands: update the driver, or use an NVRTC that \
                     matches it)"
                }
                CUresult::CUDA_ERROR_NO_BINARY_FOR_GPU | CUresult::CUDA_ERROR_INVALID_IMAGE => {
                    " (the image was compiled for another architecture than this GPU's)"
                }
                _ => "",
            };
            self.shared.note(GpuError::ModuleLoad(format!("{name}: {message}{hint}")))
        })?;
        Ok(Module::new(Arc::new(RawModule {
            shared: self.shared.clone(),
            module,
        })))
    }

    /// The current SM clock in MHz from `nvidia-smi` (a process spawn; sampling uses [`Gpu::clocks`]).
    pub fn current_sm_clock_mhz(&self) -> Option<u32> {
        smi::clock_mhz("clocks.sm", &self.info.pci_bus_id)
    }

    /// The live SM and memory clocks through NVML; `None` without NVML.
    pub fn clocks(&self) -> Option<super::clocks::ClockReading> {
        super::clocks::read(&self.info.pci_bus_id)
    }
}
