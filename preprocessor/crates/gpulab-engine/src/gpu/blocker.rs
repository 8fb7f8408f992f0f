//! The blocking kernel (nvbench's method, hand-written PTX): it spins on a host-mapped flag while a
//! sample's events and launches are queued behind it, so host launch overhead stays out of the
//! sample; if queuing blocks, it gives up after `TIMEOUT_NS` and the sample is discarded.

use super::error::GpuError;
use super::module::{Kernel, Module};
use super::session::Gpu;
use super::shared::Shared;
use cudarc::driver::sys;
use std::sync::Arc;

/// How long the kernel spins before it gives up (1 s of GPU time).
const TIMEOUT_NS: u64 = 1_000_000_000;

/// The most launches queued behind the blocking kernel per sample, well inside the launch queue.
pub const MAX_QUEUED_LAUNCHES: usize = 256;

const PTX: &str = r#"
.version 7.0
.target sm_70
.address_size 64

.visible .entry gpulab_block(
    .param .u64 flag,
    .param .u64 timed_out,
    .param .u64 timeout_ns
)
{
    .reg .pred %p<3>;
    .reg .b32 %r<3>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [flag];
    ld.param.u64 %rd2, [timed_out];
    ld.param.u64 %rd3, [timeout_ns];
    mov.u64 %rd4, %globaltimer;
    add.u64 %rd5, %rd4, %rd3;
SPIN:
    ld.volatile.global.u32 %r1, [%rd1];
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra DONE;
    mov.u64 %rd6, %globaltimer;
    setp.lt.u64 %p2, %rd6, %rd5;
    @%p2 bra SPIN;
    mov.u32 %r2, 1;
    st.volatile.global.u32 [%rd2], %r2;
    membar.sys;
DONE:
    ret;
}
"#;

/// Two flags in pinned, device-mapped host memory: [release, timed out].
struct Flags {
    shared: Arc<Shared>,
    host: *mut u32,
    device: u64,
}

impl Drop for Flags {
    fn drop(&mut self) {
        if self.shared.bind().is_ok() {
            // SAFETY: `host` came from cuMemHostAlloc and is freed once.
            unsafe {
                let _ = sys::cuMemFreeHost(self.host.cast());
            }
        }
    }
}

/// A loaded blocking kernel with its flags.
pub struct Blocker {
    flags: Flags,
    kernel: Kernel,
    _module: Module,
}

impl std::fmt::Debug for Blocker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Blocker").finish_non_exhaustive()
    }
}

impl Gpu {
    /// Loads the blocking kernel and allocates its flags.
    pub fn blocker(&self) -> Result<Blocker, GpuError> {
        let (module, kernel) = self.load_own_ptx(PTX, "gpulab_block")?;
        let shared = self.shared().clone();
        shared.bind()?;
        let mut host: *mut std::ffi::c_void = std::ptr::null_mut();
        let flags = sys::CU_MEMHOSTALLOC_PORTABLE | sys::CU_MEMHOSTALLOC_DEVICEMAP;
        // SAFETY: allocates 8 bytes of pinned host memory mapped into the device's address space.
        let r = unsafe { sys::cuMemHostAlloc(&mut host, 8, flags) }.result();
        shared.call("cuMemHostAlloc (blocking kernel flags)", r)?;
        let mut device: sys::CUdeviceptr = 0;
        // SAFETY: `host` is a live mapped allocation.
        let r = unsafe { sys::cuMemHostGetDevicePointer_v2(&mut device, host, 0) }.result();
        let flags = Flags {
            shared: shared.clone(),
            host: host.cast(),
            device,
        };
        shared.call("cuMemHostGetDevicePointer", r)?;
        Ok(Blocker {
            flags,
            kernel,
            _module: module,
        })
    }
}

impl Blocker {
    /// Queues the blocking kernel on `gpu`'s stream (clears both flags first).
    pub fn block(&self, gpu: &Gpu) -> Result<(), GpuError> {
        // SAFETY: `host` points at two u32 flags; the GPU reads them only through the kernel queued below.
        unsafe {
            std::ptr::write_volatile(self.flags.host, 0);
            std::ptr::write_volatile(self.flags.host.add(1), 0);
        }
        std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
        use super::launch::KernelArg::U64;
        let d = self.flags.device;
        gpu.launch(
            &self.kernel,
            [1, 1, 1],
            [1, 1, 1],
            0,
            &[U64(d), U64(d + 4), U64(TIMEOUT_NS)],
        )
    }

    /// Lets the blocking kernel finish (call after queuing the measured work and the stop event).
    pub fn release(&self) {
        std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
        // SAFETY: `host` points at the release flag, pinned for the blocker's lifetime.
        unsafe { std::ptr::write_volatile(self.flags.host, 1) };
    }

    /// Whether the last block gave up waiting: the sample includes queuing and is discarded.
    pub fn timed_out(&self) -> bool {
        // SAFETY: as above; the kernel writes this flag before it exits.
        unsafe { std::ptr::read_volatile(self.flags.host.add(1)) != 0 }
    }
}
