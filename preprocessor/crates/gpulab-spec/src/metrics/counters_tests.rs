//! Tests of `counters`.

use super::*;

#[test]
fn every_group_has_its_metrics_and_the_gpu_time_is_always_collected() {
    for (name, g, _) in GROUPS {
        assert_eq!(Group::parse(name), Some(*g));
        assert_eq!(g.name(), *name);
        assert!(!g.metrics().is_empty());
    }
    let m = ncu_metrics(&[Group::Instructions, Group::Instructions]);
    assert_eq!(m, [GPU_TIME, INST_EXECUTED_SM_MAX, INST_EXECUTED]);
    assert_eq!(Group::parse("instruction"), None);
}

#[test]
fn launches_combine_by_the_metric_kind() {
    assert_eq!(combine_of(INST_EXECUTED), Combine::Sum);
    assert_eq!(combine_of(INST_EXECUTED_SM_MAX), Combine::Max);
    assert_eq!(
        combine_of(&warp_state_metric("barrier")),
        Combine::TimeWeighted
    );
}

#[test]
fn gips_is_warp_instructions_per_second_of_the_timed_median() {
    let values = BTreeMap::from([
        (INST_EXECUTED.to_string(), 2e9),
        (INST_EXECUTED_SM_MAX.to_string(), 2e7),
        (DRAM_READ.to_string(), 3e9),
        (DRAM_WRITE.to_string(), 1e9),
    ]);
    let d = derive(
        &values,
        Context {
            time_ms: Some(500.0),
            flops: Some(8e9),
        },
    );
    assert_eq!(d["instructions"].value, 2e9);
    assert!((d["gips"].value - 4.0).abs() < 1e-12);
    assert!((d["gips_sm"].value - 0.04).abs() < 1e-12);
    assert!((d["dram_gbs"].value - 8.0).abs() < 1e-12);
    assert!((d["cgma_dram"].value - 2.0).abs() < 1e-12);
    assert!(!d.contains_key("bank_conflicts"), "not recorded");
    let untimed = derive(&values, Context::default());
    assert!(untimed.contains_key("instructions") && !untimed.contains_key("gips"));
}

#[test]
fn bank_conflicts_per_request_and_ways() {
    let values = BTreeMap::from([
        (SHARED_LD_CONFLICTS.to_string(), 300.0),
        (SHARED_ST_CONFLICTS.to_string(), 0.0),
        (SHARED_LD_REQUESTS.to_string(), 100.0),
        (SHARED_ST_REQUESTS.to_string(), 50.0),
    ]);
    let d = derive(&values, Context::default());
    assert_eq!(d["bank_conflicts"].value, 300.0);
    assert_eq!(d["conflicts_per_request"].value, 2.0);
    assert_eq!(
        d["shared_ld_ways"].value, 4.0,
        "3 extra wavefronts per load"
    );
}

#[test]
fn warp_state_shares_need_every_state_and_add_up_to_100() {
    let mut values: BTreeMap<String, f64> = WARP_STATES
        .iter()
        .map(|(s, _)| (warp_state_metric(s), 0.0))
        .collect();
    values.insert(warp_state_metric("long_scoreboard"), 60.0);
    values.insert(warp_state_metric("selected"), 20.0);
    values.insert(warp_state_metric("barrier"), 10.0);
    values.insert(warp_state_metric("no_instruction"), 10.0);
    let d = derive(&values, Context::default());
    assert_eq!(d["stall_global_pct"].value, 60.0);
    assert_eq!(d["issue_pct"].value, 20.0);
    assert_eq!(d["stall_sync_pct"].value, 10.0);
    assert_eq!(d["stall_shared_pct"].value, 0.0);
    values.remove(&warp_state_metric("misc"));
    assert!(!derive(&values, Context::default()).contains_key("issue_pct"));
}
