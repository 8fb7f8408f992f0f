//! The `reset` semantics on the CPU: which buffers are poisoned, restored or zeroed before the
//! verification run and before each timed sample, and what the reference reads.

use super::*;
use crate::host_data::init::generate;
use crate::host_data::{ElemType, HostData};
use gpulab_spec::source::SourceFile;

fn load(buffers: &str) -> Experiment {
    let spec = format!(
        r#"
title = "t"
source = "k.cu"
[params]
N = 8
{buffers}
[verify]
reference = "formula"
output = "y"
formula = "i"
[[variant]]
name = "v"
kernel = "k"
grid = [1]
block = ["N"]
args = ["y", "N"]
"#
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("k.cu"),
        "extern \"C\" __global__ void k() {}\n",
    )
    .unwrap();
    let file = SourceFile::new("experiment.toml", spec.as_str());
    let raw = crate::spec::raw::parse(&spec).unwrap();
    crate::spec::validate::validate(raw, "t", dir.path(), dir.path(), &file)
        .unwrap_or_else(|d| panic!("{d:?}"))
}

fn plan_of(buffers: &str) -> ResetPlan {
    let exp = load(buffers);
    ResetPlan::new(&exp, &exp.variants[0])
}

fn steps(list: &[(&str, Prepare)]) -> Vec<(String, Prepare)> {
    list.iter().map(|(n, p)| (n.to_string(), *p)).collect()
}

#[test]
fn an_output_without_reset_is_poisoned_for_verification_only() {
    let plan = plan_of(
        r#"[[buffer]]
name = "x"
type = "f32"
len = "N"
init = "iota"
[[buffer]]
name = "y"
type = "f32"
len = "N"
output = true"#,
    );
    assert_eq!(plan.verification, steps(&[("y", Prepare::Poison)]));
    assert!(plan.every_sample.is_empty());
    assert!(!plan.per_sample());
}

#[test]
fn reset_init_restores_before_verification_and_every_sample() {
    // In-place y = a·x + y: y is read and written.
    let plan = plan_of(
        r#"[[buffer]]
name = "y"
type = "f32"
len = "N"
init = { random = [-1, 1] }
output = true
reset = "init""#,
    );
    assert_eq!(plan.verification, steps(&[("y", Prepare::Restore)]));
    assert_eq!(
        plan.every_sample, plan.verification,
        "identical for every run"
    );
    assert!(plan.per_sample());
    assert_eq!(plan.restored().collect::<Vec<_>>(), vec!["y"]);
}

#[test]
fn reset_zero_zeroes_an_accumulator_and_its_reference_reads_zeros() {
    let exp = load(
        r#"[[buffer]]
name = "y"
type = "u32"
len = "N"
output = true
reset = "zero""#,
    );
    let plan = ResetPlan::new(&exp, &exp.variants[0]);
    assert_eq!(plan.verification, steps(&[("y", Prepare::Zero)]));
    assert_eq!(plan.every_sample, plan.verification);
    assert_eq!(plan.restored().count(), 0, "zeroing needs no pristine copy");
    // The host contents (the reference's view, and what was uploaded) are the zeros the kernel
    // starts from.
    let b = exp.buffer("y").unwrap();
    assert_eq!(
        generate(b.elem, 4, &b.init, 1).unwrap(),
        HostData::zeros(ElemType::U32, 4)
    );
}

#[test]
fn an_input_without_reset_is_left_alone() {
    let plan = plan_of(
        r#"[[buffer]]
name = "x"
type = "u8"
len = "N"
init = "iota"
[[buffer]]
name = "y"
type = "u8"
len = "N"
output = true
reset = "none""#,
    );
    assert_eq!(plan.verification, steps(&[("y", Prepare::Poison)]));
}
