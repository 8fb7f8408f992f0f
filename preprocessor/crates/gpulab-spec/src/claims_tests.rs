//! Tests of `claims`.

use super::*;

fn group(n: i64) -> ClaimGroup {
    ClaimGroup::new([("N".to_string(), Num::Int(n))].into())
}

/// shared is 4× faster than global from N = 640 on, 1.5× below.
fn data() -> Vec<ClaimGroup> {
    [
        (160, 1.5, 1.0),
        (320, 3.0, 2.0),
        (640, 8.0, 2.0),
        (1280, 16.0, 4.0),
    ]
    .into_iter()
    .map(|(n, g, s)| {
        group(n)
            .with("global_2d", "time_ms", g)
            .with("shared_2d", "time_ms", s)
            .with("shared_2d", "time_ms.min", s * 0.9)
    })
    .collect()
}

fn outcome(claim: &str) -> ClaimOutcome {
    Claim::parse(claim)
        .unwrap_or_else(|e| panic!("{claim}: {e:?}"))
        .evaluate(&data())
}

#[test]
fn parses_parts() {
    let c =
        Claim::parse("global_2d.time_ms / shared_2d.time_ms.min > 4 where N >= 640 && N < 2000")
            .unwrap();
    assert_eq!(c.op(), CmpOp::Gt);
    assert_eq!(
        c.result_refs(),
        vec![
            ("global_2d".into(), "time_ms".into()),
            ("shared_2d".into(), "time_ms.min".into())
        ]
    );
    assert_eq!(c.axis_names(), vec!["N"]);
    assert_eq!(
        c.text(),
        "global_2d.time_ms / shared_2d.time_ms.min > 4 where N >= 640 && N < 2000"
    );
    assert_eq!(c.to_string(), c.text());
    assert_eq!(c.span_of("N"), Some(52..53));
    assert_eq!(c.span_of("shared_2d.time_ms.min"), Some(20..41));
    for (text, op) in [
        ("a.t <= b.t", CmpOp::Le),
        ("a.t>=b.t", CmpOp::Ge),
        ("a.t == 2", CmpOp::Eq),
        ("a.t < 1", CmpOp::Lt),
    ] {
        assert_eq!(Claim::parse(text).unwrap().op(), op, "{text}");
    }
}

#[test]
fn ours_marks_the_handbook_s_expectation_and_combines_with_some() {
    let plain = Claim::parse("a.time_ms < b.time_ms").unwrap();
    assert!(!plain.is_ours());
    let ours = Claim::parse("ours: a.time_ms < b.time_ms").unwrap();
    assert!(ours.is_ours());
    assert_eq!(ours.quantifier(), Quantifier::Every);
    assert_eq!(ours.text(), "ours: a.time_ms < b.time_ms");
    let both = Claim::parse("ours: some: a.time_ms < b.time_ms").unwrap();
    assert!(both.is_ours());
    assert_eq!(both.quantifier(), Quantifier::Some);
    // The order is fixed, and an error after the prefix points into the text.
    assert!(Claim::parse("some: ours: a.time_ms < b.time_ms").is_err());
    let e = Claim::parse("ours: a.time_ms <").unwrap_err();
    assert!(e.offset >= "ours: a.time_ms".len(), "{e:?}");
}

/// "Up to an order of magnitude" was tested as ≥ 10× at every size; `some:` tests the maximum.
#[test]
fn some_holds_when_one_point_satisfies_the_claim() {
    // global ÷ shared is 1.5, 1.5, 4, 4: "up to 4×" holds as a maximum, not everywhere.
    let claim = Claim::parse("some: global_2d.time_ms >= 4 * shared_2d.time_ms").unwrap();
    assert_eq!(claim.quantifier(), Quantifier::Some);
    assert_eq!(
        claim.text(),
        "some: global_2d.time_ms >= 4 * shared_2d.time_ms"
    );
    assert_eq!(outcome(claim.text()), ClaimOutcome::Holds { checked: 4 });
    assert!(matches!(
        outcome("global_2d.time_ms >= 4 * shared_2d.time_ms"),
        ClaimOutcome::Fails { failed: 2, .. }
    ));
    let ClaimOutcome::Fails { failed, first, .. } =
        outcome("some: global_2d.time_ms >= 5 * shared_2d.time_ms")
    else {
        panic!()
    };
    assert_eq!(failed, 4);
    assert!(
        first.starts_with("false at every point; at N=160: "),
        "{first}"
    );
    // Errors point into the text after the prefix.
    let e = Claim::parse("some: global_2d.time_ms >").unwrap_err();
    assert!(e.offset >= "some: global_2d.time_ms".len(), "{e:?}");
    assert_eq!(
        Claim::parse("global_2d.time_ms > 1").unwrap().quantifier(),
        Quantifier::Every
    );
}

#[test]
fn approx_tolerance() {
    let c = Claim::parse("a.t ~= b.t").unwrap();
    assert_eq!((c.op(), c.tolerance()), (CmpOp::Approx, 0.10));
    let c = Claim::parse("a.t ~= 2 * b.t within 5%").unwrap();
    assert!((c.tolerance() - 0.05).abs() < 1e-15);
    let c = Claim::parse("a.t ~= b.t within 2.5 % where N > 3").unwrap();
    assert!((c.tolerance() - 0.025).abs() < 1e-15);
    assert_eq!(c.axis_names(), vec!["N"]);
    let g = [group(1).with("a", "t", 100.0).with("b", "t", 109.0)];
    assert_eq!(
        Claim::parse("a.t ~= b.t").unwrap().evaluate(&g),
        ClaimOutcome::Holds { checked: 1 }
    );
    let out = Claim::parse("a.t ~= b.t within 5%").unwrap().evaluate(&g);
    let ClaimOutcome::Fails { first, .. } = out else {
        panic!("{out:?}")
    };
    assert_eq!(first, "at N=1: 100 ~= 109 (within 5%) is false");
    // Both zero: equal.
    let z = [group(1).with("a", "t", 0.0).with("b", "t", 0.0)];
    assert_eq!(
        Claim::parse("a.t ~= b.t within 0%").unwrap().evaluate(&z),
        ClaimOutcome::Holds { checked: 1 }
    );
}

#[test]
fn parse_errors_point_into_the_text() {
    let cases = [
        ("a.t", "expected a comparison after", 3, 0),
        ("a.t != b.t", "`!=` cannot be claimed", 4, 1),
        ("a.t = b.t", "expected a comparison", 4, 1),
        ("a.t < ", "unexpected end of expression", 6, 0),
        (
            "a.t < b.t within 5%",
            "`within` applies only to `~=`",
            10,
            6,
        ),
        ("a.t ~= b.t within five", "expected a percentage", 18, 0),
        ("a.t ~= b.t within 5", "expected a percentage", 18, 1),
        ("a.t < b.t whereas N", "unexpected `whereas`", 10, 7),
        ("a.t < b.t && c.t < d.t", "unexpected `&&`", 10, 2),
        ("a.t < b.t where", "unexpected end of expression", 15, 0),
        ("a.t < b.t where N >", "unexpected end of expression", 19, 0),
        ("a.t < b.t where N = 3", "use `==`", 18, 1),
        ("N < 3", "refers to no results", 0, 5),
        ("a.t < foo(2)", "unknown function `foo`", 6, 3),
        ("", "unexpected end of expression", 0, 0),
    ];
    for (text, msg, off, len) in cases {
        let e = Claim::parse(text).unwrap_err();
        assert!(e.message.contains(msg), "{text}: {}", e.message);
        assert_eq!((e.offset, e.len), (off, len), "{text}: {}", e.message);
        assert!(e.offset + e.len <= text.len(), "{text}");
    }
}

#[test]
fn holds_and_fails() {
    assert_eq!(
        outcome("shared_2d.time_ms < global_2d.time_ms"),
        ClaimOutcome::Holds { checked: 4 }
    );
    assert_eq!(
        outcome("global_2d.time_ms / shared_2d.time_ms >= 4 where N >= 640"),
        ClaimOutcome::Holds { checked: 2 }
    );
    assert_eq!(
        outcome("global_2d.time_ms / shared_2d.time_ms >= 4"),
        ClaimOutcome::Fails {
            checked: 4,
            failed: 2,
            first: "at N=160: 1.5 >= 4 is false".into()
        }
    );
    assert_eq!(
        outcome("shared_2d.time_ms.min < shared_2d.time_ms"),
        ClaimOutcome::Holds { checked: 4 }
    );
    // Axis values in operands.
    assert_eq!(
        outcome("global_2d.time_ms * 1000 / N > 5"),
        ClaimOutcome::Holds { checked: 4 }
    );
    assert_eq!(
        outcome("shared_2d.time_ms == 2 where N == 320 || N == 640"),
        ClaimOutcome::Holds { checked: 2 }
    );
}

#[test]
fn groups_missing_values_are_skipped() {
    let mut d = data();
    d[0].values
        .remove(&("shared_2d".to_string(), "time_ms".to_string()));
    let c = Claim::parse("shared_2d.time_ms < global_2d.time_ms").unwrap();
    assert_eq!(c.evaluate(&d), ClaimOutcome::Holds { checked: 3 });
}

#[test]
fn not_evaluated_reasons() {
    let reason =
        |claim: &str, d: &[ClaimGroup]| match Claim::parse(claim).unwrap().evaluate_groups(d) {
            ClaimOutcome::NotEvaluated { reason } => reason,
            other => panic!("{claim}: {other:?}"),
        };
    let d = data();
    assert_eq!(reason("a.time_ms < 1", &[]), "no results");
    assert_eq!(
        reason("tiled.time_ms < global_2d.time_ms", &d),
        "no results for `tiled.time_ms`"
    );
    assert_eq!(
        reason("shared_2d.gflops > 1", &d),
        "no results for `shared_2d.gflops`"
    );
    assert_eq!(
        reason("shared_2d.time_ms < global_2d.time_ms where M > 2", &d),
        "`M` is not an axis (axes: N)"
    );
    assert_eq!(
        reason("shared_2d.time_ms < global_2d.time_ms where N > 5000", &d),
        "no point satisfies `where N > 5000`"
    );
    // The points where `where` holds lack a value (skipped by a budget): say so, not that no
    // point satisfies `where` (Widuch's Fig. 6 claims where N >= 800).
    let skipped = [
        group(400).with("a", "t", 1.0).with("b", "t", 2.0),
        group(800).with("b", "t", 2.0),
    ];
    assert_eq!(
        reason("a.t < b.t where N >= 800", &skipped),
        "where `N >= 800` holds, there is no result for `a.t` (not recorded, skipped or failed)"
    );
    // Each value exists somewhere, but never together.
    let split = [group(1).with("a", "t", 1.0), group(2).with("b", "t", 2.0)];
    assert_eq!(
        reason("a.t < b.t", &split),
        "no point has results for all of `a.t`, `b.t`"
    );
    let two_axes =
        [
            ClaimGroup::new([("BLOCK".into(), Num::Int(1)), ("N".into(), Num::Int(2))].into())
                .with("a", "t", 1.0),
        ];
    assert_eq!(
        reason("a.t < BLOKC", &two_axes),
        "`BLOKC` is not an axis (axes: BLOCK, N); did you mean `BLOCK`?"
    );
}

#[test]
fn evaluation_errors_count_as_failures() {
    let g = [group(0).with("a", "t", 1.0), group(2).with("a", "t", 1.0)];
    let out = Claim::parse("a.t / N < 1 where N / N == 1 || N == 0")
        .unwrap()
        .evaluate(&g);
    let ClaimOutcome::Fails {
        checked,
        failed,
        first,
    } = out
    else {
        panic!("{out:?}")
    };
    assert_eq!((checked, failed), (2, 1));
    assert!(first.starts_with("at N=0: cannot evaluate"), "{first}");
    assert!(first.contains("division by zero"), "{first}");
}

#[test]
fn labels_and_unlabelled_groups() {
    let axes: BTreeMap<String, Num> =
        [("N".into(), Num::Int(640)), ("M".into(), Num::Float(2.5))].into();
    assert_eq!(ClaimGroup::label_for(&axes), "M=2.5, N=640");
    let g = ClaimGroup::default()
        .with("a", "t", 2.0)
        .with("b", "t", 1.0);
    let out = Claim::parse("a.t < b.t").unwrap().evaluate(&vec![g]);
    assert_eq!(
        out,
        ClaimOutcome::Fails {
            checked: 1,
            failed: 1,
            first: "2 < 1 is false".into()
        }
    );
}

#[test]
fn number_formatting() {
    assert_eq!(fmt_num(3.0), "3");
    assert_eq!(fmt_num(1.23456), "1.235");
    assert_eq!(fmt_num(1.1), "1.1");
    assert_eq!(fmt_num(0.012346), "0.01235");
    assert_eq!(fmt_num(1234.5678), "1235");
    assert_eq!(fmt_num(-2.5), "-2.5");
    assert_eq!(fmt_num(1e-7), "1.000e-7");
    assert_eq!(fmt_num(f64::NAN), "NaN");
}

#[test]
fn describe_outcomes() {
    assert_eq!(
        describe(&ClaimOutcome::Holds { checked: 3 }),
        "holds (3 points checked)"
    );
    assert_eq!(
        describe(&ClaimOutcome::Holds { checked: 1 }),
        "holds (1 point checked)"
    );
    assert_eq!(
        describe(&ClaimOutcome::Fails {
            checked: 3,
            failed: 1,
            first: "at N=640: 1 < 0.5 is false".into()
        }),
        "does not hold at 1 of 3 points: at N=640: 1 < 0.5 is false"
    );
    assert_eq!(
        describe(&ClaimOutcome::NotEvaluated {
            reason: "no results".into()
        }),
        "not evaluated: no results"
    );
}
