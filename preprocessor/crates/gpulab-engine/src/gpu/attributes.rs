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
#[path = "attributes_tests.rs"]
mod tests;
