//! Tests of `axis`.

use super::*;

#[test]
fn linear_ticks_are_nice_and_zero_based() {
    let plan = numeric(&[3.0, 17.0], false, true, false).unwrap();
    assert_eq!(plan.range, 0.0..20.0);
    assert_eq!(plan.ticks, vec![0.0, 5.0, 10.0, 15.0, 20.0]);
    let plan = numeric(&[0.1, 0.3], false, false, false).unwrap();
    assert!(plan.ticks.contains(&0.2), "{:?}", plan.ticks);
    let flat = numeric(&[2.0, 2.0], false, false, false).unwrap();
    assert!(flat.range.start < 2.0 && flat.range.end > 2.0);
}

#[test]
fn log_axis_spans_the_data_not_whole_decades() {
    let plan = numeric(&[1e-3, 0.5, 1e3], true, false, false).unwrap();
    assert!(
        plan.range.start < -3.0 && plan.range.start > -3.4,
        "{plan:?}"
    );
    assert!(plan.range.end > 3.0 && plan.range.end < 3.4, "{plan:?}");
    assert_eq!(plan.ticks, vec![-3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0]);
    assert!(!plan.minor.is_empty());
    // data up to 16 384 does not stretch the axis to 100 000
    let plan = numeric(&[120.0, 16384.0], true, false, false).unwrap();
    assert!(plan.range.end < 16384f64.log10() + 0.2, "{plan:?}");
    assert!(plan.range.start > 120f64.log10() - 0.2, "{plan:?}");
    assert!(plan.ticks.len() >= 3, "{plan:?}");
    // a narrow range still gets labelled ticks
    let plan = numeric(&[310.0, 390.0], true, false, false).unwrap();
    assert!(plan.ticks.len() >= 2, "{plan:?}");
    assert_eq!(plan.to_draw(-1.0), None);
    assert!((plan.to_data(2.0) - 100.0).abs() < 1e-9);
    assert!(numeric(&[0.0, -1.0], true, false, false).is_none());
    let wide = numeric(&[1e-12, 1e12], true, false, false).unwrap();
    assert!(wide.ticks.len() <= 9);
}

/// Lab 3's dot-product bars (0.003 to 0.23 ms): a little over two decades left two decades
/// labelled, and the fallback labelled all sixteen multiples, stacked on the axis.
#[test]
fn a_log_axis_of_two_decades_labels_twos_and_fives_not_every_multiple() {
    let plan = numeric(&[0.00304, 0.0067, 0.0103, 0.18, 0.231], true, true, false).unwrap();
    let labels: Vec<String> = plan
        .ticks
        .iter()
        .map(|t| format!("{}", (plan.to_data(*t) * 1e4).round() / 1e4))
        .collect();
    assert_eq!(
        labels,
        ["0.005", "0.01", "0.02", "0.05", "0.1", "0.2"],
        "{plan:?}"
    );
    assert!(
        plan.minor.len() >= 10,
        "the other multiples stay grid lines: {plan:?}"
    );
}

#[test]
fn data_ticks_for_few_values() {
    let plan = numeric(&[160.0, 320.0, 640.0, 1280.0], true, false, true).unwrap();
    assert_eq!(plan.ticks.len(), 4);
    assert!((plan.to_data(plan.ticks[1]) - 320.0).abs() < 1e-9);
    // crowded on a linear axis: falls back to nice ticks
    let plan = numeric(&[1.0, 2.0, 1000.0], false, true, true).unwrap();
    assert_eq!(plan.ticks[0], 0.0);
}

#[test]
fn power_of_two_axes_tick_at_powers_of_two() {
    let values: Vec<f64> = (10..=28).map(|e| 2f64.powi(e)).collect();
    assert!(all_powers_of_two(&values));
    let plan = numeric(&values, true, false, true).unwrap();
    assert!(plan.ticks.len() <= 10, "{plan:?}");
    for t in &plan.ticks {
        let e = plan.to_data(*t).log2();
        assert!((e - e.round()).abs() < 1e-9, "{e}");
    }
    assert!(!all_powers_of_two(&[160.0, 320.0, 640.0, 1280.0]));
}

#[test]
fn colliding_tick_labels_are_thinned() {
    // Regression: "134 217 728" and "268 435 456" ran into each other.
    let values: Vec<f64> = (20..=28).map(|e| 2f64.powi(e)).collect();
    let mut plan = numeric(&values, true, false, true).unwrap();
    let fmt =
        |t: &f64| crate::render::format::format_value(10f64.powf(*t), crate::value::Unit::Count);
    thin_labels(&mut plan, &fmt, 300.0);
    let px: Vec<f64> = plan
        .ticks
        .iter()
        .map(|t| (t - plan.range.start) / (plan.range.end - plan.range.start) * 300.0)
        .collect();
    for (w, t) in px.windows(2).zip(plan.ticks.windows(2)) {
        let need = (super::super::frame::text_px(&fmt(&t[0]))
            + super::super::frame::text_px(&fmt(&t[1]))) as f64
            / 2.0;
        assert!(w[1] - w[0] >= need, "{:?}", plan.ticks);
    }
    assert!(plan.ticks.len() >= 2);
    assert!(!plan.minor.is_empty(), "thinned ticks keep their grid line");
}

/// Bug (fixed): the padded-matrix chart's labels stopped at 4096 while its data reach 8192.
#[test]
fn thinned_labels_reach_the_last_value() {
    let values = [
        1024.0, 1536.0, 2048.0, 2560.0, 3072.0, 3584.0, 4096.0, 8192.0,
    ];
    let mut plan = numeric(&values, false, false, true).unwrap();
    let fmt = |t: &f64| crate::render::format::format_value(*t, crate::value::Unit::Count);
    thin_labels(&mut plan, &fmt, 300.0);
    assert_eq!(plan.ticks.first(), Some(&1024.0), "{plan:?}");
    assert_eq!(plan.ticks.last(), Some(&8192.0), "{plan:?}");
    assert!(plan.ticks.len() < values.len(), "{plan:?}");
}

#[test]
fn categories() {
    let plan = categorical(3);
    assert_eq!(plan.ticks, vec![0.0, 1.0, 2.0]);
    assert_eq!(plan.range, -0.5..2.5);
}
