//! Tests of `cpu_baseline`.

use super::*;
use crate::engine::reference::{self, compare};
use crate::host_data::ElemType;
use crate::host_data::init::{Init, generate};

fn dims(pairs: &[(&str, i64)]) -> BTreeMap<String, i64> {
    pairs.iter().map(|&(k, v)| (k.to_string(), v)).collect()
}

/// The baseline into a new output (the worker allocates its own; these tests need not).
fn run(
    name: &str,
    inputs: &[&HostData],
    dims: &BTreeMap<String, i64>,
) -> Result<HostData, ReferenceError> {
    let mut out = HostData::F32(Vec::new());
    run_into(name, inputs, dims, &mut out)?;
    Ok(out)
}

#[test]
fn matmul_baselines_agree_with_the_reference() {
    let n = 33;
    let d = dims(&[("n", n as i64)]);
    for (ty, names) in [
        (ElemType::I32, ["matmul_i32_naive", "matmul_i32_threads"]),
        (ElemType::F32, ["matmul_f32_naive", "matmul_f32_threads"]),
    ] {
        let a = generate(ty, n * n, &Init::Random { lo: -9.0, hi: 9.0 }, 1).unwrap();
        let b = generate(ty, n * n, &Init::Random { lo: -9.0, hi: 9.0 }, 2).unwrap();
        let want = reference::matmul(&a, &b, n).unwrap();
        for name in names {
            let got = run(name, &[&a, &b], &d).unwrap();
            let cmp = compare(&got, &want, 1e-5);
            assert!(cmp.ok, "{name}: {}", cmp.message);
        }
    }
}

#[test]
fn transpose_baselines_agree_with_the_reference() {
    let a = generate(ElemType::F64, 7 * 5, &Init::Iota, 0).unwrap();
    let want = reference::transpose(&a, 7, 5).unwrap();
    for name in ["transpose_naive", "transpose_threads"] {
        assert_eq!(
            run(name, &[&a], &dims(&[("rows", 7), ("cols", 5)])).unwrap(),
            want,
            "{name}"
        );
    }
    let sq = generate(ElemType::U32, 16, &Init::Iota, 0).unwrap();
    assert_eq!(
        run("transpose_threads", &[&sq], &dims(&[("n", 4)])).unwrap(),
        reference::transpose(&sq, 4, 4).unwrap()
    );
}

#[test]
fn cpu_model_from_proc_cpuinfo() {
    let text = "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC  9454 48-Core Processor\n";
    assert_eq!(
        parse_cpu_model(text, 16).as_deref(),
        Some("AMD EPYC 9454 48-Core Processor, 16 threads")
    );
    assert_eq!(parse_cpu_model("processor: 0\n", 1), None);
}

#[test]
fn rerunning_into_the_same_output_reuses_it_and_gives_the_same_result() {
    let n = 17;
    let d = dims(&[("n", n as i64)]);
    let a = generate(ElemType::F32, n * n, &Init::Random { lo: -1.0, hi: 1.0 }, 1).unwrap();
    let b = generate(ElemType::F32, n * n, &Init::Random { lo: -1.0, hi: 1.0 }, 2).unwrap();
    for name in [
        "matmul_f32_naive",
        "matmul_f32_threads",
        "transpose_threads",
    ] {
        let inputs: Vec<&HostData> = if name.starts_with("matmul") {
            vec![&a, &b]
        } else {
            vec![&a]
        };
        let first = run(name, &inputs, &d).unwrap();
        let mut out = first.clone();
        let before = match &out {
            HostData::F32(v) => v.as_ptr(),
            _ => unreachable!(),
        };
        run_into(name, &inputs, &d, &mut out).unwrap();
        let after = match &out {
            HostData::F32(v) => v.as_ptr(),
            _ => unreachable!(),
        };
        assert_eq!(before, after, "{name}: no new allocation");
        assert_eq!(
            out, first,
            "{name}: the threads version zeroes before accumulating"
        );
    }
}

#[test]
fn errors_not_panics() {
    let a = HostData::F32(vec![0.0; 4]);
    assert!(matches!(
        run("nope", &[&a], &BTreeMap::new()),
        Err(ReferenceError::Unknown { .. })
    ));
    assert!(matches!(
        run("matmul_i32_naive", &[&a, &a], &dims(&[("n", 2)])),
        Err(ReferenceError::Type { .. })
    ));
    assert!(matches!(
        run("matmul_f32_naive", &[&a, &a], &dims(&[("n", 3)])),
        Err(ReferenceError::Length { .. })
    ));
    assert!(matches!(
        run("matmul_f32_naive", &[&a], &dims(&[("n", 2)])),
        Err(ReferenceError::InputCount { .. })
    ));
    assert!(matches!(
        run("transpose_naive", &[&a], &dims(&[("rows", 3), ("cols", 2)])),
        Err(ReferenceError::Length { .. })
    ));
    assert!(matches!(
        run("transpose_naive", &[&a], &BTreeMap::new()),
        Err(ReferenceError::MissingDim { .. })
    ));
}
