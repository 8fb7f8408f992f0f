//! Tests of `point_index`.

use super::*;

fn params(pairs: &[(&str, ParamValue)]) -> BTreeMap<String, ParamValue> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}

/// `find` returns the recorded point of a planned one: by equal values (−0.0 finds 0.0), the
/// first of two equal points, and nothing for another variant or value.
#[test]
fn find_returns_the_first_point_with_equal_variant_and_values() {
    let n4_x0 = params(&[("N", ParamValue::Int(4)), ("X", ParamValue::Float(0.0))]);
    let first = Point::new("v", &n4_x0, "key-v-4", None);
    let second = Point::new("v", &n4_x0, "second", None);
    let other = Point::new("w", &params(&[("N", ParamValue::Int(4))]), "key-w-4", None);
    let rec = Recording {
        schema: 1,
        experiment: "e".into(),
        device: crate::record::fixture::device(),
        points: vec![other, first, second],
    };
    let index = PointIndex::new(&rec);
    let planned = |variant: &str, x: f64| PlannedPoint {
        variant: variant.into(),
        params: params(&[("N", ParamValue::Int(4)), ("X", ParamValue::Float(x))]),
        axes: BTreeMap::new(),
        key: "k".into(),
    };
    assert_eq!(index.find(&planned("v", -0.0)).unwrap().key, "key-v-4");
    assert!(index.find(&planned("v", 1.0)).is_none());
    assert!(index.find(&planned("u", 0.0)).is_none());
    let w = PlannedPoint {
        params: params(&[("N", ParamValue::Int(4))]),
        ..planned("w", 0.0)
    };
    assert_eq!(index.find(&w).unwrap().key, "key-w-4");
}

#[test]
fn equal_values_hash_equally_and_different_ones_are_told_apart() {
    let a = params(&[("N", ParamValue::Int(4)), ("X", ParamValue::Float(0.0))]);
    let b = params(&[("N", ParamValue::Int(4)), ("X", ParamValue::Float(-0.0))]);
    assert_eq!(a, b);
    assert_eq!(hash_of("v", &a), hash_of("v", &b));
    let c = params(&[("N", ParamValue::Float(4.0)), ("X", ParamValue::Float(0.0))]);
    assert_ne!(a, c, "an integer and a float are different values");
    assert_ne!(hash_of("v", &a), hash_of("w", &a));
    let s = params(&[("B", ParamValue::Str("16x16".into()))]);
    let t = params(&[("B", ParamValue::Str("16x32".into()))]);
    assert_ne!(hash_of("v", &s), hash_of("v", &t));
}
