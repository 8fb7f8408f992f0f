//! Device discovery: `DeviceInfo` (name, limits, clocks, versions, peaks) for every visible GPU.

use super::compile::nvrtc_version;
use super::error::{GpuError, driver};
use super::probe::{self, guard};
use super::smi;
use cudarc::driver::result::device as cu_device;
use cudarc::driver::sys::{CUdevice, CUdevice_attribute};
use serde::{Deserialize, Serialize};

/// One GPU as the driver describes it, plus derived peaks. Field names match the recording's `device`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeviceInfo {
    /// CUDA ordinal (respects `CUDA_VISIBLE_DEVICES`).
    pub ordinal: u32,
    pub name: String,
    /// Lowercase name, non-alphanumerics → `-` (collapsed): `nvidia-h100-80gb-hbm3`.
    pub slug: String,
    pub compute_capability: (u32, u32),
    pub sm_count: u32,
    /// Maximum SM clock.
    pub clock_mhz: u32,
    /// Peak memory clock; `None` when neither the driver nor `nvidia-smi` reports it.
    pub memory_clock_mhz: Option<u32>,
    pub bus_width_bits: Option<u32>,
    pub l2_bytes: u64,
    pub memory_bytes: u64,
    pub max_threads_per_block: u32,
    /// Shared memory per block without opting in (48 KiB).
    pub max_shared_per_block: u32,
    /// Shared memory per block with `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` (227 KiB on H100).
    pub max_shared_per_block_optin: u32,
    pub max_shared_per_sm: u32,
    /// Shared memory the system reserves per resident block (1 KiB on sm_80+).
    pub reserved_shared_per_block: u32,
    pub max_threads_per_sm: u32,
    pub max_blocks_per_sm: u32,
    pub registers_per_sm: u32,
    pub registers_per_block: u32,
    pub warp_size: u32,
    /// PCI bus id (`00000000:3B:00.0`), to match `nvidia-smi`'s view of the same GPU.
    pub pci_bus_id: String,
    /// The GPU's UUID as `nvidia-smi -L` prints it (`GPU-xxxxxxxx-xxxx-…`), when the driver gives it.
    #[serde(default)]
    pub uuid: Option<String>,
    /// The NVIDIA driver's own version ("580.159.04"), when it could be read.
    pub driver_version: Option<String>,
    /// The CUDA version the driver supports ("13.0", from `cuDriverGetVersion`).
    pub cuda_version: String,
    /// NVRTC's version ("13.0"), or "unavailable".
    pub nvrtc_version: String,
    /// `2 × memory clock × bus width / 8`, in GB/s (1e9 B/s).
    pub theoretical_bandwidth_gbps: Option<f64>,
    /// `SMs × FP32 lanes per SM × 2 × clock`, in GFLOP/s.
    pub fp32_peak_gflops: f64,
}

/// Lowercase, every run of non-alphanumeric characters → one `-`, no leading/trailing `-`.
pub fn slug(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    while out.ends_with('-') {
        out.pop();
    }
    out
}

/// FP32 lanes (CUDA cores) per SM by compute capability; `None` for unknown architectures.
pub fn fp32_lanes_per_sm(cc: (u32, u32)) -> Option<u32> {
    Some(match cc {
        (1, _) => 8,
        (2, 0) => 32,
        (2, _) => 48,
        (3, _) => 192,
        (5, _) => 128,
        (6, 0) => 64,
        (6, _) => 128,
        (7, _) => 64,
        (8, 0) => 64,
        (8, _) => 128,
        (9, 0) => 128,
        (10, _) | (11, _) | (12, _) => 128,
        _ => return None,
    })
}

/// Peak FP32 GFLOP/s (an FMA counts 2). Unknown architectures assume 128 lanes per SM.
pub fn fp32_peak_gflops(sm_count: u32, cc: (u32, u32), clock_mhz: u32) -> f64 {
    let lanes = fp32_lanes_per_sm(cc).unwrap_or(128);
    sm_count as f64 * lanes as f64 * 2.0 * clock_mhz as f64 / 1000.0
}

/// Theoretical DRAM bandwidth in GB/s: `2 × clock × bus width / 8` (double data rate); `None` if unknown.
pub fn theoretical_bandwidth_gbps(
    memory_clock_mhz: Option<u32>,
    bus_width_bits: Option<u32>,
) -> Option<f64> {
    match (memory_clock_mhz, bus_width_bits) {
        (Some(clock), Some(width)) if clock > 0 && width > 0 => {
            Some(2.0 * clock as f64 * 1e6 * width as f64 / 8.0 / 1e9)
        }
        _ => None,
    }
}

/// Every visible GPU, in CUDA ordinal order. Creates no context.
pub fn devices() -> Result<Vec<DeviceInfo>, GpuError> {
    let count = device_count()?;
    if count == 0 {
        return Err(GpuError::NoDevice);
    }
    (0..count).map(device_info).collect()
}

/// Number of visible GPUs (0 is reported as `Ok(0)` only if the driver says so after init).
pub fn device_count() -> Result<usize, GpuError> {
    probe::ensure_driver()?;
    guard("cuDeviceGetCount", || {
        cu_device::get_count().map_err(|e| driver("cuDeviceGetCount", e))
    })
    .map(|n| n.max(0) as usize)
}

/// `DeviceInfo` of one ordinal. Creates no context.
pub fn device_info(ordinal: usize) -> Result<DeviceInfo, GpuError> {
    let count = device_count()?;
    if ordinal >= count {
        return Err(if count == 0 {
            GpuError::NoDevice
        } else {
            GpuError::BadOrdinal { ordinal, count }
        });
    }
    guard("device query", || query(ordinal))
}

fn query(ordinal: usize) -> Result<DeviceInfo, GpuError> {
    let dev = cu_device::get(ordinal as i32).map_err(|e| driver("cuDeviceGet", e))?;
    let attr = |a: CUdevice_attribute| -> Result<u32, GpuError> { attribute(dev, a) };
    use CUdevice_attribute::*;
    let name = cu_device::get_name(dev).map_err(|e| driver("cuDeviceGetName", e))?;
    // SAFETY: `dev` came from cuDeviceGet.
    let memory_bytes =
        unsafe { cu_device::total_mem(dev) }.map_err(|e| driver("cuDeviceTotalMem", e))? as u64;
    let cc = (
        attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
        attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
    );
    let sm_count = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?;
    let pci_bus_id = format!(
        "{:08X}:{:02X}:{:02X}.0",
        attr(CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID)?,
        attr(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID)?,
        attr(CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID)?
    );
    // Clock attributes are deprecated in CUDA 13 and may read 0: fall back to nvidia-smi, never divide by 0.
    let clock_khz = attr(CU_DEVICE_ATTRIBUTE_CLOCK_RATE).unwrap_or(0);
    let clock_mhz = if clock_khz > 0 {
        clock_khz / 1000
    } else {
        smi::clock_mhz("clocks.max.sm", &pci_bus_id).unwrap_or(0)
    };
    let mem_khz = attr(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE).unwrap_or(0);
    let memory_clock_mhz = if mem_khz > 0 {
        Some(mem_khz / 1000)
    } else {
        smi::clock_mhz("clocks.max.memory", &pci_bus_id)
    };
    let bus_width_bits =
        Some(attr(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH).unwrap_or(0)).filter(|&w| w > 0);
    let cuda_version = probe::format_cuda_version(probe::driver_cuda_version()?);
    let nvrtc_version = nvrtc_version()
        .map(|(a, b)| format!("{a}.{b}"))
        .unwrap_or_else(|_| "unavailable".to_string());
    Ok(DeviceInfo {
        ordinal: ordinal as u32,
        slug: slug(&name),
        name,
        compute_capability: cc,
        sm_count,
        clock_mhz,
        memory_clock_mhz,
        bus_width_bits,
        l2_bytes: attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)? as u64,
        memory_bytes,
        max_threads_per_block: attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
        max_shared_per_block: attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)?,
        max_shared_per_block_optin: attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)?,
        max_shared_per_sm: attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)?,
        reserved_shared_per_block: attr(CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK)
            .unwrap_or(0),
        max_threads_per_sm: attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)?,
        max_blocks_per_sm: attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR)?,
        registers_per_sm: attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR)?,
        registers_per_block: attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK)?,
        warp_size: attr(CU_DEVICE_ATTRIBUTE_WARP_SIZE)?,
        driver_version: smi::driver_version(Some(&pci_bus_id)),
        pci_bus_id,
        uuid: cu_device::get_uuid(dev)
            .ok()
            .map(|u| format_uuid(u.bytes.map(|b| b as u8))),
        cuda_version,
        nvrtc_version,
        theoretical_bandwidth_gbps: theoretical_bandwidth_gbps(memory_clock_mhz, bus_width_bits),
        fp32_peak_gflops: fp32_peak_gflops(sm_count, cc, clock_mhz),
    })
}

/// `GPU-` and the 16 bytes as 8-4-4-4-12 hex digits (`nvidia-smi -L`'s form).
pub(crate) fn format_uuid(bytes: [u8; 16]) -> String {
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "GPU-{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

fn attribute(dev: CUdevice, a: CUdevice_attribute) -> Result<u32, GpuError> {
    // SAFETY: `dev` came from cuDeviceGet.
    let v = unsafe { cu_device::get_attribute(dev, a) }
        .map_err(|e| driver(&format!("cuDeviceGetAttribute({a:?})"), e))?;
    Ok(v.max(0) as u32)
}

#[cfg(test)]
#[path = "device_tests.rs"]
mod tests;
