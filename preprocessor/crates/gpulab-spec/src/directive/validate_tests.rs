//! Directive validation of relative metrics, over a SYNTHETIC experiment spec.

use super::*;
use crate::directive::raw;
use std::path::PathBuf;

const SPEC: &str = r#"
title = "Synthetic scale"
source = "k.cu"
[params]
N = 1024
[[buffer]]
name = "x"
type = "f32"
len = "N"
init = { random = [0, 1] }
[[buffer]]
name = "y"
type = "f32"
len = "N"
output = true
[verify]
reference = "formula"
formula = "2 * x[i]"
inputs = ["x"]
output = "y"
[metrics]
bytes = "8*N"
[[variant]]
name = "slow"
label = "The slow one"
kernel = "k"
grid = ["N"]
block = ["1"]
args = ["x", "y", "N"]
metrics = { flops = "N" }
[[variant]]
name = "fast"
label = "The fast one"
kernel = "k"
grid = ["N"]
block = ["1"]
args = ["x", "y", "N"]
metrics = { flops = "N" }
[[variant]]
name = "other"
kernel = "k"
grid = ["N"]
block = ["1"]
args = ["x", "y", "N"]
"#;

fn experiment() -> Experiment {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("k.cu"),
        "extern \"C\" __global__ void k() {}\n",
    )
    .unwrap();
    let file = SourceFile::new("experiment.toml", SPEC);
    let raw = crate::spec::raw::parse(SPEC).unwrap();
    crate::spec::validate::validate(raw, "synth", dir.path(), dir.path(), &file)
        .unwrap_or_else(|d| panic!("{d:?}"))
}

fn check(body: &str) -> Result<Directive, Vec<Diagnostic>> {
    check_with(body, &|_| None)
}

/// `check` with a paper-table loader that may fail.
fn check_with(
    body: &str,
    paper_problem: &dyn Fn(&str) -> Option<String>,
) -> Result<Directive, Vec<Diagnostic>> {
    let exp = experiment();
    let file = SourceFile::new("chapter.md", body);
    let ctx = BodyContext {
        file: &file,
        body_start: 0,
        pieces: &[(0, 0)],
        location: Location {
            chapter: PathBuf::from("chapter.md"),
            index: 1,
            line: 1,
        },
    };
    validate(raw::parse(body).unwrap(), &exp, &ctx, paper_problem)
}

fn errors(body: &str) -> Vec<(String, Option<String>)> {
    check(body)
        .expect_err("the directive should be rejected")
        .into_iter()
        .map(|d| (d.message, d.help))
        .collect()
}

/// The self-check could only read the one `paper` table shown beside ours; a claim whose
/// variants the paper prints in other tables was never checked on the paper's numbers.
#[test]
fn paper_check_sets_are_split_on_plus_and_each_table_is_checked() {
    let body = "experiment = \"synth\"\naxes = { N = [1, 2] }\n\
                paper_check = [\"p/t1 + p/t2\", \"p/t3\"]\n";
    let missing = |id: &str| (id == "p/t2").then(|| "cannot read p/t2.csv".to_string());
    let errs = check_with(body, &missing).unwrap_err();
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!(errs[0].message, "paper table `p/t2`: cannot read p/t2.csv");
    let d = check(body).unwrap();
    assert_eq!(
        d.paper_check,
        vec![
            vec!["p/t1".to_string(), "p/t2".to_string()],
            vec!["p/t3".to_string()]
        ]
    );
    let errs = errors("experiment = \"synth\"\npaper_check = [\"p/t1 + \"]\n");
    assert!(errs[0].0.contains("names an empty paper table"), "{errs:?}");
}

#[test]
fn relative_metrics_name_a_shown_variant() {
    let d = check(
        "experiment = \"synth\"\naxes = { N = [1, 2] }\n\
         table = [{ value = \"speedup:slow\" }, { value = \"pct_of:fast\" }]\n\
         chart = { kind = \"bar\", x = \"N\", y = \"speedup:previous\" }\n",
    )
    .unwrap();
    assert_eq!(d.tables[0].value, "speedup:slow");
    assert_eq!(d.tables[1].value, "pct_of:fast");
    assert_eq!(d.charts[0].y, "speedup:previous");
    let names: Vec<String> = crate::directive::metrics::relative_metrics(&d)
        .into_keys()
        .collect();
    assert_eq!(names, ["pct_of:fast", "speedup:previous", "speedup:slow"]);
    let infos = crate::directive::metrics::directive_metric_infos(&d, &experiment());
    assert_eq!(infos["speedup:slow"].label, "speed-up over The slow one");
    assert_eq!(infos["speedup:slow"].unit, crate::value::Unit::Ratio);
    assert_eq!(infos["pct_of:fast"].label, "of The fast one");
    assert_eq!(infos["pct_of:fast"].unit, crate::value::Unit::Percent);
    assert_eq!(
        infos["speedup:previous"].label,
        "speed-up over the previous variant"
    );
    assert!(infos.contains_key("time_ms"), "the plain metrics stay");
}

#[test]
fn unknown_baseline_variant_is_an_error_with_a_suggestion() {
    let errs = errors(
        "experiment = \"synth\"\nvariants = [\"slow\", \"fast\"]\n\
         table = { value = \"speedup:slwo\" }\n",
    );
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!(
        errs[0].0,
        "`speedup:slwo` compares with variant `slwo`, which this directive does not show"
    );
    assert_eq!(errs[0].1.as_deref(), Some("did you mean `speedup:slow`?"));
}

#[test]
fn baseline_must_be_among_the_directive_variants() {
    let errs = errors(
        "experiment = \"synth\"\nvariants = [\"slow\", \"fast\"]\naxes = { N = [1, 2] }\n\
         chart = { x = \"N\", y = \"pct_of:other\" }\n",
    );
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(errs[0].0.contains("variant `other`"), "{errs:?}");
    assert_eq!(
        errs[0].1.as_deref(),
        Some("add `other` to `variants` to compare with it")
    );
}

#[test]
fn previous_needs_two_variants() {
    let errs = errors(
        "experiment = \"synth\"\nvariants = [\"fast\"]\n\
         table = { value = \"speedup:previous\" }\n",
    );
    assert_eq!(errs[0].0, "`speedup:previous` needs at least two variants");
    // with every variant (the default) it is fine
    check("experiment = \"synth\"\ntable = { value = \"speedup:previous\" }\n").unwrap();
}

#[test]
fn unknown_relative_prefix_is_an_error() {
    let errs = errors("experiment = \"synth\"\ntable = { value = \"speedpu:fast\" }\n");
    assert_eq!(
        errs[0].0,
        "`speedpu:fast` is not a metric of experiment `synth`"
    );
    assert_eq!(errs[0].1.as_deref(), Some("did you mean `speedup:fast`?"));
    // a statistic suffix does not apply to a relative metric
    let errs = errors("experiment = \"synth\"\ntable = { value = \"speedup:fast.min\" }\n");
    assert!(errs[0].0.contains("variant `fast.min`"), "{errs:?}");
}

#[test]
fn plain_metric_errors_are_unchanged() {
    let errs = errors("experiment = \"synth\"\ntable = { value = \"gbsp\" }\n");
    assert_eq!(errs[0].0, "`gbsp` is not a metric of experiment `synth`");
    assert_eq!(errs[0].1.as_deref(), Some("did you mean `gbps`?"));
}

#[test]
fn a_rate_needs_its_formula_in_the_spec_or_in_every_variant_shown() {
    // `slow` and `fast` set their own `flops`; `other` does not, and the spec has none.
    let ok = check(
        "experiment = \"synth\"\nvariants = [\"slow\", \"fast\"]\ntable = { value = \"gflops\" }",
    );
    assert!(ok.is_ok(), "{ok:?}");
    let errs = errors("experiment = \"synth\"\ntable = { value = \"gflops\" }");
    assert_eq!(
        errs[0].0,
        "`gflops` is computed from the spec's `flops` formula, which experiment `synth` does not have"
    );
    // `bytes` is in the spec: every variant has it.
    assert!(check("experiment = \"synth\"\ntable = { value = \"gbps\" }").is_ok());
}

#[test]
fn a_counter_metric_needs_its_counter_group_declared() {
    let d = check(
        "experiment = \"synth\"\ncounters = [\"instructions\", \"dram\"]\n\
         table = { value = \"gips\" }\nexpect = [\"fast.dram_gbs > slow.dram_gbs\"]\n",
    )
    .unwrap();
    assert_eq!(d.counters, [Group::Instructions, Group::Dram]);
    let errs = errors("experiment = \"synth\"\ntable = { value = \"gips\" }\n");
    assert_eq!(
        errs[0].0,
        "`gips` comes from the hardware counters `instructions`, which this directive does not declare"
    );
    assert!(
        errs[0]
            .1
            .as_deref()
            .unwrap()
            .contains("counters = [\"instructions\"]")
    );
    let errs = errors(
        "experiment = \"synth\"\ncounters = [\"dram\"]\naxes = { N = [1, 2] }\n\
         chart = { x = \"N\", y = \"stall_global_pct\" }\n",
    );
    assert!(errs[0].0.contains("`warp_states`"), "{errs:?}");
}

#[test]
fn unknown_or_repeated_counter_groups_are_errors() {
    let errs = errors("experiment = \"synth\"\ncounters = [\"instruction\"]\n");
    assert_eq!(errs[0].0, "unknown counter group `instruction`");
    assert_eq!(errs[0].1.as_deref(), Some("did you mean `instructions`?"));
    let errs = errors("experiment = \"synth\"\ncounters = [\"dram\", \"dram\"]\n");
    assert_eq!(errs[0].0, "counter group named twice");
}
