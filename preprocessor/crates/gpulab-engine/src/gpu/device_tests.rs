//! Tests of `device`.

use super::*;

#[test]
fn slugs() {
    assert_eq!(slug("NVIDIA H100 80GB HBM3"), "nvidia-h100-80gb-hbm3");
    assert_eq!(slug("  GeForce 9600M GT!! "), "geforce-9600m-gt");
    assert_eq!(slug("NVIDIA A100-SXM4-40GB"), "nvidia-a100-sxm4-40gb");
    assert_eq!(slug("Tesla  K20c (rev. a1)"), "tesla-k20c-rev-a1");
    assert_eq!(slug("---"), "");
}

#[test]
fn lanes_by_compute_capability() {
    assert_eq!(fp32_lanes_per_sm((1, 1)), Some(8));
    assert_eq!(fp32_lanes_per_sm((2, 0)), Some(32));
    assert_eq!(fp32_lanes_per_sm((2, 1)), Some(48));
    assert_eq!(fp32_lanes_per_sm((3, 5)), Some(192));
    assert_eq!(fp32_lanes_per_sm((5, 2)), Some(128));
    assert_eq!(fp32_lanes_per_sm((6, 0)), Some(64));
    assert_eq!(fp32_lanes_per_sm((6, 1)), Some(128));
    assert_eq!(fp32_lanes_per_sm((7, 0)), Some(64));
    assert_eq!(fp32_lanes_per_sm((7, 5)), Some(64));
    assert_eq!(fp32_lanes_per_sm((8, 0)), Some(64));
    assert_eq!(fp32_lanes_per_sm((8, 6)), Some(128));
    assert_eq!(fp32_lanes_per_sm((8, 9)), Some(128));
    assert_eq!(fp32_lanes_per_sm((9, 0)), Some(128));
    assert_eq!(fp32_lanes_per_sm((10, 0)), Some(128));
    assert_eq!(fp32_lanes_per_sm((12, 0)), Some(128));
    assert_eq!(fp32_lanes_per_sm((4, 0)), None);
}

#[test]
fn h100_peaks() {
    let gflops = fp32_peak_gflops(132, (9, 0), 1980);
    assert!((gflops - 66908.16).abs() < 0.01, "{gflops}");
    let bw = theoretical_bandwidth_gbps(Some(2619), Some(5120)).unwrap();
    assert!((bw - 3352.32).abs() < 0.01, "{bw}");
}

#[test]
fn unknown_memory_clock_gives_no_bandwidth() {
    assert_eq!(theoretical_bandwidth_gbps(None, Some(5120)), None);
    assert_eq!(theoretical_bandwidth_gbps(Some(0), Some(5120)), None);
    assert_eq!(theoretical_bandwidth_gbps(Some(2619), None), None);
}

#[test]
fn device_info_serde_round_trip() {
    let info = DeviceInfo {
        ordinal: 0,
        name: "NVIDIA H100 80GB HBM3".into(),
        slug: "nvidia-h100-80gb-hbm3".into(),
        compute_capability: (9, 0),
        sm_count: 132,
        clock_mhz: 1980,
        memory_clock_mhz: Some(2619),
        bus_width_bits: Some(5120),
        l2_bytes: 52_428_800,
        memory_bytes: 85_520_809_984,
        max_threads_per_block: 1024,
        max_shared_per_block: 49152,
        max_shared_per_block_optin: 232_448,
        max_shared_per_sm: 233_472,
        reserved_shared_per_block: 1024,
        max_threads_per_sm: 2048,
        max_blocks_per_sm: 32,
        registers_per_sm: 65536,
        registers_per_block: 65536,
        warp_size: 32,
        pci_bus_id: "00000000:3B:00.0".into(),
        uuid: Some(format_uuid([0xab; 16])),
        driver_version: Some("580.159.04".into()),
        cuda_version: "13.0".into(),
        nvrtc_version: "13.0".into(),
        theoretical_bandwidth_gbps: Some(3352.32),
        fp32_peak_gflops: 66908.16,
    };
    let json = serde_json::to_string(&info).unwrap();
    assert!(json.contains("\"compute_capability\":[9,0]"), "{json}");
    let back: DeviceInfo = serde_json::from_str(&json).unwrap();
    assert_eq!(back, info);
}

#[test]
fn uuid_is_formatted_as_nvidia_smi_prints_it() {
    let mut b = [0u8; 16];
    for (i, x) in b.iter_mut().enumerate() {
        *x = i as u8 * 17;
    }
    assert_eq!(format_uuid(b), "GPU-00112233-4455-6677-8899-aabbccddeeff");
}

#[test]
fn devices_without_a_driver_is_an_error() {
    if !probe::driver_library_present() {
        assert!(matches!(devices(), Err(GpuError::LibraryMissing { .. })));
    }
}
