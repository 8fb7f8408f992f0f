//! Tests of `attributes`.

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
