//! Tests of `spec_repr`.

use super::*;

#[test]
fn expressions_ignore_whitespace_only() {
    let a = Expr::parse("ceil_div(N, 2 * B)").unwrap();
    let b = Expr::parse("ceil_div(N,2*B)").unwrap();
    let c = Expr::parse("ceil_div(N,2*B+1)").unwrap();
    assert_eq!(expr(&a), expr(&b));
    assert_ne!(expr(&a), expr(&c));
}

#[test]
fn parameter_types_are_distinct() {
    assert_ne!(param(&ParamValue::Int(4)), param(&ParamValue::Float(4.0)));
    assert_ne!(
        param(&ParamValue::Int(4)),
        param(&ParamValue::Str("4".into()))
    );
}
