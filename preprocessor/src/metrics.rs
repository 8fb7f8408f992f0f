//! Derived metrics: bandwidth, throughput, fractions of the device's peaks and the spec's
//! custom formulas, each a value tagged with its unit so renderers need no per-metric code.

use crate::directive::{ChartKind, Directive};
use crate::expr::{Expr, Num, Truncation};
use crate::record::DeviceRecord;
use crate::render::view::MetricInfo;
use crate::spec::{CustomMetric, Experiment};
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

/// How a relative metric compares a cell with its baseline cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RelativeKind {
    /// `speedup:<baseline>`: baseline time ÷ this time (×).
    Speedup,
    /// `pct_of:<baseline>`: 100 × baseline time ÷ this time (%).
    PctOf,
}

/// The cell a relative metric compares with, at the same axis values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Baseline {
    /// A variant of the directive, by name.
    Variant(String),
    /// The variant before this one in the directive's `variants` order.
    Previous,
}

/// A metric computed at render time from two recorded points of the same directive:
/// `speedup:<variant>`, `speedup:previous` or `pct_of:<variant>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelativeMetric {
    pub kind: RelativeKind,
    pub baseline: Baseline,
}

/// The baseline keyword that names the previous variant of the directive.
pub const PREVIOUS: &str = "previous";

impl RelativeMetric {
    /// Parses `speedup:<x>` / `pct_of:<x>`; `None` for any other name (a plain metric). The
    /// baseline is not checked against a directive here (see `directive::validate`).
    pub fn parse(name: &str) -> Option<RelativeMetric> {
        let (prefix, baseline) = name.split_once(':')?;
        let kind = match prefix {
            "speedup" => RelativeKind::Speedup,
            "pct_of" => RelativeKind::PctOf,
            _ => return None,
        };
        let baseline = match baseline {
            PREVIOUS => Baseline::Previous,
            other => Baseline::Variant(other.to_string()),
        };
        Some(RelativeMetric { kind, baseline })
    }

    /// The prefix as written (`speedup`, `pct_of`).
    pub fn prefix(&self) -> &'static str {
        match self.kind {
            RelativeKind::Speedup => "speedup",
            RelativeKind::PctOf => "pct_of",
        }
    }

    pub fn unit(&self) -> Unit {
        match self.kind {
            RelativeKind::Speedup => Unit::Ratio,
            RelativeKind::PctOf => Unit::Percent,
        }
    }

    /// "speed-up over <label>", "speed-up over the previous variant", "of <label>" (the unit
    /// adds the "%", as for `pct_bw`). `baseline_label` is the baseline variant's label.
    pub fn label(&self, baseline_label: &str) -> String {
        let what = match &self.baseline {
            Baseline::Previous => "the previous variant",
            Baseline::Variant(_) => baseline_label,
        };
        match self.kind {
            RelativeKind::Speedup => format!("speed-up over {what}"),
            RelativeKind::PctOf => format!("of {what}"),
        }
    }

    /// The baseline variant of `variant` among the directive's `variants` (display order);
    /// `None` for the first variant with `previous`.
    pub fn baseline_of<'v>(&self, variant: &str, variants: &'v [String]) -> Option<&'v str> {
        match &self.baseline {
            Baseline::Variant(name) => variants.iter().find(|v| *v == name).map(String::as_str),
            Baseline::Previous => {
                let i = variants.iter().position(|v| v == variant)?;
                i.checked_sub(1).map(|j| variants[j].as_str())
            }
        }
    }

    /// The value from the two median times (ms); `None` unless both are positive and finite.
    pub fn value(&self, baseline_ms: f64, this_ms: f64) -> Option<f64> {
        let ok = |t: f64| t.is_finite() && t > 0.0;
        if !ok(baseline_ms) || !ok(this_ms) {
            return None;
        }
        let ratio = baseline_ms / this_ms;
        Some(match self.kind {
            RelativeKind::Speedup => ratio,
            RelativeKind::PctOf => 100.0 * ratio,
        })
    }
}

/// The relative metrics a directive's tables and charts name, by name as written.
pub fn relative_metrics(d: &Directive) -> BTreeMap<String, RelativeMetric> {
    let tables = d.tables.iter().map(|t| &t.value);
    let charts = d.charts.iter().flat_map(|c| {
        let y = (c.kind != ChartKind::Heatmap).then_some(&c.y);
        y.into_iter().chain(c.value.as_ref())
    });
    tables
        .chain(charts)
        .filter_map(|name| Some((name.clone(), RelativeMetric::parse(name)?)))
        .collect()
}

/// Label and unit of every metric a directive may show: [`metric_infos`] plus the relative
/// metrics its tables and charts name, labelled with their baseline variant's label.
pub fn directive_metric_infos(d: &Directive, exp: &Experiment) -> BTreeMap<String, MetricInfo> {
    let mut m = metric_infos(exp);
    m.extend(relative_metric_infos(d, |v| {
        exp.variant(v)
            .map(|x| x.label.as_str())
            .filter(|l| !l.is_empty())
            .unwrap_or(v)
            .to_string()
    }));
    m
}

/// Label and unit of each relative metric `d`'s tables and charts name; `label_of` gives a
/// variant's display label.
pub fn relative_metric_infos(
    d: &Directive,
    label_of: impl Fn(&str) -> String,
) -> BTreeMap<String, MetricInfo> {
    relative_metrics(d)
        .into_iter()
        .map(|(name, rel)| {
            let baseline_label = match &rel.baseline {
                Baseline::Variant(v) => label_of(v),
                Baseline::Previous => String::new(),
            };
            let info = MetricInfo {
                label: rel.label(&baseline_label),
                unit: rel.unit(),
            };
            (name, info)
        })
        .collect()
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

    #[test]
    fn a_variant_that_does_other_work_uses_its_own_bytes_and_flops() {
        let dir = tempfile::tempdir().unwrap();
        let exp_dir = dir.path().join("kernels/two");
        std::fs::create_dir_all(&exp_dir).unwrap();
        std::fs::write(exp_dir.join("experiment.toml"), SPEC).unwrap();
        std::fs::write(exp_dir.join("k.cu"), "extern \"C\" __global__ void k() {}").unwrap();
        let exp = crate::spec::load(dir.path(), &dir.path().join("kernels"), "two")
            .unwrap_or_else(|d| panic!("{d:?}"));
        let params = BTreeMap::from([("N".to_string(), ParamValue::Int(1000))]);
        let device = crate::render::fixture::device();
        // 1 ms: 8000 bytes → 0.008 GB/s for the spec's formula, 4000 → 0.004 for `half`.
        let full = derive(&exp, "full", &params, 1.0, &device);
        let half = derive(&exp, "half", &params, 1.0, &device);
        assert!((full["gbps"].value - 0.008).abs() < 1e-12, "{full:?}");
        assert!((half["gbps"].value - 0.004).abs() < 1e-12, "{half:?}");
        assert!(!full.contains_key("gflops"), "the spec has no flops");
        assert!((half["gflops"].value - 0.001).abs() < 1e-12, "{half:?}");
    }
}
