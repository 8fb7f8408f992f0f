//! The relative metrics (`speedup:…`, `pct_of:…`) a directive's tables and charts name, and
//! the label and unit of every metric a directive may show.

use super::{ChartKind, Directive};
use crate::metrics::{Baseline, MetricInfo, RelativeMetric};
use crate::spec::Experiment;
use crate::spec::metrics::metric_infos;
use std::collections::BTreeMap;

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
                uses_time: true,
                better: Some(crate::value::Better::Higher),
            };
            (name, info)
        })
        .collect()
}
