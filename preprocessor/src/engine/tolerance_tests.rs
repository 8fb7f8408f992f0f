//! The derived tolerance accepts FP32 arithmetic and rejects TF32-precision results.

use super::*;
use crate::engine::reference::{compare, matmul};
use crate::host_data::ElemType;
use crate::host_data::init::{Init, generate};

fn dims(n: usize) -> BTreeMap<String, i64> {
    BTreeMap::from([("n".to_string(), n as i64)])
}

/// Rounds to TF32: 10 explicit mantissa bits, round to nearest even (as tensor cores read FP32 inputs).
fn tf32(x: f32) -> f32 {
    let bits = x.to_bits();
    let lower = bits & 0x1fff;
    let mut upper = bits & !0x1fff;
    if lower > 0x1000 || (lower == 0x1000 && upper & 0x2000 != 0) {
        upper += 0x2000;
    }
    f32::from_bits(upper)
}

/// `C = A·B` with the products of `round`ed inputs, summed in f32 in k order (a plain FP32 kernel's
/// worst order).
fn f32_product(a: &[f32], b: &[f32], n: usize, round: impl Fn(f32) -> f32) -> Vec<f32> {
    let mut c = vec![0.0f32; n * n];
    for i in 0..n {
        for j in 0..n {
            let mut s = 0.0f32;
            for k in 0..n {
                s += round(a[i * n + k]) * round(b[k * n + j]);
            }
            c[i * n + j] = s;
        }
    }
    c
}

fn inputs(n: usize) -> (Vec<f32>, Vec<f32>, HostData, HostData) {
    let r = Init::Random { lo: -1.0, hi: 1.0 };
    let a = generate(ElemType::F32, n * n, &r, 1).unwrap();
    let b = generate(ElemType::F32, n * n, &r, 2).unwrap();
    let (HostData::F32(av), HostData::F32(bv)) = (&a, &b) else {
        unreachable!()
    };
    (av.clone(), bv.clone(), a, b)
}

#[test]
fn tf32_precision_sgemm_fails_and_fp32_passes() {
    let n = 384;
    let (av, bv, a, b) = inputs(n);
    let want = matmul(&a, &b, n).unwrap();
    // The spec's old loose tolerance (1e-3) would have passed TF32: the derived one replaces it.
    let tol = effective(Some("matmul"), &[&a, &b], &dims(n), &want, 1e-3);
    assert_eq!(tol.rule, "floating-point accumulation, K = 384, λ = 32");
    assert!(tol.value < 1e-4, "{}", tol.value);

    let fp32 = HostData::F32(f32_product(&av, &bv, n, |x| x));
    let ok = compare(&fp32, &want, tol.value);
    assert!(ok.ok, "FP32 must pass: {}", ok.message);
    assert!(
        ok.max_error < tol.value / 3.0,
        "FP32 sits well inside: {} vs {}",
        ok.max_error,
        tol.value
    );

    let tf = HostData::F32(f32_product(&av, &bv, n, tf32));
    let bad = compare(&tf, &want, tol.value);
    assert!(!bad.ok, "a TF32-precision result must fail");
    assert!(
        bad.max_error > 5.0 * tol.value,
        "by a wide margin: {} vs {}",
        bad.max_error,
        tol.value
    );
    // …and it is exactly what the old spec tolerance let through.
    assert!(compare(&tf, &want, 1e-3).ok);
}

#[test]
fn tf32_rounding_is_right() {
    assert_eq!(tf32(1.0), 1.0);
    // 1 + 2^-11 is halfway between TF32 neighbours 1 and 1 + 2^-10: ties to even (1).
    assert_eq!(tf32(1.0 + 2f32.powi(-11)), 1.0);
    assert_eq!(tf32(1.0 + 3.0 * 2f32.powi(-11)), 1.0 + 2.0 * 2f32.powi(-10));
    assert_eq!(tf32(1.0 + 2f32.powi(-10)), 1.0 + 2f32.powi(-10));
}

#[test]
fn accumulation_lengths_per_reference() {
    let x = HostData::F32(vec![0.0; 1000]);
    let d = BTreeMap::from([
        ("n".to_string(), 10),
        ("rows".to_string(), 10),
        ("cols".to_string(), 100),
    ]);
    assert_eq!(accumulation_length("matmul", &[&x, &x], &d), Some(10));
    assert_eq!(accumulation_length("matmul_aat", &[&x], &d), Some(100));
    assert_eq!(accumulation_length("dot", &[&x, &x], &d), Some(1000));
    assert_eq!(accumulation_length("sum", &[&x], &d), Some(1000));
    assert_eq!(accumulation_length("row_mean", &[&x], &d), Some(100));
    assert_eq!(accumulation_length("transpose", &[&x], &d), None);
    assert_eq!(accumulation_length("row_max", &[&x], &d), None);
}

#[test]
fn integers_and_non_accumulating_references_keep_the_spec_tolerance() {
    let ints = HostData::I32(vec![1, 2, 3]);
    assert_eq!(accumulation(10, &ints), None);
    let t = effective(
        Some("transpose"),
        &[],
        &BTreeMap::new(),
        &HostData::F32(vec![1.0]),
        0.0,
    );
    assert_eq!((t.value, t.rule.as_str()), (0.0, "spec"));
    let t = effective(None, &[], &BTreeMap::new(), &HostData::F32(vec![1.0]), 1e-5);
    assert_eq!((t.value, t.rule.as_str()), (1e-5, "spec"));
    // A spec tolerance tighter than the derived one wins.
    let want = HostData::F32(vec![100.0; 16]);
    let x = HostData::F32(vec![1.0; 16]);
    let t = effective(Some("matmul"), &[&x, &x], &dims(4), &want, 1e-9);
    assert_eq!((t.value, t.rule.as_str()), (1e-9, "spec"));
}

#[test]
fn the_bound_follows_the_formula() {
    // K = 8, every output 4: λ·u·√4·4 + 2u·4, relative to max(1, 4) = 4.
    let u = f64::from(f32::EPSILON) / 2.0;
    let want = HostData::F32(vec![4.0; 5]);
    let t = accumulation(8, &want).unwrap();
    assert!(
        (t - (LAMBDA * u * 2.0 * 4.0 + 8.0 * u) / 4.0).abs() < 1e-18,
        "{t}"
    );
}

#[test]
fn the_derived_tolerance_uses_the_unit_roundoff_of_the_output_type() {
    use half::{bf16, f16};
    let ones = |ty: ElemType| HostData::F64(vec![1.0; 16]).cast(ty);
    let k = 64;
    let of = |ty: ElemType| accumulation(k, &ones(ty)).unwrap();
    // Same values, same K: the bound scales with u (2^-11, 2^-8, 2^-24, 2^-53).
    let r = of(ElemType::F16) / of(ElemType::F32);
    assert!((r - 2f64.powi(13)).abs() < 1e-6 * r, "{r}");
    let r = of(ElemType::BF16) / of(ElemType::F16);
    assert!((r - 8.0).abs() < 1e-9, "{r}");
    assert!(of(ElemType::F64) < of(ElemType::F32));
    assert_eq!(accumulation(k, &HostData::U8(vec![1; 4])), None);
    assert_eq!(ones(ElemType::F16), HostData::F16(vec![f16::ONE; 16]));
    assert_eq!(ones(ElemType::BF16), HostData::BF16(vec![bf16::ONE; 16]));
}
