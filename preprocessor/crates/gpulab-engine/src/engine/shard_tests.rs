//! Tests of `shard`.

use super::*;
use crate::engine::job::MeasureRules;
use crate::record::{Timing, TimingMode};
use crate::value::ParamValue;

fn jp(variant: &str, n: i64) -> JobPoint {
    JobPoint::new(
        variant,
        &[("N".to_string(), ParamValue::Int(n))].into(),
        &"k".into(),
    )
}

fn group(exp: &str, points: Vec<JobPoint>) -> JobGroup {
    JobGroup {
        experiment: exp.into(),
        rules: MeasureRules::default(),
        points,
    }
}

fn timed(p: &JobPoint, median_ms: f64, samples: usize, mode: TimingMode) -> Point {
    let mut q = Point::new(&p.variant, &p.params, p.key.as_str(), None);
    q.timing = Some(Timing {
        median_ms,
        min_ms: median_ms,
        max_ms: median_ms,
        q1_ms: median_ms,
        q3_ms: median_ms,
        noise: 0.0,
        samples,
        mode,
        ..Default::default()
    });
    q
}

/// The identity names every parameter with its type (it is no longer JSON that could fail to
/// serialise into an empty string, making all points one).
#[test]
fn point_id_tells_types_and_values_apart() {
    let mut float = jp("a", 4);
    float.params.insert("N".into(), ParamValue::Float(4.0));
    let ids = [
        point_id("e", &jp("a", 4)),
        point_id("e", &float),
        point_id("e", &jp("a", 5)),
        point_id("e", &jp("b", 4)),
        point_id("f", &jp("a", 4)),
    ];
    assert_eq!(ids[0], "e\u{1f}a\u{1f}N=i:4");
    let distinct: std::collections::BTreeSet<_> = ids.iter().collect();
    assert_eq!(distinct.len(), ids.len(), "{ids:?}");
}

/// Issue 36: `--shard 1/18446744073709551615` was accepted, and a slot allocated per shard.
#[test]
fn an_absurd_shard_count_is_refused() {
    let absurd = Shard::parse("1/18446744073709551615").unwrap_err();
    assert!(absurd.contains("at most 10000 shards"), "{absurd}");
    assert!(Shard::parse("10000/10000").is_ok());
}

#[test]
fn shard_parse_rejects_nonsense() {
    assert_eq!(Shard::parse("2/4"), Ok(Shard { index: 1, count: 4 }));
    assert!(Shard::parse("0/2").is_err());
    assert!(Shard::parse("3/2").is_err());
    assert!(Shard::parse("x").is_err());
}

#[test]
fn recorded_cost_is_setup_plus_the_cost_models_runs() {
    let p = jp("a", 1);
    // A cold run of 0.1 s or more is the first sample (no warm-up); 15 µs of overhead per sample.
    let cold = recorded_cost(&timed(&p, 100.0, 9, TimingMode::Cold)).unwrap();
    assert!((cold - (SETUP_S + 9.0 * 0.1 + 9.0 * 15e-6)).abs() < 1e-12);
    // Samples plus a warm-up run.
    let host = recorded_cost(&timed(&p, 100.0, 3, TimingMode::Host)).unwrap();
    assert!((host - (SETUP_S + 0.4)).abs() < 1e-12);
}

#[test]
fn unrecorded_points_scale_from_the_nearest_recorded_size() {
    let g = group(
        "e",
        vec![jp("a", 100), jp("a", 200), jp("b", 10), jp("b", 30)],
    );
    let rec = |_: &str, p: &JobPoint| {
        if p.variant == "a" && p.params["N"] == ParamValue::Int(100) {
            vec![timed(p, 1000.0, 1, TimingMode::Host)]
        } else {
            vec![]
        }
    };
    let c = predict(&[g], &rec);
    assert!((c[0][0] - (SETUP_S + 2.0)).abs() < 1e-9);
    assert!((c[0][1] - (SETUP_S + 4.0)).abs() < 1e-9, "{:?}", c);
    assert!((c[0][2] - UNRECORDED_S).abs() < 1e-9);
    assert!((c[0][3] - 3.0 * UNRECORDED_S).abs() < 1e-9);
}

/// The watchdog's prediction: only a verified recording says how long a kernel runs (a point
/// skipped by the budget, or failed, says nothing), scaled from the nearest size; none without.
#[test]
fn predictions_for_the_watchdog_come_from_verified_recordings_only() {
    let mut groups = vec![group(
        "e",
        vec![jp("a", 100), jp("a", 400), jp("b", 10), jp("c", 10)],
    )];
    let rec = |_: &str, p: &JobPoint| {
        let mut q = timed(p, 1000.0, 1, TimingMode::Host);
        match (p.variant.as_str(), &p.params["N"]) {
            ("a", ParamValue::Int(100)) => vec![q],
            ("a", _) | ("b", _) => {
                q.outcome = Outcome::Skipped;
                vec![q]
            }
            _ => vec![],
        }
    };
    set_predictions(&mut groups, &rec);
    let got: Vec<Option<f64>> = groups[0].points.iter().map(|p| p.predicted_s).collect();
    let close = |x: Option<f64>, y: f64| x.is_some_and(|x| (x - y).abs() < 1e-9);
    // One sample of 1 s and its warm-up run.
    assert!(close(got[0], SETUP_S + 2.0), "{got:?}");
    assert!(
        close(got[1], SETUP_S + 8.0),
        "scaled from N = 100, not its skip: {got:?}"
    );
    assert_eq!(got[2..], [None, None], "a skip or nothing predicts nothing");
}

#[test]
fn shards_partition_points_and_balance_one_long_experiment() {
    // One experiment far longer than the rest: by experiment, two shards could not balance.
    let long = group("long", (1..=40).map(|n| jp("v", n)).collect());
    let short = group("short", (1..=4).map(|n| jp("w", n)).collect());
    let groups = vec![long, short];
    let costs: Vec<Vec<f64>> = groups
        .iter()
        .map(|g| g.points.iter().map(|p| size_of(&p.params)).collect())
        .collect();
    for n in [2, 3, 4] {
        let shards = split(&groups, &costs, &Bundles::new(), n);
        let mut seen: Vec<String> = shards
            .iter()
            .flat_map(|(gs, _)| {
                gs.iter()
                    .flat_map(|g| g.points.iter().map(|p| point_id(&g.experiment, p)))
            })
            .collect();
        let count = seen.len();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), count, "a point in two shards");
        assert_eq!(count, 44, "a point in no shard");
        let loads: Vec<f64> = shards.iter().map(|s| s.1).collect();
        let mean = loads.iter().sum::<f64>() / n as f64;
        let max = loads.iter().cloned().fold(0.0, f64::max);
        assert!(max / mean <= 1.05, "N={n}: {loads:?}");
    }
}

#[test]
fn assignment_ignores_group_order_of_equal_cost_points() {
    let a = group("e", vec![jp("a", 1), jp("b", 1), jp("c", 1)]);
    let b = group("e", vec![jp("c", 1), jp("a", 1), jp("b", 1)]);
    let costs = vec![vec![1.0; 3]];
    let owner_of = |g: &JobGroup| {
        let o = deal(std::slice::from_ref(g), &costs, &Bundles::new(), 2).0;
        let mut m: Vec<(String, usize)> = g
            .points
            .iter()
            .zip(&o[0])
            .map(|(p, k)| (p.variant.clone(), *k))
            .collect();
        m.sort();
        m
    };
    assert_eq!(owner_of(&a), owner_of(&b));
}

/// The two-GPU run of 9a82b10 dealt points one by one: both workers made SGEMM's and
/// matmul_widuch's larger references (references 41 s on one GPU, 51 + 36 s on two).
#[test]
fn points_of_a_costly_buffer_set_share_a_shard_and_the_set_is_counted_once() {
    // Four sizes, three variants each; every size's set costs 10 s to make, each point 1 s.
    let points: Vec<JobPoint> = (1..=4)
        .flat_map(|n| ["a", "b", "c"].map(|v| jp(v, n)))
        .collect();
    let g = group("e", points);
    let costs = vec![vec![1.0; 12]];
    let set_of = |p: &JobPoint| format!("e|{}", p.params["N"].typed_text());
    let b = bundles(g.points.iter().map(|p| (point_id("e", p), set_of(p), 10.0)));
    let groups = [g];
    let owner = deal(&groups, &costs, &b, 2).0;
    for (p, k) in groups[0].points.iter().zip(&owner[0]) {
        for (q, l) in groups[0].points.iter().zip(&owner[0]) {
            if set_of(p) == set_of(q) {
                assert_eq!(k, l, "{p:?} and {q:?} share a set but not a shard");
            }
        }
    }
    let shards = split(&groups, &costs, &b, 2);
    let loads: Vec<f64> = shards.iter().map(|s| s.1).collect();
    assert_eq!(loads, [26.0, 26.0], "two sets a shard, each made once");
    // Without bundles the loads ignore the sets and the sizes spread over both shards.
    let loose = split(&groups, &costs, &Bundles::new(), 2);
    assert_eq!(loose.iter().map(|s| s.1).sum::<f64>(), 12.0);
}

#[test]
fn a_cheap_set_bundles_nothing() {
    let b = bundles([
        ("p".to_string(), "s".to_string(), BUNDLE_MIN_S / 2.0),
        ("q".to_string(), "s".to_string(), BUNDLE_MIN_S),
    ]);
    assert!(!b.contains_key("p"));
    assert_eq!(b["q"], ("s".to_string(), BUNDLE_MIN_S));
}

#[test]
fn budget_hints_take_the_largest_recorded_size_of_the_shards_variants() {
    let all = vec![
        jp("cpu", 100),
        jp("cpu", 200),
        jp("cpu", 400),
        jp("gpu", 100),
    ];
    let mine = group("e", vec![jp("cpu", 400)]);
    let rec = |_: &str, p: &JobPoint| {
        let n = p.params["N"].as_f64().unwrap();
        if n < 400.0 {
            vec![timed(p, n * 10.0, 1, TimingMode::Host)]
        } else {
            vec![]
        }
    };
    let h = budget_hints(&mine, &rec, &all);
    assert_eq!(h.len(), 1);
    assert_eq!(h["cpu"], (200.0, 2.0));
}
