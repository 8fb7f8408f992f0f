//! Timing: the sampling loop (over a [`Measurement`], tested with a fake clock) and its GPU
//! (CUDA events, blocking kernel, L2 flush) and host (wall clock) measurements.

use super::job::MeasureRules;
use crate::gpu::{Blocker, ClockReading, Gpu, GpuError, MAX_QUEUED_LAUNCHES, Timer};
use crate::record::{Clocks, MEASURE_METHOD, Timing, TimingMode};
use crate::stats::{StopReason, StopRule, summarize, throttled_by_clock};
use std::time::Instant;

/// A hot-mode sample lasts at least this long (ms): short kernels are run several times per sample.
pub(crate) const HOT_SAMPLE_MS: f64 = 0.5;
/// A cold verification run at least this long (ms) is its own warm-up and the first sample.
pub(crate) const FIRST_RUN_SAMPLE_MS: f64 = 100.0;
/// Clocks are read at most this often (s), and always before the first and after the last sample.
const CLOCK_EVERY_S: f64 = 0.01;

/// What the sampling loop drives.
pub(crate) trait Measurement {
    type Error;
    /// Times `runs` back-to-back runs (ms of the batch), or `None` when the sample is discarded.
    fn sample(&mut self, runs: usize) -> Result<Option<f64>, Self::Error>;
    /// Seconds of wall time since an arbitrary origin.
    fn now_s(&self) -> f64;
    /// The live clocks, if they can be read.
    fn clocks(&mut self) -> Option<ClockReading>;
    /// Prepares the next sample outside its timed region (resets buffers).
    fn prepare(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

/// How to sample.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct SamplePlan {
    pub rule: StopRule,
    /// Hot mode batches runs so a sample lasts at least [`HOT_SAMPLE_MS`].
    pub mode: TimingMode,
    /// The most runs one sample may batch.
    pub max_runs: usize,
    /// Stop after a sample whose single run exceeds this (seconds).
    pub budget_s: f64,
    /// The verification run counts as the first sample when it lasts [`FIRST_RUN_SAMPLE_MS`].
    pub first_is_sample: bool,
}

/// What the loop measured: per-run sample times (ms), why it stopped, runs per sample, clocks.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Sampled {
    pub samples: Vec<f64>,
    pub stop: StopReason,
    pub runs: usize,
    pub clocks: Option<Clocks>,
}

/// The sampling loop. `first_ms` (the verification run) is the only sample when it reaches the
/// timeout, the first when it lasts [`FIRST_RUN_SAMPLE_MS`] and the plan allows, else the warm-up.
pub(crate) fn sample_loop<M: Measurement>(
    m: &mut M,
    plan: &SamplePlan,
    first_ms: Option<f64>,
) -> Result<Sampled, M::Error> {
    let mut clocks = ClockLog::default();
    if let Some(ms) = first_ms
        && ms * 1e-3 >= plan.rule.timeout_s
    {
        clocks.read(m);
        return Ok(Sampled {
            samples: vec![ms],
            stop: StopReason::Timeout,
            runs: 1,
            clocks: clocks.finish(),
        });
    }
    let mut started = m.now_s();
    let mut last_read = started;
    clocks.read(m);
    let mut runs = 1usize;
    let mut samples: Vec<f64> = Vec::new();
    if let Some(ms) = first_ms
        && plan.first_is_sample
        && plan.mode != TimingMode::Hot
        && ms >= FIRST_RUN_SAMPLE_MS
    {
        samples.push(ms);
        started -= ms * 1e-3;
        if let Some(stop) = plan.rule.check(&samples, m.now_s() - started) {
            return Ok(Sampled {
                samples,
                stop,
                runs,
                clocks: clocks.finish(),
            });
        }
    }
    loop {
        m.prepare()?;
        let Some(batch_ms) = m.sample(runs)? else {
            continue;
        };
        let ms = batch_ms / runs as f64;
        if plan.mode == TimingMode::Hot && samples.is_empty() && runs == 1 && ms < HOT_SAMPLE_MS {
            // Calibration: batch enough runs for a sample of HOT_SAMPLE_MS; this single run is discarded.
            runs = ((HOT_SAMPLE_MS / ms.max(1e-4)).ceil() as usize).clamp(1, plan.max_runs.max(1));
            if runs > 1 {
                continue;
            }
        }
        samples.push(ms);
        let now = m.now_s();
        if now - last_read >= CLOCK_EVERY_S {
            clocks.read(m);
            last_read = now;
        }
        let stop = plan.rule.check(&samples, now - started);
        let stop = match stop {
            None if ms * 1e-3 > plan.budget_s => Some(StopReason::Timeout),
            s => s,
        };
        if let Some(stop) = stop {
            clocks.read(m);
            return Ok(Sampled {
                samples,
                stop,
                runs,
                clocks: clocks.finish(),
            });
        }
    }
}

/// Lowest and highest clocks seen.
#[derive(Default)]
struct ClockLog {
    sm: Option<(u32, u32)>,
    memory: Option<(u32, u32)>,
    reads: usize,
    slowdown: bool,
}

impl ClockLog {
    fn read<M: Measurement>(&mut self, m: &mut M) {
        let Some(c) = m.clocks() else { return };
        let widen =
            |r: Option<(u32, u32)>, x: u32| Some(r.map_or((x, x), |(a, b)| (a.min(x), b.max(x))));
        self.sm = widen(self.sm, c.sm_mhz);
        if let Some(mem) = c.memory_mhz {
            self.memory = widen(self.memory, mem);
        }
        self.reads += 1;
        self.slowdown |= c.slowdown;
    }

    fn finish(self) -> Option<Clocks> {
        Some(Clocks {
            sm_mhz: self.sm?,
            memory_mhz: self.memory,
            reads: self.reads,
            slowdown: self.slowdown,
        })
    }
}

/// The GPU measurement: L2 flush (cold), blocking kernel (when the launches fit its queue), events.
struct GpuMeasurement<'a, 'p> {
    gpu: &'a Gpu,
    timer: Timer,
    blocker: Option<Blocker>,
    cold: bool,
    launches_per_run: usize,
    started: Instant,
    /// Every kept sample was taken behind the blocking kernel.
    all_blocked: bool,
    blocked_samples: usize,
    run: &'a mut dyn FnMut() -> Result<(), GpuError>,
    prepare: Option<&'p mut dyn FnMut() -> Result<(), GpuError>>,
}

impl Measurement for GpuMeasurement<'_, '_> {
    type Error = GpuError;

    fn sample(&mut self, runs: usize) -> Result<Option<f64>, GpuError> {
        if self.cold {
            self.gpu.flush_l2()?;
        }
        let blocker = self
            .blocker
            .as_ref()
            .filter(|_| runs * self.launches_per_run <= MAX_QUEUED_LAUNCHES);
        if let Some(b) = blocker {
            b.block(self.gpu)?;
        }
        let queued = (|| {
            self.timer.start()?;
            for _ in 0..runs {
                (self.run)()?;
            }
            self.timer.stop()
        })();
        if let Some(b) = blocker {
            // Always release, even when queuing failed, so the stream is never left blocked.
            b.release();
        }
        queued?;
        let ms = self.timer.elapsed_ms()?;
        match blocker {
            Some(b) if b.timed_out() => {
                // Queuing blocked on the host: this sample includes it. Go on without the blocker.
                self.blocker = None;
                self.all_blocked = false;
                Ok(None)
            }
            Some(_) => {
                self.blocked_samples += 1;
                Ok(Some(ms))
            }
            None => {
                self.all_blocked = false;
                Ok(Some(ms))
            }
        }
    }

    fn now_s(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }

    fn clocks(&mut self) -> Option<ClockReading> {
        self.gpu.clocks()
    }

    fn prepare(&mut self) -> Result<(), GpuError> {
        // Queued before the L2 flush and the start event, so the reset is not part of the sample.
        self.prepare.as_mut().map_or(Ok(()), |p| p())
    }
}

/// Times `run` (`launches_per_run` launches) with CUDA events after the verification run
/// (`first_ms`, see [`sample_loop`]); with `prepare`, each sample is one run after it, untimed.
pub(crate) fn measure_gpu(
    gpu: &Gpu,
    rules: &MeasureRules,
    first_ms: Option<f64>,
    launches_per_run: usize,
    run: &mut dyn FnMut() -> Result<(), GpuError>,
    prepare: Option<&mut dyn FnMut() -> Result<(), GpuError>>,
) -> Result<Timing, GpuError> {
    let launches_per_run = launches_per_run.max(1);
    gpu.synchronize()?;
    let mut m = GpuMeasurement {
        gpu,
        timer: gpu.timer()?,
        // Without the blocking kernel (it failed to load) samples are still taken, marked unblocked.
        blocker: gpu.blocker().ok(),
        cold: rules.mode == TimingMode::Cold,
        launches_per_run,
        started: Instant::now(),
        all_blocked: true,
        blocked_samples: 0,
        run,
        prepare,
    };
    let plan = SamplePlan {
        rule: stop_rule(rules),
        mode: rules.mode,
        max_runs: if m.prepare.is_some() {
            1
        } else {
            (MAX_QUEUED_LAUNCHES / launches_per_run).max(1)
        },
        budget_s: rules.budget_s,
        first_is_sample: rules.mode == TimingMode::Cold,
    };
    let sampled = sample_loop(&mut m, &plan, first_ms)?;
    let blocked = m.all_blocked && m.blocked_samples > 0;
    let mut t = timing(&sampled, rules, rules.mode, gpu.info().clock_mhz);
    t.blocked = blocked;
    Ok(t)
}

/// The host measurement: the wall clock around `runs` calls.
struct HostMeasurement<'a> {
    started: Instant,
    run: &'a mut dyn FnMut(),
}

impl Measurement for HostMeasurement<'_> {
    type Error = std::convert::Infallible;

    fn sample(&mut self, runs: usize) -> Result<Option<f64>, Self::Error> {
        let t = Instant::now();
        for _ in 0..runs {
            (self.run)();
        }
        Ok(Some(t.elapsed().as_secs_f64() * 1e3))
    }

    fn now_s(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }

    fn clocks(&mut self) -> Option<ClockReading> {
        None
    }
}

/// Times a host function (CPU baselines) with the wall clock; `first_ms` as in [`sample_loop`], a
/// first sample only when `in_place` (it wrote into an output faulted in before it).
pub(crate) fn measure_host(
    rules: &MeasureRules,
    first_ms: Option<f64>,
    in_place: bool,
    run: &mut dyn FnMut(),
) -> Timing {
    let plan = SamplePlan {
        rule: stop_rule(rules),
        mode: TimingMode::Host,
        max_runs: 1,
        budget_s: rules.budget_s,
        first_is_sample: in_place,
    };
    let mut m = HostMeasurement {
        started: Instant::now(),
        run,
    };
    let sampled = match sample_loop(&mut m, &plan, first_ms) {
        Ok(s) => s,
        Err(never) => match never {},
    };
    let mut t = timing(&sampled, rules, TimingMode::Host, 0);
    t.cpu = super::cpu_baseline::cpu_model();
    t
}

fn stop_rule(rules: &MeasureRules) -> StopRule {
    StopRule {
        min_samples: rules.min_samples,
        max_samples: rules.max_samples,
        noise_target: rules.noise,
        min_time_s: rules.min_time_s,
        timeout_s: rules.timeout_s,
    }
}

/// The recorded timing of `sampled`; `max_sm_mhz` (0: unknown) decides throttling from the clocks.
fn timing(sampled: &Sampled, rules: &MeasureRules, mode: TimingMode, max_sm_mhz: u32) -> Timing {
    let samples = &sampled.samples;
    let s = summarize(samples).unwrap_or(crate::stats::Summary {
        median: f64::NAN,
        min: f64::NAN,
        max: f64::NAN,
        q1: f64::NAN,
        q3: f64::NAN,
        mean: f64::NAN,
        noise: f64::NAN,
        samples: samples.len(),
    });
    let throttled = sampled
        .clocks
        .as_ref()
        .is_some_and(|c| c.slowdown || throttled_by_clock(c.sm_mhz.0, max_sm_mhz));
    Timing {
        median_ms: s.median,
        min_ms: s.min,
        max_ms: s.max,
        q1_ms: s.q1,
        q3_ms: s.q3,
        noise: s.noise,
        samples: s.samples,
        mode,
        throttled,
        stop: Some(sampled.stop),
        noise_target: Some(rules.noise),
        min_samples: Some(rules.min_samples),
        runs_per_sample: sampled.runs,
        blocked: false,
        clocks: sampled.clocks.clone(),
        method: (mode != TimingMode::Host).then_some(MEASURE_METHOD),
        cpu: None,
        empty_kernel_ms: None,
    }
}

#[cfg(test)]
#[path = "measure_tests.rs"]
mod tests;
