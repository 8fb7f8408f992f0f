//! Tests of `mapping`.

use super::super::csv::parse;
use super::*;

const FIXTURE: &str = include_str!("../../../../../tests/fixtures/ncu/raw.csv");

fn ran(index: usize, kernel: &str, launches: usize) -> Ran {
    Ran {
        index,
        kernels: vec![kernel.into(); launches],
        error: None,
    }
}

#[test]
fn launches_go_to_points_in_order_and_helper_kernels_are_ignored() {
    let rows = parse(FIXTURE).unwrap();
    let job = [
        ran(0, "MatrixMulKernel_2", 1),
        ran(1, "MatrixMulKernel_3", 2),
        ran(2, "MatrixMulKernel_5", 1),
    ];
    let mapped = map(&rows, &job).unwrap();
    assert_eq!(mapped.len(), 3);
    assert_eq!(mapped[0].values["smsp__inst_executed.sum"], 1_234_567.0);
    // Two launches: counts add, the per-SM maximum is the larger, the percentage is
    // weighted by duration (1 µs at 20 %, 3 µs at 40 %).
    let two = &mapped[1];
    assert_eq!(two.launches, 2);
    assert_eq!(two.values["smsp__inst_executed.sum"], 10_000.0);
    assert_eq!(two.values["sm__inst_executed.max"], 700.0);
    assert_eq!(two.values["dram__bytes_read.sum"], 300_000.0);
    assert_eq!(two.values["gpu__time_duration.sum"], 4_000.0);
    let pct = two.values["smsp__warp_issue_stalled_barrier_per_warp_active.pct"];
    assert!((pct - 35.0).abs() < 1e-9, "{pct}");
    assert!(!mapped[2].values.contains_key("dram__bytes_write.sum"));
}

/// A `[[variant.launch]]` sequence: one point's launches are of different kernels.
#[test]
fn a_point_of_several_kernels_gets_each_launch_in_order() {
    let rows = parse(FIXTURE).unwrap();
    let mut seq = ran(0, "MatrixMulKernel_2", 1);
    seq.kernels
        .extend(["MatrixMulKernel_3".into(), "MatrixMulKernel_3".into()]);
    let job = [seq, ran(1, "MatrixMulKernel_5", 1)];
    let mapped = map(&rows, &job).unwrap();
    assert_eq!((mapped[0].launches, mapped[1].launches), (3, 1));
    assert_eq!(mapped[0].values["gpu__time_duration.sum"], 17_500.0);
    let swapped = [
        ran(0, "MatrixMulKernel_3", 1),
        ran(1, "MatrixMulKernel_2", 1),
    ];
    assert!(matches!(
        map(&rows, &swapped),
        Err(MappingError::KernelMismatch {
            id: 0,
            index: 0,
            ..
        })
    ));
}

#[test]
fn a_launch_of_another_kernel_than_the_point_reported_is_an_error() {
    let rows = parse(FIXTURE).unwrap();
    let job = [
        ran(0, "MatrixMulKernel_2", 1),
        ran(1, "MatrixMulKernel_5", 1),
        ran(2, "MatrixMulKernel_3", 2),
    ];
    assert!(matches!(
        map(&rows, &job),
        Err(MappingError::KernelMismatch {
            id: 2,
            index: 1,
            ..
        })
    ));
}

#[test]
fn too_few_or_too_many_launches_are_errors() {
    let rows = parse(FIXTURE).unwrap();
    let short = [
        ran(0, "MatrixMulKernel_2", 1),
        ran(1, "MatrixMulKernel_3", 3),
    ];
    assert!(matches!(
        map(&rows, &short),
        Err(MappingError::Missing {
            index: 1,
            want: 3,
            got: 2,
            ..
        })
    ));
    let missing = [ran(0, "MatrixMulKernel_2", 2)];
    assert!(matches!(
        map(&rows[..1], &missing),
        Err(MappingError::Missing {
            want: 2,
            got: 1,
            ..
        })
    ));
    let extra = [ran(0, "MatrixMulKernel_3", 1)];
    assert_eq!(map(&rows, &extra), Err(MappingError::Extra(1, 3)));
}

#[test]
fn points_after_a_failed_one_are_left_out() {
    let rows = parse(FIXTURE).unwrap();
    let mut failed = ran(1, "MatrixMulKernel_3", 0);
    failed.error = Some("launch failed".into());
    let job = [ran(0, "MatrixMulKernel_2", 1), failed];
    let mapped = map(&rows, &job).unwrap();
    assert_eq!(mapped.len(), 1);
    assert_eq!(mapped[0].index, 0);
}
