//! Tests of `recorder`.

use super::*;
use crate::value::ParamValue;

fn group(exp: &str, budget_s: f64, ns: &[i64]) -> JobGroup {
    JobGroup {
        experiment: exp.into(),
        rules: MeasureRules {
            budget_s,
            ..MeasureRules::default()
        },
        points: ns
            .iter()
            .map(|&n| {
                JobPoint::new(
                    &format!("v{budget_s}"),
                    &[("N".to_string(), ParamValue::Int(n))].into(),
                    &"k".into(),
                )
            })
            .collect(),
    }
}

/// Regression (issue 11): the CPU reference of matmul_widuch was computed twice per size,
/// once in the GPU directives' job and again in the CPU directive's job (other rules).
#[test]
fn groups_of_one_experiment_become_one_job_with_each_points_rules() {
    let groups = vec![
        (group("a", 5.0, &[640, 160]), BudgetHints::new()),
        (group("b", 5.0, &[1]), BudgetHints::new()),
        (
            group("a", 10.0, &[320]),
            [("v10".to_string(), (1.0, 2.0))].into(),
        ),
    ];
    let jobs = merge_groups(&groups);
    assert_eq!(jobs.len(), 2, "one job per experiment");
    let (a, a_hints) = &jobs[0];
    assert_eq!((a.experiment.as_str(), a.rules.budget_s), ("a", 5.0));
    let order: Vec<(i64, Option<f64>)> = a
        .points
        .iter()
        .map(|p| {
            (
                p.params["N"].as_f64().unwrap() as i64,
                p.rules.as_ref().map(|r| r.budget_s),
            )
        })
        .collect();
    assert_eq!(
        order,
        vec![(160, None), (320, Some(10.0)), (640, None)],
        "parameter-major, the second directive's points keep their rules"
    );
    assert_eq!(a_hints.get("v10"), Some(&(1.0, 2.0)));
    let job = Job {
        root: "r".into(),
        kernels_dir: "k".into(),
        cache_dir: "c".into(),
        experiment: "a".into(),
        points: a.points.clone(),
        rules: a.rules.clone(),
        commit: None,
        run: None,
        budget_hints: BudgetHints::new(),
        profile: false,
    };
    assert_eq!(job.points[1].rules_in(&job).budget_s, 10.0);
    assert_eq!(job.points[0].rules_in(&job).budget_s, 5.0);
}
