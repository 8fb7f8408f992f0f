//! The sampling loop driven by a fake measurement: scripted sample times, a fake wall clock, fake clocks.

use super::*;

/// Each call to `sample` returns the next scripted per-run time (ms) times `runs`, and advances the fake
/// wall clock by the batch time plus `overhead_s`.
struct Fake {
    times: Vec<f64>,
    next: usize,
    now: f64,
    overhead_s: f64,
    runs_seen: Vec<usize>,
    /// Indices of calls whose sample is discarded (blocking kernel timed out).
    discard: Vec<usize>,
    clock: Option<ClockReading>,
    clock_reads: usize,
}

impl Fake {
    fn new(times: Vec<f64>) -> Fake {
        Fake {
            times,
            next: 0,
            now: 0.0,
            overhead_s: 0.0,
            runs_seen: Vec::new(),
            discard: Vec::new(),
            clock: None,
            clock_reads: 0,
        }
    }
}

impl Measurement for Fake {
    type Error = String;

    fn sample(&mut self, runs: usize) -> Result<Option<f64>, String> {
        let call = self.runs_seen.len();
        self.runs_seen.push(runs);
        let t = *self
            .times
            .get(self.next.min(self.times.len() - 1))
            .ok_or("no times")?;
        self.next += 1;
        self.now += t * runs as f64 * 1e-3 + self.overhead_s;
        if self.discard.contains(&call) {
            return Ok(None);
        }
        Ok(Some(t * runs as f64))
    }

    fn now_s(&self) -> f64 {
        self.now
    }

    fn clocks(&mut self) -> Option<ClockReading> {
        self.clock_reads += 1;
        self.clock
    }
}

fn plan() -> SamplePlan {
    SamplePlan {
        rule: StopRule::default(),
        mode: TimingMode::Cold,
        max_runs: 1,
        budget_s: 20.0,
        first_is_sample: false,
    }
}

/// Issue 11: a 200 ms kernel ran 4 times (the verification run, then 3 samples); its
/// verification run is now the first sample, so it runs 3 times and stops by the same rule.
#[test]
fn a_long_verification_run_is_the_first_sample() {
    let p = SamplePlan {
        first_is_sample: true,
        ..plan()
    };
    let mut m = Fake::new(vec![200.2, 199.8]);
    let s = sample_loop(&mut m, &p, Some(200.0)).unwrap();
    assert_eq!(s.samples, vec![200.0, 200.2, 199.8]);
    assert_eq!(s.stop, StopReason::MinTime);
    assert_eq!(
        m.runs_seen,
        vec![1, 1],
        "two runs after the verification run"
    );
    // A 1.5 s kernel under the 2 s timeout: the verification run and one sample, where it used to
    // take two samples after it; two quiet samples of 3 s complete it by the min-time rule.
    let mut m = Fake::new(vec![1500.0]);
    let s = sample_loop(&mut m, &p, Some(1500.0)).unwrap();
    assert_eq!((s.samples.len(), s.stop), (2, StopReason::MinTime));
    assert_eq!(m.runs_seen, vec![1]);
    // A short verification run is still only the warm-up: the noise target and the sample counts
    // of short kernels are unchanged.
    let mut m = Fake::new(vec![10.0]);
    let s = sample_loop(&mut m, &p, Some(10.0)).unwrap();
    assert_eq!((s.samples.len(), s.stop), (10, StopReason::Converged));
    assert_eq!(m.runs_seen.len(), 10);
    // Hot mode never counts the cold verification run.
    let hot = SamplePlan {
        mode: TimingMode::Hot,
        ..p
    };
    let mut m = Fake::new(vec![200.0]);
    let s = sample_loop(&mut m, &hot, Some(200.0)).unwrap();
    assert_eq!(m.runs_seen.len(), s.samples.len());
}

#[test]
fn long_kernel_stops_by_the_min_time_rule_after_three_samples() {
    let mut m = Fake::new(vec![200.0, 200.2, 199.8]);
    let s = sample_loop(&mut m, &plan(), Some(200.0)).unwrap();
    assert_eq!(s.samples.len(), 3);
    assert_eq!(s.stop, StopReason::MinTime);
    assert_eq!(
        m.runs_seen,
        vec![1, 1, 1],
        "the verification run was the warm-up, not a sample"
    );
}

#[test]
fn a_first_run_past_the_timeout_is_the_only_sample() {
    let mut m = Fake::new(vec![5000.0]);
    let s = sample_loop(&mut m, &plan(), Some(5000.0)).unwrap();
    assert_eq!(s.samples, vec![5000.0]);
    assert_eq!(s.stop, StopReason::Timeout);
    assert!(m.runs_seen.is_empty(), "no second 5 s run");
}

#[test]
fn short_quiet_kernel_converges_at_min_time() {
    // 1 ms samples: 10 samples give only 0.01 s; converged at 50 samples (0.05 s).
    let mut m = Fake::new(vec![1.0]);
    let s = sample_loop(&mut m, &plan(), None).unwrap();
    assert_eq!((s.samples.len(), s.stop), (50, StopReason::Converged));
}

#[test]
fn noisy_short_kernel_stops_when_its_noise_settles_not_at_the_cap() {
    let times: Vec<f64> = (0..2000)
        .map(|i| if i % 2 == 0 { 0.009 } else { 0.011 })
        .collect();
    let mut m = Fake::new(times);
    let s = sample_loop(&mut m, &plan(), None).unwrap();
    assert_eq!(s.stop, StopReason::NoiseStable);
    assert!(s.samples.len() < 1000, "{}", s.samples.len());
}

#[test]
fn hot_mode_batches_short_kernels_and_discards_the_calibration_run() {
    let mut m = Fake::new(vec![0.004]);
    let p = SamplePlan {
        mode: TimingMode::Hot,
        max_runs: 256,
        ..plan()
    };
    let s = sample_loop(&mut m, &p, None).unwrap();
    // 0.5 ms / 4 µs = 125 runs per sample; the first, single run is not a sample.
    assert_eq!(s.runs, 125);
    assert_eq!(m.runs_seen[0], 1);
    assert!(m.runs_seen[1..].iter().all(|&r| r == 125));
    assert_eq!(s.samples.len(), m.runs_seen.len() - 1);
    assert!(s.samples.iter().all(|&x| (x - 0.004).abs() < 1e-12));
    // The batch is capped by what may queue behind the blocking kernel.
    let mut m = Fake::new(vec![0.001]);
    let p = SamplePlan {
        mode: TimingMode::Hot,
        max_runs: 100,
        ..plan()
    };
    assert_eq!(sample_loop(&mut m, &p, None).unwrap().runs, 100);
}

#[test]
fn cold_mode_never_batches() {
    let mut m = Fake::new(vec![0.004]);
    let p = SamplePlan {
        max_runs: 256,
        ..plan()
    };
    let s = sample_loop(&mut m, &p, None).unwrap();
    assert_eq!(s.runs, 1);
    assert!(m.runs_seen.iter().all(|&r| r == 1));
}

#[test]
fn discarded_samples_are_not_counted() {
    let mut m = Fake::new(vec![10.0]);
    m.discard = vec![0, 3];
    let s = sample_loop(&mut m, &plan(), None).unwrap();
    assert_eq!(s.samples.len(), 10);
    assert_eq!(m.runs_seen.len(), 12);
}

#[test]
fn timeout_stops_slow_noisy_sampling() {
    let times: Vec<f64> = (0..100).map(|i| 100.0 + (i % 3) as f64 * 20.0).collect();
    let mut m = Fake::new(times);
    let s = sample_loop(&mut m, &plan(), None).unwrap();
    assert_eq!(s.stop, StopReason::Timeout);
    assert_eq!(s.samples.len(), 17, "2 s of 100-140 ms samples");
}

#[test]
fn clocks_are_read_before_between_and_after_and_decide_throttling() {
    let mut m = Fake::new(vec![10.0]);
    m.clock = Some(ClockReading {
        sm_mhz: 1400,
        memory_mhz: Some(2619),
        slowdown: false,
    });
    m.overhead_s = 0.001;
    let s = sample_loop(&mut m, &plan(), None).unwrap();
    let c = s.clocks.clone().unwrap();
    assert_eq!(c.sm_mhz, (1400, 1400));
    assert_eq!(c.memory_mhz, Some((2619, 2619)));
    // Before, after each 11 ms sample (over the 10 ms read interval), and after the last.
    assert_eq!(s.samples.len(), 10);
    assert_eq!((c.reads, m.clock_reads), (12, 12));
    let rules = MeasureRules::default();
    assert!(
        timing(&s, &rules, TimingMode::Cold, 1980).throttled,
        "1400 < 75 % of 1980"
    );
    assert!(!timing(&s, &rules, TimingMode::Cold, 1600).throttled);
    // No NVML: no clocks, not throttled.
    let mut m = Fake::new(vec![10.0]);
    let s = sample_loop(&mut m, &plan(), None).unwrap();
    assert_eq!(s.clocks, None);
    assert!(!timing(&s, &rules, TimingMode::Cold, 1980).throttled);
}

#[test]
fn timing_records_the_rule_and_the_stop() {
    let mut m = Fake::new(vec![200.0]);
    let s = sample_loop(&mut m, &plan(), None).unwrap();
    let t = timing(&s, &MeasureRules::default(), TimingMode::Cold, 0);
    assert_eq!(t.stop, Some(StopReason::MinTime));
    assert_eq!(t.noise_target, Some(0.005));
    assert_eq!(t.min_samples, Some(10));
    assert_eq!(t.samples, 3);
    assert_eq!(t.runs_per_sample, 1);
}

/// A measurement that logs prepares and samples in order.
struct Prepared {
    inner: Fake,
    log: Vec<&'static str>,
}

impl Measurement for Prepared {
    type Error = String;
    fn sample(&mut self, runs: usize) -> Result<Option<f64>, String> {
        self.log.push("sample");
        self.inner.sample(runs)
    }
    fn now_s(&self) -> f64 {
        self.inner.now_s()
    }
    fn clocks(&mut self) -> Option<ClockReading> {
        self.inner.clocks()
    }
    fn prepare(&mut self) -> Result<(), String> {
        self.log.push("prepare");
        Ok(())
    }
}

#[test]
fn every_sample_is_prepared_and_runs_once_when_buffers_reset() {
    // A short kernel in hot mode would be batched; with resets (max_runs = 1, as measure_gpu sets it)
    // each sample is one run that starts from prepared buffers.
    let mut m = Prepared {
        inner: Fake::new(vec![0.004]),
        log: Vec::new(),
    };
    let p = SamplePlan {
        mode: TimingMode::Hot,
        max_runs: 1,
        ..plan()
    };
    let s = sample_loop(&mut m, &p, Some(0.004)).unwrap();
    assert_eq!(s.runs, 1);
    assert!(m.inner.runs_seen.iter().all(|&r| r == 1));
    assert_eq!(m.log.len(), 2 * m.inner.runs_seen.len());
    for pair in m.log.chunks(2) {
        assert_eq!(pair, ["prepare", "sample"]);
    }
}
