//! Launch sequences planned on the CPU (no GPU): a `[[variant.launch]]` sequence launches each of
//! its kernels once, in order, with its own geometry and arguments; `passes` and `loop` repeat the
//! one launch of their variant. Synthetic specs.

use super::*;
use crate::spec::{Experiment, metrics::point_vars};
use crate::value::ParamValue;
use gpulab_spec::source::SourceFile;

fn load(variants: &str) -> Experiment {
    let spec = format!(
        r#"
title = "t"
source = "k.cu"
[params]
N = 1000
B = 4
[[buffer]]
name = "x"
type = "u32"
len = "N"
[[buffer]]
name = "y"
type = "u32"
len = "N"
output = true
[[buffer]]
name = "p"
type = "u32"
len = "N"
[[buffer]]
name = "q"
type = "u32"
len = "N"
[verify]
reference = "formula"
output = "y"
formula = "i"
{variants}
"#
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("k.cu"), "").unwrap();
    let file = SourceFile::new("experiment.toml", spec.as_str());
    let raw = crate::spec::raw::parse(&spec).unwrap();
    crate::spec::validate::validate(raw, "t", dir.path(), dir.path(), &file)
        .unwrap_or_else(|d| panic!("{d:?}"))
}

fn describe(exp: &Experiment, n: i64) -> (Vec<String>, Vec<LaunchDescription>) {
    let mut params: std::collections::BTreeMap<_, _> = exp.params.iter().cloned().collect();
    params.insert("N".to_string(), ParamValue::Int(n));
    let seq = Sequence::plan(&exp.variants[0], &point_vars(&params, None)).unwrap();
    (seq.kernels().to_vec(), seq.describe())
}

const SCAN: &str = r#"
[[variant]]
name = "scan"
[[variant.launch]]
kernel = "tiles"
grid = ["ceil_div(N, 2*B)"]
block = ["B"]
shared = "8*B"
args = ["x", "y", "p", "N"]
[[variant.launch]]
kernel = "totals"
grid = [1]
block = ["B"]
args = ["p", "ceil_div(N, 2*B)"]
[[variant.launch]]
kernel = "offsets"
grid = ["ceil_div(N, 2*B)"]
block = ["B", 2]
args = ["y", "p", { u32 = "N" }]
"#;

#[test]
fn a_launch_sequence_runs_each_kernel_once_in_order_with_its_own_launch() {
    let (kernels, launches) = describe(&load(SCAN), 1000);
    assert_eq!(kernels, ["tiles", "totals", "offsets"]);
    let names: Vec<&str> = launches.iter().map(|l| l.kernel.as_str()).collect();
    assert_eq!(names, kernels);
    let l = &launches;
    assert_eq!(
        (l[0].grid, l[0].block, l[0].shared),
        ([125, 1, 1], [4, 1, 1], 32)
    );
    assert_eq!((l[1].grid, l[1].shared), ([1, 1, 1], 0));
    assert_eq!(l[2].block, [4, 2, 1]);
    let buffer = |b: &str| Arg::Buffer(b.into());
    assert_eq!(
        l[0].args,
        [
            buffer("x"),
            buffer("y"),
            buffer("p"),
            Arg::Scalar(Scalar::I32(1000))
        ]
    );
    assert_eq!(l[1].args, [buffer("p"), Arg::Scalar(Scalar::I32(125))]);
    assert_eq!(l[2].args[2], Arg::Scalar(Scalar::U32(1000)));
}

#[test]
fn passes_and_loops_repeat_their_variants_one_kernel() {
    let passes = load(
        r#"
[[variant]]
name = "reduce"
kernel = "step"
grid = ["ceil_div(count, 2*B)"]
block = ["B"]
args = ["@in", "@out", "count"]
passes = { count = "N", next = "ceil_div(count, 2*B)", input = "x", scratch = ["p", "q"], result = "y" }
"#,
    );
    let (kernels, launches) = describe(&passes, 1000);
    assert_eq!(kernels, ["step"]);
    // 1000 → 125 → 16 → 2 → 1: four passes of the one kernel, ping-ponging between p and q.
    let outs: Vec<&Arg> = launches.iter().map(|l| &l.args[1]).collect();
    assert_eq!(launches.len(), 4);
    assert!(launches.iter().all(|l| l.kernel == "step"));
    assert_eq!(
        outs,
        [
            &Arg::Buffer("p".into()),
            &Arg::Buffer("q".into()),
            &Arg::Buffer("p".into()),
            &Arg::Buffer("y".into())
        ]
    );
    let looped = load(
        r#"
[[variant]]
name = "rows"
kernel = "row"
grid = [1]
block = ["B"]
args = ["x", "r"]
loop = { var = "r", count = "3" }
"#,
    );
    let (_, launches) = describe(&looped, 1000);
    let rows: Vec<&Arg> = launches.iter().map(|l| &l.args[1]).collect();
    assert_eq!(
        rows,
        [
            &Arg::Scalar(Scalar::I32(0)),
            &Arg::Scalar(Scalar::I32(1)),
            &Arg::Scalar(Scalar::I32(2))
        ]
    );
}
