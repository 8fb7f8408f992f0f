//! Tests of `plan`.

use super::*;

fn axis(name: &str, vals: &[i64]) -> Axis {
    Axis {
        name: name.into(),
        values: vals.iter().map(|v| ParamValue::Int(*v)).collect(),
    }
}

#[test]
fn cartesian_product_first_axis_slowest() {
    let c = combinations(&[axis("N", &[1, 2]), axis("M", &[10, 20, 30])], &[]);
    assert_eq!(c.len(), 6);
    assert_eq!(c[0]["N"], ParamValue::Int(1));
    assert_eq!(c[1]["M"], ParamValue::Int(20));
    assert_eq!(c[3]["N"], ParamValue::Int(2));
}

#[test]
fn zipped_axes_advance_together() {
    let zip = vec![vec!["BX".to_string(), "BY".to_string()]];
    let c = combinations(
        &[
            axis("BX", &[32, 16]),
            axis("BY", &[1, 2]),
            axis("N", &[5, 6]),
        ],
        &zip,
    );
    assert_eq!(c.len(), 4);
    assert_eq!(
        (c[0]["BX"].clone(), c[0]["BY"].clone()),
        (ParamValue::Int(32), ParamValue::Int(1))
    );
    assert_eq!(
        (c[2]["BX"].clone(), c[2]["BY"].clone()),
        (ParamValue::Int(16), ParamValue::Int(2))
    );
}

#[test]
fn no_axes_gives_one_combination() {
    assert_eq!(combinations(&[], &[]).len(), 1);
}
