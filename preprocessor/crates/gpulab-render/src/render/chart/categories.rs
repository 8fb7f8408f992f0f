//! Turning a numeric x axis into categories (bars and heat-map columns are always categorical).

use super::{ChartPoint, Series, XAxis, XScale};
use crate::render::format::format_value;
use crate::value::Unit;

/// Category labels and the series with each point's `x` replaced by its category index.
pub(crate) fn categorize(x: &XAxis, series: &[Series]) -> (Vec<String>, Vec<Series>) {
    match &x.scale {
        XScale::Categorical(labels) => (labels.clone(), series.to_vec()),
        XScale::Numeric { .. } => {
            let mut xs: Vec<f64> = series.iter().flat_map(|s| &s.points).map(|p| p.x).collect();
            xs.sort_by(f64::total_cmp);
            xs.dedup();
            let labels = xs.iter().map(|v| format_value(*v, Unit::Count)).collect();
            let index = |x: f64| xs.iter().position(|v| *v == x).unwrap_or(0) as f64;
            let series = series
                .iter()
                .map(|s| Series {
                    name: s.name.clone(),
                    points: s
                        .points
                        .iter()
                        .map(|p| ChartPoint {
                            x: index(p.x),
                            value: p.value.clone(),
                            tip: p.tip.clone(),
                        })
                        .collect(),
                })
                .collect();
            (labels, series)
        }
    }
}

#[cfg(test)]
#[path = "categories_tests.rs"]
mod tests;
