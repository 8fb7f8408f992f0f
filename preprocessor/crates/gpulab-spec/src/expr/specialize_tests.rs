//! Tests of `specialize`.

use super::*;
use std::collections::HashMap;

fn known(pairs: &[(&str, i64)]) -> impl Fn(&str) -> Option<Num> {
    let map: HashMap<String, Num> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), Num::Int(*v)))
        .collect();
    move |name| map.get(name).copied()
}

/// Evaluates both forms at `i` (with `a[j] = 10 j`) and asserts they agree.
fn same_at(e: &Expr, s: &Expr, vars: &[(&str, i64)], i: i64) -> Result<Num, String> {
    use crate::expr::test_env::At;
    let read =
        |name: &str, j: i64| (name == "a" && (0..100).contains(&j)).then_some(Num::Int(10 * j));
    let map: HashMap<String, Num> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), Num::Int(*v)))
        .collect();
    let at = At {
        vars: &map,
        i,
        read: &read,
    };
    let (x, y) = (e.eval(&at), s.eval(&at));
    assert_eq!(x, y, "{} at i = {i}", e.source());
    x.map_err(|e| e.message)
}

#[test]
fn known_variables_become_literals_and_constant_parts_fold() {
    let e = Expr::parse("a[(i/ARR)*ARR + ARR - 1 - i%ARR] * (i%ARR + 1) + 2*ARR*ARR").unwrap();
    let s = e.specialized(&known(&[("ARR", 4)]));
    assert!(!format!("{:?}", s.root).contains("Var(\"ARR\")"));
    // 2*ARR*ARR folded to one literal.
    assert!(format!("{:?}", s.root).contains("Lit(Int(32))"));
    for i in 0..40 {
        same_at(&e, &s, &[("ARR", 4)], i).unwrap();
    }
}

#[test]
fn an_aggregates_index_is_not_replaced_inside_it() {
    // `k` is known outside, but inside sum_of it is the aggregate's index.
    let e = Expr::parse("k + sum_of(k, 0, N, a[k])").unwrap();
    let s = e.specialized(&known(&[("k", 1000), ("N", 5)]));
    assert_eq!(
        same_at(&e, &s, &[("k", 1000), ("N", 5)], 0),
        Ok(Num::Int(1100))
    );
}

#[test]
fn a_part_that_fails_is_kept_and_fails_in_its_place() {
    // Division by zero in a constant part: not folded, so it still fails when evaluated, with
    // the same message and span; the branch not taken never fails.
    let e = Expr::parse("if(i > 100, N / Z, a[i])").unwrap();
    let s = e.specialized(&known(&[("N", 1), ("Z", 0)]));
    assert_eq!(same_at(&e, &s, &[("N", 1), ("Z", 0)], 3), Ok(Num::Int(30)));
    let e = Expr::parse("N / Z + i").unwrap();
    let s = e.specialized(&known(&[("N", 1), ("Z", 0)]));
    let err = same_at(&e, &s, &[("N", 1), ("Z", 0)], 3).unwrap_err();
    assert_eq!(err, "division by zero");
}

#[test]
fn unknown_variables_stay_and_float_division_is_unchanged() {
    let e = Expr::parse_real("N / 4 + M").unwrap();
    let s = e.specialized(&known(&[("N", 10)]));
    let env = HashMap::from([("M".to_string(), Num::Int(1))]);
    assert_eq!(s.eval(&env), Ok(Num::Float(3.5)));
    assert_eq!(
        s.eval(&HashMap::<String, Num>::new()),
        e.eval(&HashMap::from([("N".to_string(), Num::Int(10))]))
    );
}
