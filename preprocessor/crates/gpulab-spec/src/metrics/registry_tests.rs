//! Tests of `registry`.

use super::*;

#[test]
fn names_are_unique_across_metrics_paper_columns_and_device_variables() {
    let mut names: Vec<&str> = BUILTINS.iter().map(|b| b.name).collect();
    names.extend(PAPER_COLUMNS.iter().map(|(n, _, _)| *n));
    names.extend(DEVICE_VARS.iter().map(|d| d.name));
    let unique: std::collections::BTreeSet<&str> = names.iter().copied().collect();
    assert_eq!(unique.len(), names.len(), "{names:?}");
}

#[test]
fn the_papers_know_units_of_quantities_not_of_counts() {
    assert_eq!(known_unit(TIME_MS), Some(Unit::Millis));
    assert_eq!(known_unit("pct_fp32"), Some(Unit::Percent));
    assert_eq!(known_unit("cgma"), Some(Unit::FlopPerByte));
    assert_eq!(
        known_unit("registers"),
        None,
        "a paper's count column keeps its own unit"
    );
    assert_eq!(known_unit("limiter"), None, "text is not a metric column");
    assert_eq!(known_unit("occupancy_pct"), None);
}

#[test]
fn default_labels_come_from_the_registry() {
    assert_eq!(default_label("pct_fp32"), "of FP32 peak");
    assert_eq!(default_label("time_s"), "time");
    assert_eq!(default_label("occupancy_pct"), "occupancy pct");
}
