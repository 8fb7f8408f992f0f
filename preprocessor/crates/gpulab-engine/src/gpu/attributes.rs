//! Compiled-kernel attributes and theoretical occupancy (driver count + our own limiter analysis).

use super::device::DeviceInfo;
use super::error::GpuError;
use super::module::Kernel;
use super::session::Gpu;
use cudarc::driver::sys::{self, CUfunction_attribute};
use serde::{Deserialize, Serialize};
use std::ffi::c_int;

/// What the compiler gave a kernel, and its occupancy at one launch configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KernelAttributes {
    pub registers: u32,
    pub static_shared_bytes: u32,
    /// Local memory (spills, stack) per thread.
    pub local_bytes: u32,
    /// The most threads per block this kernel can launch with (registers may lower it below 1024).
    pub max_threads_per_block: u32,
    pub const_bytes: u32,
    pub occupancy: Occupancy,
}

/// Theoretical occupancy of one launch configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Occupancy {
    /// Resident blocks per SM, from `cuOccupancyMaxActiveBlocksPerMultiprocessor`.
    pub blocks_per_sm: u32,
    pub warps_per_sm: u32,
    pub max_warps_per_sm: u32,
    /// What bounds `blocks_per_sm`: "registers" | "shared memory" | "threads" | "blocks".
    pub limiter: String,
}

/// Per-SM resources that bound occupancy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SmLimits {
    pub registers_per_sm: u32,
    pub max_registers_per_block: u32,
    /// Registers are allocated per warp in units of this many.
    pub register_alloc_unit: u32,
    /// The register file is split into this many sub-partitions (warps do not straddle them).
    pub register_sub_partitions: u32,
    pub shared_per_sm: u32,
    pub shared_alloc_unit: u32,
    pub reserved_shared_per_block: u32,
    pub threads_per_sm: u32,
    pub blocks_per_sm: u32,
    pub warp_size: u32,
}

impl SmLimits {
    /// The limits of a device as the driver reports them.
    pub fn from_info(info: &DeviceInfo) -> SmLimits {
        SmLimits {
            registers_per_sm: info.registers_per_sm,
            max_registers_per_block: info.registers_per_block,
            register_alloc_unit: 256,
            register_sub_partitions: 4,
            shared_per_sm: info.max_shared_per_sm,
            shared_alloc_unit: 128,
            reserved_shared_per_block: info.reserved_shared_per_block,
            threads_per_sm: info.max_threads_per_sm,
            blocks_per_sm: info.max_blocks_per_sm,
            warp_size: info.warp_size.max(1),
        }
    }
}

/// Blocks per SM allowed by each resource, and the binding one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OccupancyEstimate {
    pub by_threads: u32,
    pub by_blocks: u32,
    pub by_registers: u32,
    pub by_shared: u32,
    pub blocks_per_sm: u32,
    pub limiter: &'static str,
}

fn round_up(x: u64, unit: u64) -> u64 {
    if unit == 0 {
        x
    } else {
        x.div_ceil(unit) * unit
    }
}

/// Blocks per SM for a block's threads, registers and shared memory, as the CUDA occupancy
/// calculator computes them (ties go to threads, blocks, registers, shared memory, in that order).
pub fn estimate_occupancy(
    l: &SmLimits,
    block_threads: u32,
    registers: u32,
    shared_bytes: u32,
) -> OccupancyEstimate {
    let warp = l.warp_size.max(1) as u64;
    let warps_per_block = (block_threads as u64).div_ceil(warp);
    let by_threads = if warps_per_block == 0 {
        0
    } else {
        l.threads_per_sm as u64 / (warps_per_block * warp)
    };
    let by_blocks = l.blocks_per_sm as u64;
    let by_registers = if registers == 0 || warps_per_block == 0 {
        u64::from(u32::MAX)
    } else {
        let regs_per_warp = round_up(registers as u64 * warp, l.register_alloc_unit as u64);
        if regs_per_warp * warps_per_block > l.max_registers_per_block as u64 {
            0
        } else {
            let parts = l.register_sub_partitions.max(1) as u64;
            let warps_per_part = (l.registers_per_sm as u64 / parts) / regs_per_warp;
            warps_per_part * parts / warps_per_block
        }
    };
    let smem = round_up(
        shared_bytes as u64 + l.reserved_shared_per_block as u64,
        l.shared_alloc_unit as u64,
    );
    let by_shared = (l.shared_per_sm as u64)
        .checked_div(smem)
        .unwrap_or(u64::from(u32::MAX));
    let candidates = [
        ("threads", by_threads),
        ("blocks", by_blocks),
        ("registers", by_registers),
        ("shared memory", by_shared),
    ];
    let (limiter, blocks) =
        candidates.iter().fold(
            candidates[0],
            |best, &c| if c.1 < best.1 { c } else { best },
        );
    let clamp = |v: u64| v.min(u64::from(u32::MAX)) as u32;
    OccupancyEstimate {
        by_threads: clamp(by_threads),
        by_blocks: clamp(by_blocks),
        by_registers: clamp(by_registers),
        by_shared: clamp(by_shared),
        blocks_per_sm: clamp(blocks),
        limiter,
    }
}

impl Gpu {
    /// Registers, memory and occupancy of `kernel` at `block_threads` and `dynamic_shared` bytes.
    pub fn attributes(
        &self,
        kernel: &Kernel,
        block_threads: u32,
        dynamic_shared: u32,
    ) -> Result<KernelAttributes, GpuError> {
        use CUfunction_attribute::*;
        let registers = kernel.attribute(CU_FUNC_ATTRIBUTE_NUM_REGS)?;
        let static_shared_bytes = kernel.attribute(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)?;
        let local_bytes = kernel.attribute(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)?;
        let max_threads_per_block = kernel.attribute(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?;
        let const_bytes = kernel.attribute(CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES)?;
        if dynamic_shared <= self.info().max_shared_per_block_optin {
            kernel.allow_dynamic_shared(dynamic_shared)?;
        }
        let mut blocks: c_int = 0;
        // SAFETY: valid function; writes one int.
        let r = unsafe {
            sys::cuOccupancyMaxActiveBlocksPerMultiprocessor(
                &mut blocks,
                kernel.raw(),
                block_threads as c_int,
                dynamic_shared as usize,
            )
        }
        .result();
        kernel
            .shared()
            .call("cuOccupancyMaxActiveBlocksPerMultiprocessor", r)?;
        let limits = SmLimits::from_info(self.info());
        let estimate = estimate_occupancy(
            &limits,
            block_threads,
            registers,
            static_shared_bytes + dynamic_shared,
        );
        let blocks_per_sm = blocks.max(0) as u32;
        let warps_per_block = block_threads.div_ceil(limits.warp_size);
        Ok(KernelAttributes {
            registers,
            static_shared_bytes,
            local_bytes,
            max_threads_per_block,
            const_bytes,
            occupancy: Occupancy {
                blocks_per_sm,
                warps_per_sm: blocks_per_sm * warps_per_block,
                max_warps_per_sm: limits.threads_per_sm / limits.warp_size,
                limiter: estimate.limiter.to_string(),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// H100 (sm_90): 64 Ki registers, 228 KiB shared memory, 2048 threads and 32 blocks per SM.
    const H: SmLimits = SmLimits {
        registers_per_sm: 65536,
        max_registers_per_block: 65536,
        register_alloc_unit: 256,
        register_sub_partitions: 4,
        shared_per_sm: 228 * 1024,
        shared_alloc_unit: 128,
        reserved_shared_per_block: 1024,
        threads_per_sm: 2048,
        blocks_per_sm: 32,
        warp_size: 32,
    };

    #[test]
    fn full_occupancy_is_limited_by_threads() {
        // 256 threads, 32 registers, no shared memory: 8 blocks = 64 warps (100%).
        let e = estimate_occupancy(&H, 256, 32, 0);
        assert_eq!(e.by_threads, 8);
        assert_eq!(e.by_registers, 8);
        assert_eq!(e.blocks_per_sm, 8);
        assert_eq!(e.limiter, "threads");
    }

    #[test]
    fn small_blocks_are_limited_by_the_block_count() {
        // 32 threads per block: threads allow 64 blocks, the SM holds 32.
        let e = estimate_occupancy(&H, 32, 16, 0);
        assert_eq!(e.by_threads, 64);
        assert_eq!(e.blocks_per_sm, 32);
        assert_eq!(e.limiter, "blocks");
    }

    #[test]
    fn many_registers_limit_occupancy() {
        // 128 regs/thread → 4096 regs/warp; 16384/4096 = 4 warps per sub-partition → 16 warps → 2 blocks of 256.
        let e = estimate_occupancy(&H, 256, 128, 0);
        assert_eq!(e.by_registers, 2);
        assert_eq!(e.blocks_per_sm, 2);
        assert_eq!(e.limiter, "registers");
        // 40 regs → 1280 per warp; 16384/1280 = 12 warps per sub-partition (not 51.2/4): 48 warps → 6 blocks.
        let e = estimate_occupancy(&H, 256, 40, 0);
        assert_eq!(e.by_registers, 6);
        assert_eq!(e.limiter, "registers");
        // 255 regs × 1024 threads do not fit a block at all.
        let e = estimate_occupancy(&H, 1024, 255, 0);
        assert_eq!(e.by_registers, 0);
        assert_eq!(e.blocks_per_sm, 0);
    }

    #[test]
    fn shared_memory_limits_occupancy() {
        // 48 KiB + 1 KiB reserved per block: 228 / 49 = 4 blocks.
        let e = estimate_occupancy(&H, 256, 32, 48 * 1024);
        assert_eq!(e.by_shared, 4);
        assert_eq!(e.limiter, "shared memory");
        // 100 KiB: 2 blocks; 227 KiB (the opt-in maximum): 1 block.
        assert_eq!(estimate_occupancy(&H, 128, 32, 100 * 1024).by_shared, 2);
        assert_eq!(estimate_occupancy(&H, 128, 32, 227 * 1024).by_shared, 1);
    }

    #[test]
    fn odd_block_sizes_round_to_warps() {
        // 100 threads = 4 warps: 2048 / 128 = 16 blocks, capped at 32 by nothing else.
        let e = estimate_occupancy(&H, 100, 16, 0);
        assert_eq!(e.by_threads, 16);
        assert_eq!(e.limiter, "threads");
        let e = estimate_occupancy(&H, 0, 16, 0);
        assert_eq!(e.blocks_per_sm, 0);
    }

    #[test]
    fn attributes_serialize_like_the_recording() {
        let a = KernelAttributes {
            registers: 32,
            static_shared_bytes: 0,
            local_bytes: 0,
            max_threads_per_block: 1024,
            const_bytes: 0,
            occupancy: Occupancy {
                blocks_per_sm: 8,
                warps_per_sm: 64,
                max_warps_per_sm: 64,
                limiter: "threads".into(),
            },
        };
        let json = serde_json::to_value(&a).unwrap();
        assert_eq!(json["occupancy"]["limiter"], "threads");
        assert_eq!(json["registers"], 32);
    }
}
