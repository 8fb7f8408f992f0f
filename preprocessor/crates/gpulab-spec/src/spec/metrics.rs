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
    // The per-SM limits come from the architecture's table; an architecture it does not know has none.
    let limits = device.and_then(|d| crate::limits::arch_limits(d.compute_capability));
    let per_sm = |f: fn(&crate::limits::ArchLimits) -> u64| limits.as_ref().map(|l| f(l) as i64);
    for def in DEVICE_VARS {
        let value = match (def.var, device) {
            (DeviceVar::Warp, _) => Some(32),
            (_, None) => None,
            (DeviceVar::SmCount, Some(d)) => Some(d.sm_count as i64),
            (DeviceVar::L2Bytes, Some(d)) => Some(d.l2_bytes as i64),
            (DeviceVar::MaxThreads, Some(_)) => Some(1024),
            (DeviceVar::WarpsPerSm, _) => per_sm(|l| l.warps_per_sm),
            (DeviceVar::RegistersPerSm, _) => per_sm(|l| l.registers_per_sm),
            (DeviceVar::SharedPerSm, _) => per_sm(|l| l.shared_per_sm),
            (DeviceVar::SharedReservedPerBlock, _) => per_sm(|l| l.shared_reserved_per_block),
        };
        if let Some(value) = value {
            vars.insert(def.name.into(), Num::Int(value));
        }
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
#[path = "metrics_tests.rs"]
mod tests;
