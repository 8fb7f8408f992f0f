//! Unit tests of the built-in references and the comparison.

use super::*;
use crate::host_data::init::{Init, generate};

/// [`super::run`] with the result in the first input's type.
fn run(
    name: &str,
    inputs: &[&HostData],
    dims: &BTreeMap<String, i64>,
) -> Result<HostData, ReferenceError> {
    super::run(name, inputs, dims, inputs[0].elem_type())
}

fn naive_matmul_f64(a: &[f64], b: &[f64], n: usize) -> Vec<f64> {
    let mut c = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            c[i * n + j] = (0..n).map(|k| a[i * n + k] * b[k * n + j]).sum();
        }
    }
    c
}

fn dims(pairs: &[(&str, i64)]) -> BTreeMap<String, i64> {
    pairs.iter().map(|&(k, v)| (k.to_string(), v)).collect()
}

#[test]
fn matmul_matches_naive_for_odd_sizes() {
    for n in [1usize, 3, 37, 70] {
        let a = generate(ElemType::F64, n * n, &Init::Random { lo: -1.0, hi: 1.0 }, 1).unwrap();
        let b = generate(ElemType::F64, n * n, &Init::Random { lo: -1.0, hi: 1.0 }, 2).unwrap();
        let (HostData::F64(av), HostData::F64(bv)) = (&a, &b) else {
            unreachable!()
        };
        let want = HostData::F64(naive_matmul_f64(av, bv, n));
        let got = matmul(&a, &b, n).unwrap();
        let cmp = compare(&got, &want, 1e-12);
        assert!(cmp.ok, "n={n}: {}", cmp.message);
    }
}

#[test]
fn matmul_i32_wraps_and_f32_uses_f64() {
    let a = HostData::I32(vec![i32::MAX, 0, 0, 1]);
    let b = HostData::I32(vec![2, 0, 0, 1]);
    assert_eq!(
        matmul(&a, &b, 2).unwrap(),
        HostData::I32(vec![i32::MAX.wrapping_mul(2), 0, 0, 1])
    );
    let a = HostData::F32(vec![1.0, 2.0, 3.0, 4.0]);
    let b = HostData::F32(vec![5.0, 6.0, 7.0, 8.0]);
    assert_eq!(
        matmul(&a, &b, 2).unwrap(),
        HostData::F32(vec![19.0, 22.0, 43.0, 50.0])
    );
    assert!(matches!(
        matmul(&a, &b, 3),
        Err(ReferenceError::Length { .. })
    ));
    assert!(matches!(
        matmul(&a, &HostData::I32(vec![0; 4]), 2),
        Err(ReferenceError::MixedTypes { .. })
    ));
}

#[test]
fn matmul_aat_is_a_times_a_transposed() {
    // 2×3 · 3×2
    let a = HostData::I32(vec![1, 2, 3, 4, 5, 6]);
    assert_eq!(
        matmul_aat(&a, 2).unwrap(),
        HostData::I32(vec![14, 32, 32, 77])
    );
    assert!(matmul_aat(&a, 4).is_err());
}

#[test]
fn transpose_rectangular() {
    let a = HostData::U32((0..6).collect());
    assert_eq!(
        transpose(&a, 2, 3).unwrap(),
        HostData::U32(vec![0, 3, 1, 4, 2, 5])
    );
    let (r, c) = (131, 67);
    let a = generate(ElemType::F32, r * c, &Init::Iota, 0).unwrap();
    let t = transpose(&a, r, c).unwrap();
    assert_eq!(transpose(&t, c, r).unwrap(), a);
    assert_eq!(t.get_f64(5 * r + 7), a.get_f64(7 * c + 5));
}

#[test]
fn gather_with_offset_and_stride() {
    let a = HostData::I32((0..10).collect());
    assert_eq!(gather(&a, 3, 1, 3).unwrap(), HostData::I32(vec![1, 4, 7]));
    assert_eq!(gather(&a, 3, 9, -2).unwrap(), HostData::I32(vec![9, 7, 5]));
    assert!(matches!(
        gather(&a, 4, 1, 3),
        Err(ReferenceError::OutOfBounds {
            element: 3,
            index: 10,
            ..
        })
    ));
    assert_eq!(gather(&a, 0, 100, 1).unwrap(), HostData::I32(vec![]));
}

#[test]
fn sums_and_dots() {
    assert_eq!(
        sum(&HostData::I32(vec![i32::MAX, 1])).unwrap(),
        HostData::I32(vec![i32::MIN])
    );
    assert_eq!(
        sum(&HostData::U32(vec![3, 4])).unwrap(),
        HostData::U32(vec![7])
    );
    let x = generate(ElemType::F32, 100_000, &Init::Constant(0.1), 0).unwrap();
    let HostData::F32(s) = sum(&x).unwrap() else {
        unreachable!()
    };
    assert!((s[0] - 10_000.0).abs() < 0.01, "{}", s[0]);
    let y = HostData::F64(vec![1.0, 2.0, 3.0]);
    assert_eq!(dot(&y, &y).unwrap(), HostData::F64(vec![14.0]));
    assert_eq!(
        dot(&HostData::I32(vec![2, 3]), &HostData::I32(vec![4, 5])).unwrap(),
        HostData::I32(vec![23])
    );
    assert!(dot(&y, &HostData::F64(vec![1.0])).is_err());
}

#[test]
fn row_reductions_ignore_padding() {
    // 2 rows of 3, pitch 4: the 4th column is padding (99).
    let x = HostData::F32(vec![1.0, 2.0, 3.0, 99.0, -4.0, 5.0, 6.0, 99.0]);
    let r = |op| row_reduce(&x, 2, 3, 4, op).unwrap();
    assert_eq!(r(RowOp::Sum), HostData::F32(vec![6.0, 7.0]));
    assert_eq!(r(RowOp::Mean), HostData::F32(vec![2.0, 7.0 / 3.0]));
    assert_eq!(r(RowOp::Max), HostData::F32(vec![3.0, 6.0]));
    assert_eq!(r(RowOp::Min), HostData::F32(vec![1.0, -4.0]));
    assert_eq!(r(RowOp::SumSq), HostData::F32(vec![14.0, 77.0]));
    let xi = HostData::I32(vec![1, 2, 4, 7, -3, -4]);
    assert_eq!(
        row_reduce(&xi, 2, 3, 3, RowOp::Mean).unwrap(),
        HostData::I32(vec![2, 0])
    );
    assert!(matches!(
        row_reduce(&x, 2, 3, 2, RowOp::Sum),
        Err(ReferenceError::BadDim { .. })
    ));
    assert!(matches!(
        row_reduce(&x, 3, 3, 4, RowOp::Sum),
        Err(ReferenceError::Length { .. })
    ));
    // The last row may omit its padding.
    assert!(row_reduce(&HostData::F32(vec![0.0; 7]), 2, 3, 4, RowOp::Sum).is_ok());
}

#[test]
fn sin_sqrt_floats_only() {
    let x = HostData::F64(vec![0.0, 4.0]);
    assert_eq!(
        sin_sqrt(&x).unwrap(),
        HostData::F64(vec![0.0, 2.0f64.sin()])
    );
    assert!(matches!(
        sin_sqrt(&HostData::I32(vec![1])),
        Err(ReferenceError::Type { .. })
    ));
}

#[test]
fn col_mean_averages_columns_and_skips_the_pitch_padding() {
    // 2 rows of 3 floats, pitch 4 (the 4th float of each row is padding and must be ignored).
    let x = HostData::F32(vec![1.0, 2.0, 3.0, 100.0, 3.0, 6.0, 9.0, 100.0]);
    let d = dims(&[("rows", 2), ("cols", 3), ("pitch", 4)]);
    assert_eq!(
        run("col_mean", &[&x], &d).unwrap(),
        HostData::F32(vec![2.0, 4.0, 6.0])
    );
    let ints = HostData::I32(vec![1, 2, 4, 5]);
    assert_eq!(col_mean(&ints, 2, 2, 2).unwrap(), HostData::I32(vec![2, 3]));
    assert!(col_mean(&x, 2, 3, 2).is_err(), "pitch < cols");
    assert!(col_mean(&x, 3, 3, 4).is_err(), "too short");
    assert!(col_mean(&x, 0, 3, 4).is_err(), "no rows");
}

#[test]
fn run_dispatches_by_name_with_dims() {
    let a = HostData::I32(vec![1, 2, 3, 4]);
    assert_eq!(
        run("matmul", &[&a, &a], &dims(&[("n", 2)])).unwrap(),
        HostData::I32(vec![7, 10, 15, 22])
    );
    assert_eq!(
        run("row_sum", &[&a], &dims(&[("rows", 2), ("cols", 2)])).unwrap(),
        HostData::I32(vec![3, 7])
    );
    assert_eq!(
        run("sum", &[&a], &BTreeMap::new()).unwrap(),
        HostData::I32(vec![10])
    );
    assert!(matches!(
        run("matmul", &[&a], &dims(&[("n", 2)])),
        Err(ReferenceError::InputCount { .. })
    ));
    assert!(matches!(
        run("matmul", &[&a, &a], &BTreeMap::new()),
        Err(ReferenceError::MissingDim { .. })
    ));
    assert!(matches!(
        run("transpose", &[&a], &dims(&[("rows", -1), ("cols", 2)])),
        Err(ReferenceError::BadDim { .. })
    ));
    let err = run("matmull", &[&a], &BTreeMap::new()).unwrap_err();
    assert!(err.to_string().contains("matmul_aat"));
    for name in NAMES {
        // Every listed name is dispatched (an error other than Unknown is fine here).
        let r = run(name, &[&a], &BTreeMap::new());
        assert!(!matches!(r, Err(ReferenceError::Unknown { .. })), "{name}");
    }
}

/// The worker compares a reduction's longer output buffer in place (no prefix copy).
#[test]
fn compare_prefix_ignores_the_outputs_tail_and_rejects_a_short_output() {
    let out = HostData::F32(vec![1.0, 2.0, f32::NAN, 7.0]);
    let want = HostData::F32(vec![1.0, 2.0]);
    let exact = |_: usize, _: f64| 0.0;
    let c = compare_prefix_within(&out, &want, &exact);
    assert!(c.ok, "{}", c.message);
    assert!(c.message.contains("all 2 elements"), "{}", c.message);
    let loose = |_: usize, _: f64| 1e-3;
    let bad = compare_prefix_within(&out, &HostData::F32(vec![1.0, 2.5]), &loose);
    assert_eq!((bad.ok, bad.first_bad_index), (false, Some(1)));
    let short = compare_prefix_within(&want, &out, &exact);
    assert!(!short.ok && short.message.contains("output has 2 elements"));
    assert!(
        !compare(&out, &want, 0.0).ok,
        "compare still wants equal lengths"
    );
}

#[test]
fn compare_integers_exactly() {
    let a = HostData::I32(vec![1, 2, 3]);
    let c = compare(&a, &a, 0.0);
    assert!(
        c.ok && c.max_error == 0.0 && c.first_bad_index.is_none(),
        "{c:?}"
    );
    let b = HostData::I32(vec![1, 5, 4]);
    let c = compare(&b, &a, 1.0);
    assert!(!c.ok);
    assert_eq!(c.first_bad_index, Some(1));
    assert_eq!(c.max_error, 3.0);
    assert!(c.message.contains("2 of 3"), "{}", c.message);
    let c = compare(&HostData::I32(vec![1]), &a, 0.0);
    assert!(!c.ok && c.message.contains("elements"));
}

#[test]
fn compare_floats_relative_and_nan_never_passes() {
    let want = HostData::F32(vec![100.0, 200.0]);
    let got = HostData::F32(vec![100.0, 200.01]);
    let c = compare(&got, &want, 1e-4);
    assert!(c.ok, "{}", c.message);
    assert!((c.max_error - 0.01 / 200.0).abs() < 1e-7);
    assert!(!compare(&got, &want, 1e-6).ok);
    // Small references: the scale is at least 1.
    let c = compare(&HostData::F64(vec![1e-6]), &HostData::F64(vec![0.0]), 1e-5);
    assert!(c.ok);
    let nan = HostData::F32(vec![f32::NAN, 200.0]);
    let c = compare(&nan, &want, 1e9);
    assert!(!c.ok && c.first_bad_index == Some(0) && c.max_error.is_infinite());
    let c = compare(&nan, &nan, 1e9);
    assert!(!c.ok, "NaN in both never passes");
    // Many chunks: first bad index is the global first.
    let mut v = vec![0.0f64; 3 * SUM_CHUNK];
    let want = HostData::F64(v.clone());
    v[2 * SUM_CHUNK + 5] = 1.0;
    v[SUM_CHUNK + 3] = 1.0;
    let c = compare(&HostData::F64(v), &want, 0.5);
    assert_eq!(c.first_bad_index, Some(SUM_CHUNK + 3));
}

#[test]
#[ignore = "timing check: run with --release --ignored"]
fn matmul_4096_f32_is_fast() {
    let n = 4096;
    let a = generate(ElemType::F32, n * n, &Init::Random { lo: 0.0, hi: 1.0 }, 1).unwrap();
    let b = generate(ElemType::F32, n * n, &Init::Random { lo: 0.0, hi: 1.0 }, 2).unwrap();
    let t = std::time::Instant::now();
    let c = matmul(&a, &b, n).unwrap();
    eprintln!(
        "4096² f32 matmul reference: {:?} on {} threads",
        t.elapsed(),
        rayon::current_num_threads()
    );
    assert_eq!(c.len(), n * n);
}

#[test]
fn matvec_sums_each_row_times_the_vector_and_skips_the_padding() {
    // Rows [1, 2 | 99] and [3, 4 | 99] (pitch 3) times [5, 6].
    let a = HostData::F32(vec![1.0, 2.0, 99.0, 3.0, 4.0, 99.0]);
    let x = HostData::F32(vec![5.0, 6.0]);
    let d = dims(&[("rows", 2), ("cols", 2), ("pitch", 3)]);
    assert_eq!(
        run("matvec", &[&a, &x], &d).unwrap(),
        HostData::F32(vec![17.0, 39.0])
    );
    let ai = HostData::I32(vec![i32::MAX, 1, 2, 3]);
    let xi = HostData::I32(vec![1, 1]);
    assert_eq!(
        run("matvec", &[&ai, &xi], &dims(&[("rows", 2), ("cols", 2)])).unwrap(),
        HostData::I32(vec![i32::MIN, 5]),
        "integers wrap like the kernel's"
    );
    let short = run(
        "matvec",
        &[&a, &x],
        &dims(&[("rows", 3), ("cols", 2), ("pitch", 3)]),
    );
    assert!(
        matches!(short, Err(ReferenceError::Length { input: 0, .. })),
        "{short:?}"
    );
    let one = HostData::F32(vec![1.0]);
    let short = run("matvec", &[&a, &one], &d);
    assert!(
        matches!(short, Err(ReferenceError::Length { input: 1, .. })),
        "{short:?}"
    );
    let mixed = run("matvec", &[&a, &xi], &d);
    assert!(
        matches!(mixed, Err(ReferenceError::MixedTypes { .. })),
        "{mixed:?}"
    );
}
