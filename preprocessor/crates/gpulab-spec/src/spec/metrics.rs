//! The metrics an experiment can show (built-in and the spec's custom formulas, with labels and
//! units) and their values for one timed point: bandwidth, throughput, fractions of the device's
//! peaks and the custom formulas, each a value tagged with its unit.

use super::{CustomMetric, Experiment};
use crate::expr::{Expr, Num, Truncation};
use crate::metrics::{ATTRIBUTE_VARS, BUILTINS, DEVICE_VARS, DeviceVar, MetricInfo};
use crate::record::{Attributes, DeviceRecord};
use crate::value::{ParamValue, Quantity, Unit};
use std::collections::{BTreeMap, HashMap};

/// Label and unit of every metric an experiment can show: the built-in ones and its custom ones.
pub(crate) fn metric_infos(exp: &Experiment) -> BTreeMap<String, MetricInfo> {
    let mut m = BTreeMap::new();
    let mut add = |name: &str, label: &str, unit: Unit, uses_time: bool, better| {
        m.insert(
            name.to_string(),
            MetricInfo {
                label: label.to_string(),
                unit,
                uses_time,
                better,
            },
        );
    };
    for b in BUILTINS {
        add(b.name, b.label, b.unit, b.uses_time(), b.better);
    }
    for c in &exp.metrics.custom {
        let uses_time = c.expr.variables().iter().any(|v| v == "time_s");
        add(&c.name, &c.label, c.unit, uses_time, c.better);
    }
    m
}

/// Expression variables for a point: parameters (with `_X`/`_Y` for `"AxB"` values) and device values.
pub fn point_vars(
    params: &BTreeMap<String, ParamValue>,
    device: Option<&DeviceRecord>,
) -> HashMap<String, Num> {
    let mut vars = HashMap::new();
    for (k, v) in params {
        match v {
            ParamValue::Int(i) => {
                vars.insert(k.clone(), Num::Int(*i));
            }
            ParamValue::Float(f) => {
                vars.insert(k.clone(), Num::Float(*f));
            }
            ParamValue::Str(_) => {
                if let Some((a, b)) = v.as_dim2() {
                    vars.insert(format!("{k}_X"), Num::Int(a));
                    vars.insert(format!("{k}_Y"), Num::Int(b));
                    if let Some(n) = a.checked_mul(b) {
                        vars.insert(k.clone(), Num::Int(n));
                    }
                }
            }
        }
    }
    for def in DEVICE_VARS {
        let value = match (def.var, device) {
            (DeviceVar::Warp, _) => 32,
            (DeviceVar::SmCount, Some(d)) => d.sm_count as i64,
            (DeviceVar::L2Bytes, Some(d)) => d.l2_bytes as i64,
            (DeviceVar::MaxThreads, Some(_)) => 1024,
            (per_sm, Some(d)) => {
                let Some(l) = crate::limits::arch_limits(d.compute_capability) else {
                    continue;
                };
                let value = match per_sm {
                    DeviceVar::WarpsPerSm => l.warps_per_sm,
                    DeviceVar::RegistersPerSm => l.registers_per_sm,
                    DeviceVar::SharedPerSm => l.shared_per_sm,
                    _ => l.shared_reserved_per_block,
                };
                value as i64
            }
            (_, None) => continue,
        };
        vars.insert(def.name.into(), Num::Int(value));
    }
    vars
}

fn eval_f64(e: &Expr, vars: &HashMap<String, Num>) -> Option<f64> {
    e.eval(vars).ok().map(|n| n.as_f64())
}

/// The metric formulas of `variant` (`bytes`, `flops`, custom ones with the variant's overrides), by
/// metric name.
fn formulas<'a>(exp: &'a Experiment, variant: &str) -> Vec<(&'a str, &'a Expr)> {
    let mut out: Vec<(&str, &Expr)> = Vec::new();
    out.extend(
        variant_formula(exp, variant, "bytes", exp.metrics.bytes.as_ref()).map(|e| ("bytes", e)),
    );
    out.extend(
        variant_formula(exp, variant, "flops", exp.metrics.flops.as_ref()).map(|e| ("flops", e)),
    );
    for c in &exp.metrics.custom {
        out.push((c.name.as_str(), custom_formula(exp, variant, c)));
    }
    out
}

/// The spec formula a built-in rate is computed from by [`derive`]: `bytes` for `gbps` and
/// `pct_bw`, `flops` for `gflops` and `pct_fp32`.
pub(crate) fn rate_formula(metric: &str) -> Option<&'static str> {
    match metric {
        "gbps" | "pct_bw" => Some("bytes"),
        "gflops" | "pct_fp32" => Some("flops"),
        _ => None,
    }
}

/// Whether `variant` has formula `name` (`bytes` or `flops`): its own, or the spec's.
pub(crate) fn has_rate_formula(exp: &Experiment, variant: &str, name: &str) -> bool {
    let spec = match name {
        "bytes" => exp.metrics.bytes.as_ref(),
        "flops" => exp.metrics.flops.as_ref(),
        _ => None,
    };
    variant_formula(exp, variant, name, spec).is_some()
}

/// `variant`'s own formula for metric `name` (a variant doing a different amount of work sets
/// its own `bytes`, `flops` or custom formula), else the spec's `spec`.
fn variant_formula<'a>(
    exp: &'a Experiment,
    variant: &str,
    name: &str,
    spec: Option<&'a Expr>,
) -> Option<&'a Expr> {
    exp.variant(variant)
        .and_then(|v| v.metrics.iter().find(|(n, _)| n == name))
        .map(|(_, e)| e)
        .or(spec)
}

/// The formula of custom metric `c` for `variant`: the variant's override, else the spec's.
fn custom_formula<'a>(exp: &'a Experiment, variant: &str, c: &'a CustomMetric) -> &'a Expr {
    variant_formula(exp, variant, &c.name, Some(&c.expr)).unwrap_or(&c.expr)
}

/// The integer divisions that drop a remainder in `variant`'s metric formulas at `params` (the time
/// taken as 1 s; device variables unknown): `check` warns about each, since a truncated metric is
/// almost always a bug (metric `/` is real division; only `div(a, b)` truncates).
pub fn metric_truncations(
    exp: &Experiment,
    variant: &str,
    params: &BTreeMap<String, ParamValue>,
) -> Vec<(String, Truncation)> {
    let mut vars = point_vars(params, None);
    vars.insert("time_s".into(), Num::Float(1.0));
    for (name, nominal) in ATTRIBUTE_VARS {
        vars.insert(name.to_string(), Num::Int(*nominal));
    }
    formulas(exp, variant)
        .into_iter()
        .flat_map(|(name, e)| {
            e.truncations(&vars)
                .into_iter()
                .map(move |t| (name.to_string(), t))
        })
        .collect()
}

/// The work of `variant` at `params` by the spec's `flops` formula (for the counter metrics).
pub fn flops_at(
    exp: &Experiment,
    variant: &str,
    params: &BTreeMap<String, ParamValue>,
    device: &DeviceRecord,
) -> Option<f64> {
    let vars = point_vars(params, Some(device));
    variant_formula(exp, variant, "flops", exp.metrics.flops.as_ref())
        .and_then(|e| eval_f64(e, &vars))
}

/// Metrics of one timed point: `gbps`/`pct_bw` from `bytes`, `gflops`/`pct_fp32` from `flops`,
/// and the custom formulas (which may use `time_s` and the kernel's `attributes`).
pub fn derive(
    exp: &Experiment,
    variant: &str,
    params: &BTreeMap<String, ParamValue>,
    (time_ms, attributes): (f64, Option<&Attributes>),
    device: &DeviceRecord,
) -> BTreeMap<String, Quantity> {
    let mut vars = point_vars(params, Some(device));
    let time_s = time_ms / 1e3;
    vars.insert("time_s".into(), Num::Float(time_s));
    if let Some(a) = attributes {
        let occupancy = a.occupancy.as_ref();
        let values = [
            ("registers", Some(a.registers)),
            ("static_shared_bytes", Some(a.static_shared_bytes)),
            ("blocks_per_sm", occupancy.map(|o| o.blocks_per_sm)),
            ("warps_per_sm", occupancy.map(|o| o.warps_per_sm)),
        ];
        debug_assert!(values.iter().zip(ATTRIBUTE_VARS).all(|(v, a)| v.0 == a.0));
        for (name, value) in values {
            if let Some(v) = value {
                vars.insert(name.to_string(), Num::Int(i64::from(v)));
            }
        }
    }
    let mut out = BTreeMap::new();
    let mut put = |name: &str, value: f64, unit: Unit| {
        if value.is_finite() {
            out.insert(name.to_string(), Quantity { value, unit });
        }
    };
    let bytes_expr = variant_formula(exp, variant, "bytes", exp.metrics.bytes.as_ref());
    let flops_expr = variant_formula(exp, variant, "flops", exp.metrics.flops.as_ref());
    if time_s > 0.0 {
        if let Some(bytes) = bytes_expr.and_then(|e| eval_f64(e, &vars)) {
            let gbps = bytes / time_s / 1e9;
            put("gbps", gbps, Unit::GigabytesPerSec);
            if let Some(peak) = device.theoretical_bandwidth_gbps.filter(|p| *p > 0.0) {
                put("pct_bw", 100.0 * gbps / peak, Unit::Percent);
            }
        }
        if let Some(flops) = flops_expr.and_then(|e| eval_f64(e, &vars)) {
            let gflops = flops / time_s / 1e9;
            put("gflops", gflops, Unit::GflopsPerSec);
            if device.fp32_peak_gflops > 0.0 {
                put(
                    "pct_fp32",
                    100.0 * gflops / device.fp32_peak_gflops,
                    Unit::Percent,
                );
            }
        }
    }
    for c in &exp.metrics.custom {
        if let Some(v) = eval_f64(custom_formula(exp, variant, c), &vars) {
            put(&c.name, v, c.unit);
        }
    }
    out
}

#[cfg(test)]
mod tests {
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
}
