//! Tests of `line`.

use super::super::PointValue;
use super::*;

#[test]
fn gaps_split_runs() {
    // Synthetic series: values, a failure, values, a missing point at the end.
    let value = |x: f64, v: PointValue| ChartPoint {
        x,
        value: v,
        tip: None,
    };
    let series = Series {
        name: "s".into(),
        points: vec![
            value(1.0, PointValue::Value(1.0)),
            value(2.0, PointValue::Value(2.0)),
            value(3.0, PointValue::Failed),
            value(4.0, PointValue::Value(3.0)),
            value(5.0, PointValue::Missing),
        ],
    };
    let plan = axis::numeric(&[1.0, 5.0], false, false, false).unwrap();
    let runs = runs_of(&series, &plan, &plan);
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[0].len(), 2);
    assert_eq!(runs[1], vec![(4.0, 3.0)]);
}
