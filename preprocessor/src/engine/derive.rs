//! Derived metrics of one timed point: bandwidth, throughput, fractions of the device's peaks
//! and the spec's custom formulas, each a value tagged with its unit.

use crate::expr::{Expr, Num, Truncation};
use crate::metrics::point_vars;
use crate::record::DeviceRecord;
use crate::spec::{CustomMetric, Experiment};
use crate::value::{ParamValue, Quantity, Unit};
use std::collections::{BTreeMap, HashMap};

fn eval_f64(e: &Expr, vars: &HashMap<String, Num>) -> Option<f64> {
    e.eval(vars).ok().map(|n| n.as_f64())
}

/// The metric formulas of `variant` (`bytes`, `flops`, custom ones with the variant's overrides), by
/// metric name.
fn formulas<'a>(exp: &'a Experiment, variant: &str) -> Vec<(&'a str, &'a Expr)> {
    let mut out: Vec<(&str, &Expr)> = Vec::new();
    out.extend(exp.metrics.bytes.as_ref().map(|e| ("bytes", e)));
    out.extend(exp.metrics.flops.as_ref().map(|e| ("flops", e)));
    for c in &exp.metrics.custom {
        out.push((c.name.as_str(), custom_formula(exp, variant, c)));
    }
    out
}

/// The formula of custom metric `c` for `variant`: the variant's override, else the spec's.
fn custom_formula<'a>(exp: &'a Experiment, variant: &str, c: &'a CustomMetric) -> &'a Expr {
    exp.variant(variant)
        .and_then(|v| v.metrics.iter().find(|(n, _)| n == &c.name))
        .map(|(_, e)| e)
        .unwrap_or(&c.expr)
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
    formulas(exp, variant)
        .into_iter()
        .flat_map(|(name, e)| {
            e.truncations(&vars)
                .into_iter()
                .map(move |t| (name.to_string(), t))
        })
        .collect()
}

/// Metrics of one timed point: `gbps`/`pct_bw` from `bytes`, `gflops`/`pct_fp32` from `flops`,
/// and the custom formulas (which may use `time_s`).
pub fn derive(
    exp: &Experiment,
    variant: &str,
    params: &BTreeMap<String, ParamValue>,
    time_ms: f64,
    device: &DeviceRecord,
) -> BTreeMap<String, Quantity> {
    let mut vars = point_vars(params, Some(device));
    let time_s = time_ms / 1e3;
    vars.insert("time_s".into(), Num::Float(time_s));
    let mut out = BTreeMap::new();
    let mut put = |name: &str, value: f64, unit: Unit| {
        if value.is_finite() {
            out.insert(name.to_string(), Quantity { value, unit });
        }
    };
    if time_s > 0.0 {
        if let Some(bytes) = exp.metrics.bytes.as_ref().and_then(|e| eval_f64(e, &vars)) {
            let gbps = bytes / time_s / 1e9;
            put("gbps", gbps, Unit::GigabytesPerSec);
            if let Some(peak) = device.theoretical_bandwidth_gbps.filter(|p| *p > 0.0) {
                put("pct_bw", 100.0 * gbps / peak, Unit::Percent);
            }
        }
        if let Some(flops) = exp.metrics.flops.as_ref().and_then(|e| eval_f64(e, &vars)) {
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
