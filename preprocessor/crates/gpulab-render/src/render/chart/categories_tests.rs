//! Tests of `categories`.

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
