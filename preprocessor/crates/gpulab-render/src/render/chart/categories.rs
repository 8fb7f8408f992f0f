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
mod tests {
    use super::super::PointValue;
    use super::*;

    #[test]
    fn numeric_becomes_indices() {
        let x = XAxis {
            label: "N".into(),
            scale: XScale::Numeric { log: true },
        };
        let point = |x: f64| ChartPoint {
            x,
            value: PointValue::Value(1.0),
            tip: None,
        };
        let series = vec![Series {
            name: "a".into(),
            points: vec![point(640.0), point(160.0)],
        }];
        let (labels, series) = categorize(&x, &series);
        assert_eq!(labels, vec!["160", "640"]);
        assert_eq!(series[0].points[0].x, 1.0);
        assert_eq!(series[0].points[1].x, 0.0);
    }
}
