//! SYNTHETIC test data: a made-up device record. Its numbers were never measured.

use super::DeviceRecord;

pub fn device() -> DeviceRecord {
    DeviceRecord {
        slug: "synthetic-gpu".into(),
        name: "Synthetic GPU X1".into(),
        compute_capability: (9, 0),
        sm_count: 10,
        clock_mhz: 1000,
        memory_clock_mhz: None,
        bus_width_bits: None,
        l2_bytes: 1 << 20,
        memory_bytes: 1 << 30,
        driver_version: Some("999.1".into()),
        cuda_version: "13.0".into(),
        nvrtc_version: "13.0".into(),
        theoretical_bandwidth_gbps: Some(100.0),
        fp32_peak_gflops: 1000.0,
    }
}
