//! The CUDA layer: the only module that imports `cudarc`, and nothing cudarc-typed leaves it. All
//! work goes to one stream; a fatal fault poisons the context (`GpuError::ContextLost` after it).

mod attributes;
mod blocker;
mod buffer;
mod clocks;
mod compile;
mod cublas;
mod device;
mod error;
mod l2_clean;
mod launch;
mod module;
mod null_kernel;
mod nvrtc_venv;
mod probe;
mod session;
mod shared;
mod smi;
mod timer;
mod toolkit_headers;

pub use attributes::{
    KernelAttributes, Occupancy, OccupancyEstimate, SmLimits, estimate_occupancy,
};
pub use blocker::{Blocker, MAX_QUEUED_LAUNCHES};
pub use buffer::DeviceBuffer;
pub use clocks::ClockReading;
pub use compile::{Image, ImageKind, compile, nvrtc_version, parse_log, supported_archs};
pub use cublas::Blas;
pub use device::{
    DeviceInfo, device_count, device_info, devices, fp32_lanes_per_sm, fp32_peak_gflops, slug,
    theoretical_bandwidth_gbps,
};
pub use error::{CompileError, Diagnostic, GpuError, Severity};
pub use launch::KernelArg;
pub use module::{Kernel, Module};
pub use null_kernel::{NULL_KERNEL_NAME, NullKernel};
#[cfg(test)]
pub(crate) use probe::skip_without_nvrtc;
pub use probe::{
    cublas_library_present, driver_library_present, format_cuda_version, nvrtc_library_present,
};
pub use session::Gpu;
pub use timer::Timer;
pub use toolkit_headers::include_dir as toolkit_include_dir;
