//! Kernel launches: typed arguments, dynamic shared memory opt-in, error mapping with hints.

use super::buffer::DeviceBuffer;
use super::error::{self, GpuError};
use super::module::Kernel;
use super::session::Gpu;
use cudarc::driver::result;
use cudarc::driver::sys::CUresult;
use std::ffi::c_void;

/// One kernel argument, passed by value in declaration order.
#[derive(Debug, Clone, Copy)]
pub enum KernelArg<'a> {
    /// The buffer's device pointer.
    Buffer(&'a DeviceBuffer),
    /// A 1-byte value (`char`, `unsigned char`, `signed char`).
    U8(u8),
    /// A 2-byte value (`short`, `unsigned short`, or the bits of `__half` / `__nv_bfloat16`).
    U16(u16),
    I32(i32),
    U32(u32),
    I64(i64),
    /// A 64-bit value, e.g. a raw device pointer (`DeviceBuffer::device_ptr() + offset`).
    U64(u64),
    F32(f32),
    F64(f64),
}

/// Argument values with stable addresses for `cuLaunchKernel`'s `void**`.
enum Slot {
    U8(u8),
    U16(u16),
    I32(i32),
    U32(u32),
    I64(i64),
    U64(u64),
    F32(f32),
    F64(f64),
}

impl Slot {
    fn ptr(&mut self) -> *mut c_void {
        match self {
            Slot::U8(v) => (v as *mut u8).cast(),
            Slot::U16(v) => (v as *mut u16).cast(),
            Slot::I32(v) => (v as *mut i32).cast(),
            Slot::U32(v) => (v as *mut u32).cast(),
            Slot::I64(v) => (v as *mut i64).cast(),
            Slot::U64(v) => (v as *mut u64).cast(),
            Slot::F32(v) => (v as *mut f32).cast(),
            Slot::F64(v) => (v as *mut f64).cast(),
        }
    }
}

/// Default dynamic shared memory a kernel may use without opting in.
const DEFAULT_DYNAMIC_SHARED: u32 = 48 * 1024;

impl Gpu {
    /// Queues `kernel<<<grid, block, shared_bytes>>>(args…)`; faults while it runs surface at the
    /// next synchronisation as a fatal `GpuError::Launch`.
    pub fn launch(
        &self,
        kernel: &Kernel,
        grid: [u32; 3],
        block: [u32; 3],
        shared_bytes: u32,
        args: &[KernelArg<'_>],
    ) -> Result<(), GpuError> {
        let shared = kernel.shared();
        if !std::sync::Arc::ptr_eq(shared, self.shared()) {
            return Err(GpuError::InvalidConfig(format!(
                "kernel `{}` belongs to another GPU session",
                kernel.name()
            )));
        }
        check_dims(grid, block)?;
        shared.bind()?;
        if shared_bytes > DEFAULT_DYNAMIC_SHARED {
            let info = self.info();
            if shared_bytes > info.max_shared_per_block_optin {
                return Err(GpuError::InvalidConfig(format!(
                    "{shared_bytes} bytes of dynamic shared memory exceed the device's per-block maximum of {} bytes",
                    info.max_shared_per_block_optin
                )));
            }
        }
        // Opts in whenever static + dynamic shared memory exceed 48 KiB (not only the dynamic part).
        kernel.allow_dynamic_shared(shared_bytes)?;
        let mut slots: Vec<Slot> = args
            .iter()
            .map(|a| match *a {
                KernelArg::Buffer(b) => Slot::U64(b.device_ptr()),
                KernelArg::U8(v) => Slot::U8(v),
                KernelArg::U16(v) => Slot::U16(v),
                KernelArg::I32(v) => Slot::I32(v),
                KernelArg::U32(v) => Slot::U32(v),
                KernelArg::I64(v) => Slot::I64(v),
                KernelArg::U64(v) => Slot::U64(v),
                KernelArg::F32(v) => Slot::F32(v),
                KernelArg::F64(v) => Slot::F64(v),
            })
            .collect();
        let mut params: Vec<*mut c_void> = slots.iter_mut().map(Slot::ptr).collect();
        // SAFETY: `params` points at `slots`, alive for the call; argument types are the spec's
        // contract (`check` tests them), a mismatch faults or fails verification.
        let r = unsafe {
            result::launch_kernel(
                kernel.raw(),
                (grid[0], grid[1], grid[2]),
                (block[0], block[1], block[2]),
                shared_bytes,
                shared.stream.cu_stream(),
                &mut params,
            )
        };
        r.map_err(|e| {
            let hint = launch_hint(e.0, kernel, self, block, shared_bytes);
            shared.note(error::launch(e, hint))
        })
    }
}

/// Rejects zero or out-of-range dimensions before they reach the driver.
pub(crate) fn check_dims(grid: [u32; 3], block: [u32; 3]) -> Result<(), GpuError> {
    if grid.contains(&0) || block.contains(&0) {
        return Err(GpuError::InvalidConfig(format!(
            "grid {grid:?} and block {block:?} must have every dimension ≥ 1"
        )));
    }
    if grid[0] > i32::MAX as u32 || grid[1] > 65535 || grid[2] > 65535 {
        return Err(GpuError::InvalidConfig(format!(
            "grid {grid:?} exceeds the limits (2³¹−1, 65535, 65535)"
        )));
    }
    if block[2] > 64 || block[0] > 1024 || block[1] > 1024 {
        // The product check is the driver's (with the device's limit in the hint); these are hard limits.
        return Err(GpuError::InvalidConfig(format!(
            "block {block:?} exceeds the limits (1024, 1024, 64)"
        )));
    }
    Ok(())
}

fn launch_hint(
    code: CUresult,
    kernel: &Kernel,
    gpu: &Gpu,
    block: [u32; 3],
    shared_bytes: u32,
) -> Option<String> {
    let threads = block.iter().map(|&b| b as u64).product::<u64>();
    let info = gpu.info();
    match code {
        CUresult::CUDA_ERROR_INVALID_VALUE if threads > info.max_threads_per_block as u64 => {
            Some(format!(
                "block {}×{}×{} = {threads} threads exceeds the device's limit of {} threads per block",
                block[0], block[1], block[2], info.max_threads_per_block
            ))
        }
        CUresult::CUDA_ERROR_INVALID_VALUE => Some(format!(
            "check the block size ({threads} threads) and the dynamic shared memory ({shared_bytes} bytes)"
        )),
        CUresult::CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES => {
            let regs = kernel
                .attribute(cudarc::driver::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_NUM_REGS)
                .unwrap_or(0);
            let max_threads = kernel
                .attribute(cudarc::driver::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
                .unwrap_or(0);
            Some(format!(
                "kernel `{}` uses {regs} registers per thread, so at most {max_threads} threads per block; \
                 this launch asks for {threads}",
                kernel.name()
            ))
        }
        _ => None,
    }
}

#[cfg(test)]
#[path = "launch_tests.rs"]
mod tests;
