//! The cost model on synthetic points: what each engine change saves.

use super::*;
use crate::record::{Timing, TimingMode};
use crate::stats::StopReason;

fn point(median_ms: f64, samples: usize, stop: StopReason, mode: TimingMode) -> Point {
    let mut p = Point::new("v", &Default::default(), "k", None);
    p.timing = Some(Timing {
        median_ms,
        samples,
        stop: Some(stop),
        mode,
        ..Timing::default()
    });
    p
}

fn facts(b: i64, exec: Exec, recorded: Point) -> PointFacts {
    PointFacts {
        experiment: "e".into(),
        params: [
            ("N".to_string(), ParamValue::Int(1)),
            ("B".to_string(), ParamValue::Int(b)),
        ]
        .into(),
        exec,
        set: vec![1 << 30],
        out_bytes: 1 << 29,
        reference: RefWork::Macs {
            macs: 1e11,
            int: true,
        },
        recorded: Some(recorded),
    }
}

#[test]
fn runs_count_the_warm_up_unless_it_is_a_sample() {
    // 200 ms, 3 samples: 3 runs (the verification run is the first sample).
    let p = point(200.0, 3, StopReason::MinTime, TimingMode::Cold);
    assert!((runs_s(&p) - 0.6).abs() < 1e-3);
    // A 5 s run past the timeout is its only sample.
    let only = point(5000.0, 1, StopReason::Timeout, TimingMode::Cold);
    assert!((runs_s(&only) - 5.0).abs() < 1e-3);
    // Short kernels and host timings keep their warm-up run.
    let short = point(1.0, 50, StopReason::Converged, TimingMode::Cold);
    assert!(runs_s(&short) > 0.051);
    let host = point(200.0, 3, StopReason::Timeout, TimingMode::Host);
    assert!((runs_s(&host) - 0.8).abs() < 1e-3);
}

#[test]
fn a_buffer_set_is_made_once_per_lane_and_baselines_run_beside_or_after() {
    let gpu = point(10.0, 10, StopReason::Converged, TimingMode::Cold);
    let cpu = point(1000.0, 2, StopReason::Timeout, TimingMode::Host);
    let points = vec![
        // Two sizes of one buffer set on the GPU, and one baseline of each kind.
        facts(1, Exec::Gpu, gpu.clone()),
        facts(2, Exec::Gpu, gpu.clone()),
        facts(1, Exec::CpuSingle, cpu.clone()),
        facts(1, Exec::CpuMulti, cpu),
    ];
    let e = estimate(&points);
    // The GPU lane makes the inputs and the reference (1e11 multiply-adds) once.
    let reference = 1e11 * MAC_INT_S;
    let set = (1u64 << 30) as f64 * SET_S_PER_BYTE + reference;
    let gpu_point = (1u64 << 29) as f64 * OUT_S_PER_BYTE + runs_s(&gpu);
    assert!(
        (e.lanes.gpu - (JOB_S + set + 2.0 * gpu_point)).abs() < 1e-9,
        "{e:?}"
    );
    // The single-threaded baseline's reference takes HOST_CORES times longer (one core).
    assert!(e.lanes.beside > HOST_CORES * reference, "one core");
    assert!(e.lanes.alone > 3.0);
    assert_eq!(e.total_s(), e.lanes.gpu.max(e.lanes.beside) + e.lanes.alone);
    assert_eq!(e.experiments.len(), 1);
    assert_eq!(e.experiments[0].1, 4);
}

#[test]
fn skipped_points_cost_nothing() {
    let mut p = point(10.0, 10, StopReason::Converged, TimingMode::Cold);
    p.outcome = Outcome::Skipped;
    let e = estimate(&[facts(1, Exec::Gpu, p)]);
    assert!((e.total_s() - JOB_S).abs() < 1e-9);
}
