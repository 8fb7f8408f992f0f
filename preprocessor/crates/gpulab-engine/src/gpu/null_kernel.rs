//! An empty kernel (hand-written PTX, one warp) on which the event overhead is calibrated.

use super::error::GpuError;
use super::module::{Kernel, Module};
use super::session::Gpu;

/// The kernel's name, as a profiler filters it.
pub const NULL_KERNEL_NAME: &str = "gpulab_null";

const PTX: &str = r#"
.version 7.0
.target sm_70
.address_size 64

.visible .entry gpulab_null()
{
    ret;
}
"#;

/// The loaded empty kernel.
pub struct NullKernel {
    kernel: Kernel,
    _module: Module,
}

impl std::fmt::Debug for NullKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NullKernel").finish_non_exhaustive()
    }
}

impl Gpu {
    /// Loads the empty kernel (JIT-compiled from PTX by the driver).
    pub(crate) fn null_kernel(&self) -> Result<NullKernel, GpuError> {
        let (module, kernel) = self.load_own_ptx(PTX, NULL_KERNEL_NAME)?;
        Ok(NullKernel {
            kernel,
            _module: module,
        })
    }
}

impl NullKernel {
    /// Queues one launch of one warp on `gpu`'s stream.
    pub fn launch(&self, gpu: &Gpu) -> Result<(), GpuError> {
        gpu.launch(&self.kernel, [1, 1, 1], [32, 1, 1], 0, &[])
    }
}
