//! The metrics an experiment can show: the built-in ones and the spec's custom formulas.

use super::Experiment;
use crate::metrics::MetricInfo;
use crate::value::Unit;
use std::collections::BTreeMap;

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
