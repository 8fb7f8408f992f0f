//! References and comparisons for the 8-, 16- and 64-bit integer types and f16/bf16.

use super::*;
use half::{bf16, f16};

/// [`super::run`] with the result in the first input's type.
fn run(
    name: &str,
    inputs: &[&HostData],
    dims: &BTreeMap<String, i64>,
) -> Result<HostData, ReferenceError> {
    super::run(name, inputs, dims, inputs[0].elem_type())
}

#[test]
fn narrow_integers_wrap_like_the_kernel() {
    // 200 + 100 wraps to 44 in u8; computed in u32, narrowed back.
    let x = HostData::U8(vec![200, 100]);
    assert_eq!(sum(&x).ok(), None, "sum itself only sees computing types");
    let dims = BTreeMap::new();
    assert_eq!(run("sum", &[&x], &dims).unwrap(), HostData::U8(vec![44]));
    let y = HostData::I8(vec![100, 100]);
    // 100·100 + 100·100 = 20000 = 78·256 + 32.
    assert_eq!(
        run("dot", &[&y, &y], &dims).unwrap(),
        HostData::I8(vec![32])
    );
}

#[test]
fn halves_compute_in_f64_and_round_once() {
    let a: Vec<f16> = [1.0, 2.0, 3.0, 4.0]
        .iter()
        .map(|&x| f16::from_f64(x))
        .collect();
    let a = HostData::F16(a);
    let dims = BTreeMap::from([("n".to_string(), 2i64)]);
    let c = run("matmul", &[&a, &a], &dims).unwrap();
    assert_eq!(c.elem_type(), ElemType::F16);
    assert_eq!(
        c.as_f64_iter().collect::<Vec<_>>(),
        vec![7.0, 10.0, 15.0, 22.0]
    );
    let t = run(
        "transpose",
        &[&a],
        &BTreeMap::from([("rows".to_string(), 2), ("cols".to_string(), 2)]),
    )
    .unwrap();
    assert_eq!(
        t.as_f64_iter().collect::<Vec<_>>(),
        vec![1.0, 3.0, 2.0, 4.0]
    );
    let b = HostData::BF16(vec![bf16::from_f64(0.5); 3]);
    assert_eq!(
        run("sum", &[&b], &BTreeMap::new()).unwrap(),
        HostData::BF16(vec![bf16::from_f64(1.5)])
    );
}

#[test]
fn sixty_four_bit_arithmetic_references_say_to_write_a_formula() {
    let x = HostData::U64(vec![1, 2]);
    let e = run("sum", &[&x], &BTreeMap::new()).unwrap_err();
    assert!(e.to_string().contains("formula"), "{e}");
    // Data movement works for every type.
    let g = run(
        "gather",
        &[&x],
        &BTreeMap::from([
            ("n".to_string(), 2),
            ("offset".to_string(), 1),
            ("stride".to_string(), -1),
        ]),
    )
    .unwrap();
    assert_eq!(g, HostData::U64(vec![2, 1]));
}

#[test]
fn sixty_four_bit_integers_compare_exactly_beyond_f64() {
    // 2^53 + 1 and 2^53 are the same f64: an f64 comparison would call them equal.
    let big = (1u64 << 53) + 1;
    let out = HostData::U64(vec![big]);
    let want = HostData::U64(vec![big - 1]);
    let c = compare(&out, &want, 0.0);
    assert!(!c.ok);
    assert_eq!(c.first_bad_index, Some(0));
    assert!(compare(&out, &out.clone(), 0.0).ok);
    let i = HostData::I64(vec![i64::MIN, -1]);
    assert!(compare(&i, &i.clone(), 0.0).ok);
    assert!(!compare(&i, &HostData::I64(vec![i64::MIN, 0]), 0.0).ok);
    // Narrow integer types too.
    assert!(!compare(&HostData::U8(vec![1, 2]), &HostData::U8(vec![1, 3]), 0.0).ok);
}

#[test]
fn halves_compare_with_a_tolerance() {
    let want = HostData::F16(vec![f16::from_f64(1.0); 4]);
    // One f16 ulp at 1.0 is 2^-10.
    let near = HostData::F16(vec![f16::from_f64(1.0 + 1.0 / 1024.0); 4]);
    let tol = ElemType::F16.default_tolerance();
    assert!(compare(&near, &want, tol).ok);
    let far = HostData::F16(vec![f16::from_f64(1.125); 4]);
    assert!(!compare(&far, &want, tol).ok);
    let nan = HostData::F16(vec![f16::NAN; 4]);
    assert!(!compare(&nan, &want, tol).ok);
}

/// Regression (issue 35): an f16 dot product checked against an f32 output was rounded to f16
/// first, so the reference itself was off by half an f16 unit. It is the exact sum rounded once to
/// the output's type, and 8-bit integers accumulated into an i32 output do not wrap at 8 bits.
#[test]
fn a_wider_output_gets_the_reference_rounded_once_into_its_type() {
    let x = HostData::F16(vec![f16::ONE, f16::from_f64(2f64.powi(-12))]);
    let ones = HostData::F16(vec![f16::ONE; 2]);
    let d = BTreeMap::new();
    let exact = 1.0 + 2f32.powi(-12);
    assert_eq!(
        super::run("dot", &[&x, &ones], &d, ElemType::F32).unwrap(),
        HostData::F32(vec![exact])
    );
    assert_eq!(
        run("dot", &[&x, &ones], &d).unwrap(),
        HostData::F16(vec![f16::ONE]),
        "into an f16 output, as before"
    );
    let y = HostData::F32(vec![1.0, f32::EPSILON / 4.0]);
    let one = HostData::F32(vec![1.0; 2]);
    assert_eq!(
        super::run("dot", &[&y, &one], &d, ElemType::F64).unwrap(),
        HostData::F64(vec![1.0 + f64::from(f32::EPSILON) / 4.0]),
        "f32 inputs into an f64 output: in f64"
    );
    let b = HostData::I8(vec![100, 100]);
    assert_eq!(
        super::run("dot", &[&b, &b], &d, ElemType::I32).unwrap(),
        HostData::I32(vec![20000])
    );
}
