//! Tests of `metrics`.

use super::*;

const SPEC: &str = r#"
title = "Two variants, different work"
source = "k.cu"
[params]
N = 1000
[[buffer]]
name = "x"
type = "f32"
len = "N"
[verify]
reference = "sum"
inputs = ["x"]
output = "x"
[metrics]
bytes = "8*N"
[[variant]]
name = "full"
kernel = "k"
grid = ["1"]
block = ["1"]
[[variant]]
name = "half"
kernel = "k"
grid = ["1"]
block = ["1"]
metrics = { bytes = "4*N", flops = "N" }
"#;

/// Loads `spec` as experiment `two` of a temporary book.
fn load(spec: &str) -> (tempfile::TempDir, Experiment) {
    let dir = tempfile::tempdir().unwrap();
    let exp_dir = dir.path().join("kernels/two");
    std::fs::create_dir_all(&exp_dir).unwrap();
    std::fs::write(exp_dir.join("experiment.toml"), spec).unwrap();
    std::fs::write(exp_dir.join("k.cu"), "extern \"C\" __global__ void k() {}").unwrap();
    let exp = crate::spec::load(dir.path(), &dir.path().join("kernels"), "two")
        .unwrap_or_else(|d| panic!("{d:?}"));
    (dir, exp)
}

#[test]
fn a_variant_that_does_other_work_uses_its_own_bytes_and_flops() {
    let (_dir, exp) = load(SPEC);
    let params = BTreeMap::from([("N".to_string(), ParamValue::Int(1000))]);
    let device = crate::record::fixture::device();
    // 1 ms: 8000 bytes → 0.008 GB/s for the spec's formula, 4000 → 0.004 for `half`.
    let full = derive(&exp, "full", &params, (1.0, None), &device);
    let half = derive(&exp, "half", &params, (1.0, None), &device);
    assert!((full["gbps"].value - 0.008).abs() < 1e-12, "{full:?}");
    assert!((half["gbps"].value - 0.004).abs() < 1e-12, "{half:?}");
    assert!(!full.contains_key("gflops"), "the spec has no flops");
    assert!((half["gflops"].value - 0.001).abs() < 1e-12, "{half:?}");
}

/// The percentages are of the recording's device peaks; without a bandwidth peak there is no
/// `pct_bw`, and a custom formula sees `time_s`.
#[test]
fn percentages_follow_the_device_peaks_and_custom_formulas_see_the_time() {
    let spec = SPEC.replace(
        "bytes = \"8*N\"",
        "bytes = \"8*N\"\nflops = \"2*N\"\n[metrics.custom]\nper_s = { expr = \"N / time_s\", unit = \"GFLOP/s\" }",
    );
    let (_dir, exp) = load(&spec);
    let params = BTreeMap::from([("N".to_string(), ParamValue::Int(1000))]);
    let mut device = crate::record::fixture::device();
    // 0.5 ms: 8000 B → 0.016 GB/s (0.016 % of 100 GB/s); 2000 FLOP → 0.004 GFLOP/s (of 1000).
    let m = derive(&exp, "full", &params, (0.5, None), &device);
    assert!((m["gbps"].value - 0.016).abs() < 1e-12, "{m:?}");
    assert!((m["pct_bw"].value - 0.016).abs() < 1e-12, "{m:?}");
    assert!((m["pct_fp32"].value - 0.0004).abs() < 1e-12, "{m:?}");
    assert!((m["per_s"].value - 2e6).abs() < 1e-6, "{m:?}");
    assert_eq!(m["pct_bw"].unit, Unit::Percent);
    device.theoretical_bandwidth_gbps = None;
    let m = derive(&exp, "full", &params, (0.5, None), &device);
    assert!(m.contains_key("gbps") && !m.contains_key("pct_bw"), "{m:?}");
}

/// A zero time gives no rates (rather than infinities), and a custom formula that divides by
/// it is left out rather than shown as `inf`.
#[test]
fn a_zero_time_gives_no_rates_and_no_infinite_values() {
    let spec = SPEC.replace(
        "bytes = \"8*N\"",
        "bytes = \"8*N\"\n[metrics.custom]\nper_s = { expr = \"N / time_s\", unit = \"GFLOP/s\" }",
    );
    let (_dir, exp) = load(&spec);
    let params = BTreeMap::from([("N".to_string(), ParamValue::Int(1000))]);
    let m = derive(
        &exp,
        "full",
        &params,
        (0.0, None),
        &crate::record::fixture::device(),
    );
    assert!(m.is_empty(), "{m:?}");
}

/// The per-SM limits were Hopper's, hard-coded in a spec: an sm_86 GPU now counts its own 48
/// warps, and an architecture the table does not know gets no per-SM variables (an empty cell,
/// not Hopper's numbers).
#[test]
fn occupancy_variables_are_the_devices_architectures() {
    let params = BTreeMap::new();
    let mut device = crate::record::fixture::device();
    device.compute_capability = (8, 6);
    let vars = point_vars(&params, Some(&device));
    assert_eq!(vars["WARPS_PER_SM"].as_f64(), 48.0);
    assert_eq!(vars["SHARED_PER_SM"].as_f64(), 102_400.0);
    device.compute_capability = (99, 0);
    let vars = point_vars(&params, Some(&device));
    assert!(!vars.contains_key("WARPS_PER_SM") && vars.contains_key("SM_COUNT"));
}
