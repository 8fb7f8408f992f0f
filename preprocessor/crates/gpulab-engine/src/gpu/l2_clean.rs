//! A clean L2 after the flush: the flush's dirty lines would be written back during the measured
//! kernel (~17 µs on an H100), so PTX's `discard.global.L2` (sm_80+) drops them unwritten.

use super::compile::compile;
use super::error::GpuError;
use super::launch::KernelArg;
use super::module::{Kernel, Module};
use super::session::Gpu;
use cudarc::driver::{DevicePtrMut, result};
use std::sync::atomic::Ordering;

/// Bytes one `discard.global.L2` drops (its only size).
pub(crate) const LINE: u64 = 128;

/// The kernel: a grid-stride loop of discards over `lines` lines from `base` (128-byte aligned).
pub(crate) const SOURCE: &str = r#"
extern "C" __global__ void gpulab_discard_l2(char* base, unsigned long long lines) {
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
         i < lines; i += stride) {
        asm volatile("discard.global.L2 [%0], 128;" :: "l"(base + i * 128) : "memory");
    }
}
"#;

/// The oldest compute capability with `discard.global.L2`.
pub(crate) const MIN_ARCH: (u32, u32) = (8, 0);

/// Compiles (NVRTC) and loads the discard kernel for `gpu`; `Err` says why there is none (an older
/// GPU, no NVRTC): the flush is then the memset alone.
fn load(gpu: &Gpu) -> Result<(Module, Kernel), String> {
    let cc = gpu.info().compute_capability;
    if cc < MIN_ARCH {
        return Err(format!(
            "sm_{}{} has no discard.global.L2 (sm_80 and newer)",
            cc.0, cc.1
        ));
    }
    let image = compile(SOURCE, "gpulab_discard_l2.cu", &[], cc).map_err(|e| e.to_string())?;
    let module = gpu.load(&image).map_err(|e| e.to_string())?;
    let kernel = module
        .function("gpulab_discard_l2")
        .map_err(|e| e.to_string())?;
    Ok((module, kernel))
}

impl Gpu {
    /// Evicts the L2 by writing twice its size, then (sm_80+) drops the dirty lines (untimed).
    pub fn flush_l2(&self) -> Result<(), GpuError> {
        let shared = self.shared();
        shared.bind()?;
        let bytes = (self.info().l2_bytes as usize).max(1 << 20) * 2;
        let mut guard = self.flush.lock().unwrap_or_else(|p| p.into_inner());
        if guard.is_none() {
            // SAFETY: uninitialised bytes, only ever written.
            let r = unsafe { shared.stream.alloc::<u8>(bytes) };
            *guard = Some(shared.call("allocating the L2 flush buffer", r)?);
        }
        let value = self.flush_value.fetch_add(1, Ordering::Relaxed);
        let Some(buf) = guard.as_mut() else {
            return Err(GpuError::BufferMismatch("L2 flush buffer missing".into()));
        };
        let (ptr, _sync) = buf.device_ptr_mut(&shared.stream);
        // SAFETY: `ptr` is a live allocation of `bytes` bytes on this stream.
        let r = unsafe { result::memset_d8_async(ptr, value, bytes, shared.stream.cu_stream()) };
        shared.call("cuMemsetD8Async (L2 flush)", r)?;
        let discard = self.l2_discard.get_or_init(|| {
            load(self)
                .map_err(|why| {
                    eprintln!(
                        "note: the L2 flush leaves dirty lines for the measured kernel to write back ({why})"
                    )
                })
                .ok()
        });
        let Some((_, kernel)) = discard else {
            return Ok(());
        };
        let blocks = self.info().sm_count.max(1) * 4;
        self.launch(
            kernel,
            [blocks, 1, 1],
            [256, 1, 1],
            0,
            &[KernelArg::U64(ptr), KernelArg::U64(bytes as u64 / LINE)],
        )
    }
}

#[cfg(test)]
#[path = "l2_clean_tests.rs"]
mod tests;
