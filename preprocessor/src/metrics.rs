//! Derived metrics: bandwidth, throughput, fractions of the device's peaks and the spec's
//! custom formulas, each a value tagged with its unit so renderers need no per-metric code.

use crate::expr::{Expr, Num};
use crate::record::DeviceRecord;
use crate::render::view::MetricInfo;
use crate::spec::Experiment;
use crate::value::{ParamValue, Quantity, Unit};
use std::collections::{BTreeMap, HashMap};

/// Label and unit of every metric an experiment can show.
pub fn metric_infos(exp: &Experiment) -> BTreeMap<String, MetricInfo> {
    let mut m = BTreeMap::new();
    let mut add = |name: &str, label: &str, unit: Unit| {
        m.insert(
            name.to_string(),
            MetricInfo {
                label: label.to_string(),
                unit,
            },
        );
    };
    add("time_ms", "time", Unit::Millis);
    add("gbps", "bandwidth", Unit::GigabytesPerSec);
    add("pct_bw", "of peak bandwidth", Unit::Percent);
    add("gflops", "throughput", Unit::GflopsPerSec);
    add("pct_fp32", "of FP32 peak", Unit::Percent);
    add("registers", "registers per thread", Unit::Count);
    add("static_shared_bytes", "static shared memory", Unit::Bytes);
    add("local_bytes", "local memory per thread", Unit::Bytes);
    add("blocks_per_sm", "blocks per SM", Unit::Count);
    add("warps_per_sm", "warps per SM", Unit::Count);
    add("limiter", "occupancy limited by", Unit::Count);
    for c in &exp.metrics.custom {
        add(&c.name, &c.label, c.unit);
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
                    vars.insert(k.clone(), Num::Int(a * b));
                }
            }
        }
    }
    vars.insert("WARP".into(), Num::Int(32));
    if let Some(d) = device {
        vars.insert("SM_COUNT".into(), Num::Int(d.sm_count as i64));
        vars.insert("L2_BYTES".into(), Num::Int(d.l2_bytes as i64));
        vars.insert("MAX_THREADS".into(), Num::Int(1024));
    }
    vars
}

fn eval_f64(e: &Expr, vars: &HashMap<String, Num>) -> Option<f64> {
    e.eval(vars).ok().map(|n| n.as_f64())
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
    let overrides = exp
        .variant(variant)
        .map(|v| v.metrics.clone())
        .unwrap_or_default();
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
        let expr = overrides
            .iter()
            .find(|(n, _)| n == &c.name)
            .map(|(_, e)| e)
            .unwrap_or(&c.expr);
        if let Some(v) = eval_f64(expr, &vars) {
            put(&c.name, v, c.unit);
        }
    }
    out
}
