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

fn facts(group: usize, b: i64, exec: Exec, recorded: Point) -> PointFacts {
    PointFacts {
        experiment: "e".into(),
        group,
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
    let old = &ENGINE_16E018A;
    let now = &ENGINE_NOW;
    // 200 ms, 3 samples: 4 runs before, 3 now (the verification run is the first sample).
    let p = point(200.0, 3, StopReason::MinTime, TimingMode::Cold);
    assert!((runs_s(&p, old) - 0.8).abs() < 1e-3);
    assert!((runs_s(&p, now) - 0.6).abs() < 1e-3);
    // A 5 s run past the timeout is its only sample in both.
    let only = point(5000.0, 1, StopReason::Timeout, TimingMode::Cold);
    assert!((runs_s(&only, old) - 5.0).abs() < 1e-3 && (runs_s(&only, now) - 5.0).abs() < 1e-3);
    // Short kernels and host timings keep their warm-up run.
    let short = point(1.0, 50, StopReason::Converged, TimingMode::Cold);
    assert!(runs_s(&short, now) > 0.051);
    let host = point(200.0, 3, StopReason::Timeout, TimingMode::Host);
    assert!((runs_s(&host, now) - 0.8).abs() < 1e-3);
}

#[test]
fn caching_merging_and_overlap_each_save_what_they_should() {
    let gpu = point(10.0, 10, StopReason::Converged, TimingMode::Cold);
    let cpu = point(1000.0, 2, StopReason::Timeout, TimingMode::Host);
    let points = vec![
        // Two directives (groups) of one experiment at the same size, one buffer set.
        facts(0, 1, Exec::Gpu, gpu.clone()),
        facts(0, 2, Exec::Gpu, gpu.clone()),
        facts(1, 1, Exec::CpuSingle, cpu.clone()),
        facts(1, 1, Exec::CpuMulti, cpu),
    ];
    let old = estimate(&points, &ENGINE_16E018A);
    let now = estimate(&points, &ENGINE_NOW);
    // Before: one lane; the reference (2.9 s) computed in each of 2 jobs and again when B changed.
    assert_eq!(old.lanes.beside + old.lanes.alone, 0.0);
    let reference = 1e11 * ENGINE_16E018A.mac_int_s;
    assert!(old.total_s() > 3.0 * reference + 4.0 * 1.1, "{old:?}");
    // Now: the GPU lane computes it once; the baselines run beside (one core) and after it.
    assert!(now.lanes.gpu < old.lanes.gpu / 2.0, "{now:?}");
    assert!(
        now.lanes.beside > 16.0 * 1e11 * ENGINE_NOW.mac_int_s,
        "one core"
    );
    assert!(now.lanes.alone > 3.0);
    assert_eq!(
        now.total_s(),
        now.lanes.gpu.max(now.lanes.beside) + now.lanes.alone
    );
    assert_eq!(now.experiments.len(), 1);
    assert_eq!(now.experiments[0].1, 4);
}

#[test]
fn skipped_points_cost_nothing() {
    let mut p = point(10.0, 10, StopReason::Converged, TimingMode::Cold);
    p.outcome = Outcome::Skipped;
    let e = estimate(&[facts(0, 1, Exec::Gpu, p)], &ENGINE_NOW);
    assert!((e.total_s() - ENGINE_NOW.job_s).abs() < 1e-9);
}

/// The floor counts only the measured code's own runs: the long GPU point's first run is its first
/// sample (200 ms × 2 = 0.4 s), a short one's verification run comes on top (1 ms × 99 + 1 =
/// 0.1 s), and so does a CPU baseline's first run unless it lasted 0.1 s; no job, reference,
/// transfer or sample overhead. Single-threaded baselines run beside the GPU lane (3 s × 2 = 6 s),
/// multi-threaded ones alone after it (1 s × 3 = 3 s): 6 + 3 = 9 s.
#[test]
fn the_floor_is_the_measured_code_s_own_run_time_in_each_lane() {
    let pts: Vec<PointFacts> = [
        (
            1,
            Exec::Gpu,
            200.0,
            2,
            StopReason::MinTime,
            TimingMode::Cold,
        ),
        (
            2,
            Exec::Gpu,
            1.0,
            99,
            StopReason::Converged,
            TimingMode::Cold,
        ),
        (
            3,
            Exec::CpuSingle,
            3000.0,
            2,
            StopReason::MinTime,
            TimingMode::Host,
        ),
        (
            4,
            Exec::CpuMulti,
            1000.0,
            3,
            StopReason::MinTime,
            TimingMode::Host,
        ),
    ]
    .into_iter()
    .map(|(b, exec, ms, n, stop, mode)| facts(0, b, exec, point(ms, n, stop, mode)))
    .collect();
    let floor = estimate(&pts, &FLOOR);
    assert!((floor.lanes.gpu - 0.5).abs() < 1e-9, "{floor:?}");
    assert!((floor.lanes.beside - 6.0).abs() < 1e-9, "{floor:?}");
    assert!((floor.lanes.alone - 3.0).abs() < 1e-9, "{floor:?}");
    assert!((floor.total_s() - 9.0).abs() < 1e-9);
    // The engine's own profile still charges its overheads on the same points.
    assert!(estimate(&pts, &ENGINE_NOW).total_s() > floor.total_s() + 1.0);
}
