//! Timing a launch sequence: a warm-up, then samples (L2 flushed before each in cold mode,
//! batched without flushing in hot mode) until the stopping rule says enough.

use super::job::MeasureRules;
use crate::gpu::{Gpu, GpuError};
use crate::record::Timing;
use crate::stats::{StopRule, summarize, throttled};
use std::time::Instant;

/// Times `run` (which queues the whole measured sequence) with CUDA events.
/// `warm`: the sequence has just run (the verification run), which then serves as the warm-up.
pub fn measure_gpu(
    gpu: &Gpu,
    rules: &MeasureRules,
    warm: bool,
    run: &mut dyn FnMut() -> Result<(), GpuError>,
) -> Result<Timing, GpuError> {
    let timer = gpu.timer()?;
    // Warm-up (module load, first-touch, clocks ramping).
    if !warm {
        run()?;
    }
    gpu.synchronize()?;
    let stop = stop_rule(rules);
    let started = Instant::now();
    let mut samples = Vec::new();
    // Hot mode: batch launches so launch overhead is amortised; sample = mean of the batch.
    let mut batch = 1usize;
    loop {
        if !rules.hot {
            gpu.flush_l2()?;
        }
        timer.start()?;
        for _ in 0..batch {
            run()?;
        }
        timer.stop()?;
        let ms = timer.elapsed_ms()? / batch as f64;
        if rules.hot && samples.is_empty() && ms < 0.05 {
            batch = ((0.5 / ms.max(1e-4)) as usize).clamp(1, 1000);
        }
        samples.push(ms);
        let elapsed = started.elapsed().as_secs_f64();
        if stop.check(&samples, elapsed).is_some() || ms * 1e-3 > rules.budget_s {
            break;
        }
    }
    Ok(timing(&samples, if rules.hot { "hot" } else { "cold" }))
}

/// Times a host function (CPU baselines) with the wall clock, within the budget.
pub fn measure_host(rules: &MeasureRules, run: &mut dyn FnMut()) -> Timing {
    let stop = stop_rule(rules);
    let started = Instant::now();
    let mut samples = Vec::new();
    loop {
        let t = Instant::now();
        run();
        let ms = t.elapsed().as_secs_f64() * 1e3;
        samples.push(ms);
        let elapsed = started.elapsed().as_secs_f64();
        // A CPU baseline repeats only while the budget allows another run.
        if stop.check(&samples, elapsed).is_some() || elapsed + ms * 1e-3 > rules.budget_s {
            break;
        }
    }
    timing(&samples, "host")
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

fn timing(samples: &[f64], mode: &str) -> Timing {
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
    Timing {
        median_ms: s.median,
        min_ms: s.min,
        max_ms: s.max,
        q1_ms: s.q1,
        q3_ms: s.q3,
        noise: s.noise,
        samples: s.samples,
        mode: mode.to_string(),
        throttled: throttled(samples),
    }
}
