//! Tests of `counters`.

use super::*;
use std::collections::BTreeMap;

fn point(key: &str) -> Point {
    Point::new("v", &BTreeMap::new(), key, None)
}

#[test]
fn only_current_verified_points_without_current_counters_are_profiled() {
    let groups = [Group::Instructions];
    assert!(
        !wants(None, "k", &groups),
        "nothing recorded: time it first"
    );
    let mut p = point("k");
    assert!(wants(Some(&p), "k", &groups));
    assert!(!wants(Some(&p), "new", &groups), "stale: re-time it first");
    p.outcome = Outcome::Failed;
    assert!(!wants(Some(&p), "k", &groups), "failed: nothing to count");
    let mut p = point("k");
    p.counters = Some(Counters {
        key: "k".into(),
        recorded_at: p.recorded_at,
        commit: None,
        profiler: "ncu".into(),
        settings: String::new(),
        launches: 1,
        values: groups[0].metrics().into_iter().map(|m| (m, 1.0)).collect(),
    });
    assert!(!wants(Some(&p), "k", &groups), "has them");
    assert!(wants(Some(&p), "k", &[Group::Dram]), "another group");
    p.counters.as_mut().unwrap().key = "old".into();
    assert!(wants(Some(&p), "k", &groups), "counters of older code");
}

#[test]
fn worker_lines_are_read_among_the_profilers() {
    let device = serde_json::to_string(&Message::Device(crate::record::fixture::device())).unwrap();
    let profiled = serde_json::to_string(&Message::Profiled {
        index: 0,
        kernels: vec!["k".into(), "k".into()],
        error: None,
    })
    .unwrap();
    let out =
        format!("==PROF== Connected to process 7\n{device}\n{profiled}\n==PROF== Disconnected\n");
    let (slug, ran) = worker_messages(&out).unwrap();
    assert_eq!(slug, crate::record::fixture::device().slug);
    assert_eq!(ran[0].kernels.len(), 2);
    assert!(worker_messages("==PROF== Error: no device\n").is_err());
}
