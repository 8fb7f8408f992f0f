//! `check_variant` on hand-written PTX (no NVRTC needed) against the `basic` fixture book's `copy`
//! experiment: `copy(const float* x, float* y, int n)` launched with 256 threads, args x, y, N.

use super::*;
use crate::expr::Expr;
use crate::spec::Experiment;
use std::path::PathBuf;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/basic")
}

fn copy_spec() -> (Experiment, SpecText) {
    let root = root();
    let exp = crate::spec::load(&root, &root.join("kernels"), "copy").unwrap();
    let text = std::fs::read_to_string(root.join("kernels/copy/experiment.toml")).unwrap();
    (
        exp,
        SpecText::new("kernels/copy/experiment.toml".into(), &text),
    )
}

fn target(arch: (u32, u32)) -> Target {
    Target {
        arch,
        limits: crate::limits::arch_limits(arch),
    }
}

const SM90: (u32, u32) = (9, 0);

/// A module with one kernel `name(params)` whose body has `extra` (directives before `{`, body
/// lines after); NVRTC recorded the `.cu` under another working directory.
fn module(name: &str, params: &[&str], directives: &str, body: &str) -> ptx::Module {
    let params: Vec<String> = params
        .iter()
        .enumerate()
        .map(|(i, t)| format!("\t.param {t} {name}_param_{i}"))
        .collect();
    ptx::parse(&format!(
        ".version 9.0\n.target sm_90\n.address_size 64\n.extern .shared .align 16 .b8 dyn[];\n\
         .visible .entry {name}(\n{}\n)\n{directives}\n{{\n\t.loc 1 2 0\n{body}\n\tret;\n}}\n\
         \t.file 1 \"/somewhere/else/kernels/copy/copy.cu\"\n",
        params.join(",\n")
    ))
}

const COPY_PARAMS: [&str; 3] = [".u64", ".u64", ".u32"];

fn check(variant: &Variant, m: &ptx::Module, arch: (u32, u32), n: &[i64]) -> Vec<Diagnostic> {
    let (exp, spec) = copy_spec();
    let mut all = Vec::new();
    for &n in n {
        let mut params: BTreeMap<String, ParamValue> = exp.params.iter().cloned().collect();
        params.insert("N".into(), ParamValue::Int(n));
        let axes = BTreeMap::from([("N".to_string(), ParamValue::Int(n))]);
        all.push((params, axes));
    }
    let points: Vec<PointAt> = all
        .iter()
        .map(|(params, axes)| PointAt { params, axes })
        .collect();
    check_variant(&root(), target(arch), &spec, variant, m, &points)
}

fn naive() -> Variant {
    copy_spec().0.variant("naive").unwrap().clone()
}

/// The diagnostic's file, line and message.
fn at(d: &Diagnostic) -> (String, usize, String) {
    let (line, _) = d.line_col();
    (d.path.display().to_string(), line, d.message.clone())
}

#[test]
fn a_matching_kernel_has_no_problems() {
    let m = module("copy", &COPY_PARAMS, "", "");
    assert_eq!(check(&naive(), &m, SM90, &[1024, 4096]), []);
}

#[test]
fn a_misspelled_kernel_is_reported_at_the_specs_kernel_line_with_did_you_mean() {
    let m = module("cpy", &COPY_PARAMS, "", "");
    let d = check(&naive(), &m, SM90, &[1024]);
    assert_eq!(d.len(), 1, "{d:?}");
    let (file, line, message) = at(&d[0]);
    assert_eq!((file.as_str(), line), ("kernels/copy/experiment.toml", 30));
    assert!(
        message.contains("kernel `copy` is not in the module"),
        "{message}"
    );
    assert_eq!(
        d[0].help.as_deref(),
        Some("did you mean `cpy`? (its kernels: `cpy`)")
    );
}

#[test]
fn a_kernel_without_extern_c_is_reported_at_its_cu_line() {
    let m = module("_Z4copyPKfPfi", &COPY_PARAMS, "", "");
    let d = check(&naive(), &m, SM90, &[1024]);
    assert_eq!(d.len(), 1, "{d:?}");
    let (file, line, message) = at(&d[0]);
    assert_eq!((file.as_str(), line), ("kernels/copy/copy.cu", 2));
    assert_eq!(&d[0].source[d[0].span.clone()], "copy");
    assert!(message.contains("C++ name `_Z4copyPKfPfi`"), "{message}");
    assert!(d[0].help.as_ref().unwrap().contains("extern \"C\""));
}

#[test]
fn a_missing_argument_is_reported_at_the_specs_args() {
    let m = module("copy", &[".u64", ".u64", ".u32", ".f32"], "", "");
    let d = check(&naive(), &m, SM90, &[1024]);
    assert_eq!(d.len(), 1, "{d:?}");
    let (file, line, message) = at(&d[0]);
    assert_eq!((file.as_str(), line), ("kernels/copy/experiment.toml", 33));
    assert_eq!(
        message,
        "variant `naive` passes 3 argument(s) to kernel `copy`, which takes 4"
    );
    assert_eq!(&d[0].source[d[0].span.clone()], r#""x", "y", "N""#);
}

#[test]
fn each_argument_of_the_wrong_kind_is_reported_at_itself() {
    // copy(float* x, double y, float n): a buffer to a double, an i32 to a float.
    let m = module("copy", &[".u64", ".f64", ".f32"], "", "");
    let d = check(&naive(), &m, SM90, &[1024]);
    assert_eq!(d.len(), 2, "{d:?}");
    assert_eq!(&d[0].source[d[0].span.clone()], r#""y""#);
    assert!(d[0].message.contains("argument 2 is buffer `y`, a pointer (64 bits), but parameter 2 of kernel `copy` is a 64-bit float"), "{}", d[0].message);
    assert_eq!(&d[1].source[d[1].span.clone()], r#""N""#);
    assert!(d[1].message.contains("argument 3 is `N` as an `i32` (a 32-bit integer), but parameter 3 of kernel `copy` is a 32-bit float"), "{}", d[1].message);
    assert!(
        d[1].help
            .as_ref()
            .unwrap()
            .starts_with("write `{ f32 = \"N\" }`")
    );
    // An i64 scalar passes for a 64-bit parameter: PTX cannot tell it from a pointer.
    let mut v = naive();
    v.launches[0].args[2] = ArgSpec::Scalar(ScalarType::I64, Expr::parse("N").unwrap());
    let m = module("copy", &[".u64", ".u64", ".u64"], "", "");
    assert_eq!(check(&v, &m, SM90, &[1024]), []);
}

/// 8- and 16-bit integers and half floats: NVRTC writes `unsigned char` as `.u8`, `short` as
/// `.u16`, and `__half` / `__nv_bfloat16` as 2-byte structs.
#[test]
fn narrow_integers_and_half_floats_match_by_size() {
    let scalar = |ty: ScalarType| ArgSpec::Scalar(ty, Expr::parse("N").unwrap());
    let mut v = naive();
    v.launches[0].args[2] = scalar(ScalarType::U8);
    assert_eq!(
        check(
            &v,
            &module("copy", &[".u64", ".u64", ".u8"], "", ""),
            SM90,
            &[100]
        ),
        []
    );
    v.launches[0].args[2] = scalar(ScalarType::F16);
    let half = ptx::parse(
        ".visible .entry copy(.param .u64 a, .param .u64 b, .param .align 2 .b8 c[2])\n{\n\tret;\n}\n",
    );
    assert_eq!(check(&v, &half, SM90, &[100]), []);
    // An i32 where the kernel takes a `short`, and where it takes a `__half`.
    v.launches[0].args[2] = scalar(ScalarType::I32);
    let d = check(
        &v,
        &module("copy", &[".u64", ".u64", ".u16"], "", ""),
        SM90,
        &[100],
    );
    assert!(
        d[0].message
            .ends_with("parameter 3 of kernel `copy` is a 16-bit integer"),
        "{}",
        d[0].message
    );
    assert!(
        d[0].help
            .as_ref()
            .unwrap()
            .starts_with("write `{ u16 = \"N\" }` or `{ i16 = \"N\" }`")
    );
    let d = check(&v, &half, SM90, &[100]);
    assert!(
        d[0].help
            .as_ref()
            .unwrap()
            .starts_with("for a `__half` or `__nv_bfloat16` parameter write `{ f16 = \"N\" }`"),
        "{:?}",
        d[0].help
    );
}

#[test]
fn a_block_beyond_launch_bounds_is_reported_once_with_the_count_of_points() {
    let m = module("copy", &COPY_PARAMS, ".maxntid 128, 1, 1", "");
    let d = check(&naive(), &m, SM90, &[1024, 4096]);
    assert_eq!(d.len(), 1, "{d:?}");
    let (file, line, message) = at(&d[0]);
    assert_eq!((file.as_str(), line), ("kernels/copy/experiment.toml", 32));
    assert_eq!(
        message,
        "variant `naive` at N=1024: a block of 256 threads, but kernel `copy` is declared \
         `__launch_bounds__(128)` (kernels/copy/copy.cu:2): the launch would fail (and 1 more point(s))"
    );
    let m = module("copy", &COPY_PARAMS, ".maxntid 256, 1, 1", "");
    assert_eq!(check(&naive(), &m, SM90, &[1024]), []);
}

#[test]
fn a_block_other_than_reqntid_is_reported() {
    let m = module("copy", &COPY_PARAMS, ".reqntid 32, 8, 1", "");
    let d = check(&naive(), &m, SM90, &[1024]);
    assert_eq!(d.len(), 1, "{d:?}");
    assert!(
        d[0].message.contains("exactly [32, 8, 1]"),
        "{}",
        d[0].message
    );
}

#[test]
fn static_shared_memory_over_48_kib_is_reported_at_the_kernel() {
    let body = "\t.shared .align 4 .b8 _ZZ4copyE4tile[49156];";
    let m = module("copy", &COPY_PARAMS, "", body);
    let d = check(&naive(), &m, SM90, &[1024]);
    assert_eq!(d.len(), 1, "{d:?}");
    let (file, line, message) = at(&d[0]);
    assert_eq!((file.as_str(), line), ("kernels/copy/copy.cu", 2));
    assert!(
        message.contains("declares 49156 bytes of static `__shared__` memory; sm_90 allows 49152"),
        "{message}"
    );
}

#[test]
fn static_plus_dynamic_shared_memory_over_the_opt_in_maximum_is_reported() {
    let body = "\t.shared .align 4 .b8 _ZZ4copyE4tile[32768];\n\tmov.u32 %r1, dyn;";
    let m = module("copy", &COPY_PARAMS, "", body);
    let mut v = naive();
    v.launches[0].shared = Some(Expr::parse("N * 190").unwrap());
    // 32768 + 1024·190 = 227328 fits in 232448; 32768 + 1100·190 = 241768 does not.
    let d = check(&v, &m, SM90, &[1024, 1100]);
    assert_eq!(d.len(), 1, "{d:?}");
    assert!(
        d[0].message.starts_with(
            "variant `naive` at N=1100: 209000 bytes of dynamic shared memory plus the 32768 bytes"
        ),
        "{}",
        d[0].message
    );
    // sm_86 allows 99 KiB: the point a Hopper could launch is not applicable there (a warning),
    // the other one an error as on every GPU.
    let d = check(&v, &m, (8, 6), &[1024, 1100]);
    let (warnings, errors): (Vec<_>, Vec<_>) = d
        .iter()
        .partition(|d| d.level == crate::diagnostic::Level::Warning);
    assert!(
        warnings[0]
            .message
            .contains("at N=1024: not applicable on sm_86: 194560 bytes"),
        "{d:?}"
    );
    assert!(
        errors[0].message.contains("at N=1100: 209000 bytes")
            && errors[0]
                .message
                .contains("101376 bytes sm_86 allows per block"),
        "{d:?}"
    );
    // Limits unknown: not checked (the CLI says so).
    assert_eq!(check(&v, &m, (6, 1), &[1100]), []);
}

#[test]
fn a_kernel_using_dynamic_shared_memory_without_a_size_is_reported() {
    let m = module("copy", &COPY_PARAMS, "", "\tst.shared.f32 [dyn+4], %f1;");
    let d = check(&naive(), &m, SM90, &[1024]);
    assert_eq!(d.len(), 1, "{d:?}");
    assert!(
        d[0].message
            .contains("uses dynamic shared memory (`extern __shared__ … dyn[]`"),
        "{}",
        d[0].message
    );
    let mut v = naive();
    v.launches[0].shared = Some(Expr::parse("1024").unwrap());
    assert_eq!(check(&v, &m, SM90, &[1024]), []);
}

#[test]
fn recorded_paths_resolve_to_the_longest_tail_under_the_root() {
    let root = root();
    assert_eq!(
        resolve(&root, "/tmp/x/kernels/copy/copy.cu"),
        Some(root.join("kernels/copy/copy.cu"))
    );
    assert_eq!(resolve(&root, "/usr/include/cuda_fp16.h"), None);
}
