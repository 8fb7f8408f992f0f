//! `mdbook-gpulab devices`: the GPUs this machine can run experiments on.

use std::process::ExitCode;

pub(super) fn run() -> anyhow::Result<ExitCode> {
    let devices = crate::gpu::devices()?;
    for (i, d) in devices.iter().enumerate() {
        println!("GPU {i}: {} ({})", d.name, d.slug);
        println!(
            "  compute capability {}.{}, {} SMs, {} MHz",
            d.compute_capability.0, d.compute_capability.1, d.sm_count, d.clock_mhz
        );
        println!(
            "  memory {:.1} GiB, L2 {:.1} MiB",
            d.memory_bytes as f64 / (1u64 << 30) as f64,
            d.l2_bytes as f64 / (1u64 << 20) as f64
        );
        match (d.memory_clock_mhz, d.bus_width_bits) {
            (Some(m), Some(b)) => println!("  memory clock {m} MHz, bus {b} bit"),
            _ => println!("  memory clock / bus width: not reported by the driver"),
        }
        match d.theoretical_bandwidth_gbps {
            Some(bw) => {
                println!("  theoretical bandwidth {bw:.1} GB/s (2 x memory clock x bus width / 8)")
            }
            None => println!("  theoretical bandwidth: unknown"),
        }
        println!(
            "  FP32 peak {:.1} GFLOP/s (SMs x FP32 lanes x 2 x clock)",
            d.fp32_peak_gflops
        );
        println!(
            "  driver {} (CUDA {}), NVRTC {}",
            d.driver_version.as_deref().unwrap_or("?"),
            d.cuda_version,
            d.nvrtc_version
        );
    }
    Ok(ExitCode::SUCCESS)
}
