//! Where a worker's time went, by phase: summed per job and printed by `record`.

use serde::{Deserialize, Serialize};
use std::time::Instant;

/// Seconds of wall time per phase of a job's points, and what the samples themselves measured.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct PhaseTimes {
    /// NVRTC compiles (or compile-cache reads) and module loads.
    pub compile_s: f64,
    /// Generating host inputs.
    pub inputs_s: f64,
    /// Computing expected outputs (CPU references, or a reference variant's run).
    pub reference_s: f64,
    /// Device buffers, the verification run and the output's download.
    pub verification_run_s: f64,
    /// Comparing outputs with their references.
    pub compare_s: f64,
    /// The sampling loops of GPU points (flushes, blocking kernels, clock reads included).
    pub sampling_s: f64,
    /// What the GPU samples measured (`sampling_s` minus this is the overhead).
    pub measured_s: f64,
    /// Timed samples taken by GPU points.
    pub samples: u64,
    /// CPU baselines (their first run and samples).
    pub cpu_baselines_s: f64,
}

impl PhaseTimes {
    /// Adds `other`'s times to these.
    pub fn add(&mut self, other: &PhaseTimes) {
        self.compile_s += other.compile_s;
        self.inputs_s += other.inputs_s;
        self.reference_s += other.reference_s;
        self.verification_run_s += other.verification_run_s;
        self.compare_s += other.compare_s;
        self.sampling_s += other.sampling_s;
        self.measured_s += other.measured_s;
        self.samples += other.samples;
        self.cpu_baselines_s += other.cpu_baselines_s;
    }

    /// One line: `compile 1.2 s · inputs 0.4 s · …`, phases under 0.05 s left out.
    pub fn summary(&self) -> String {
        let mut parts = Vec::new();
        let mut part = |name: &str, s: f64| {
            if s >= 0.05 {
                parts.push(format!("{name} {s:.1} s"));
            }
        };
        part("compile", self.compile_s);
        part("inputs", self.inputs_s);
        part("references", self.reference_s);
        part("verification runs", self.verification_run_s);
        part("comparison", self.compare_s);
        part("CPU baselines", self.cpu_baselines_s);
        if self.samples > 0 {
            parts.push(format!(
                "sampling {:.1} s ({} samples measuring {:.1} s, {:.0} µs overhead each)",
                self.sampling_s,
                self.samples,
                self.measured_s,
                (self.sampling_s - self.measured_s).max(0.0) / self.samples as f64 * 1e6
            ));
        }
        if parts.is_empty() {
            "no phase over 0.05 s".to_string()
        } else {
            parts.join(" · ")
        }
    }
}

/// Which phase a stretch of time belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Compile,
    Inputs,
    Reference,
    VerificationRun,
    Compare,
    Sampling,
    CpuBaseline,
}

impl PhaseTimes {
    /// Runs `f`, adding its wall time to `phase`.
    pub fn time<T>(&mut self, phase: Phase, f: impl FnOnce() -> T) -> T {
        let started = Instant::now();
        let out = f();
        *self.slot(phase) += started.elapsed().as_secs_f64();
        out
    }

    /// Adds a GPU point's sampling loop: its wall time and what its samples measured.
    pub(crate) fn charge_samples(&mut self, timing: &crate::record::Timing, wall_s: f64) {
        self.sampling_s += wall_s;
        if timing.median_ms.is_finite() {
            self.measured_s += timing.median_ms
                * 1e-3
                * timing.samples as f64
                * timing.runs_per_sample.max(1) as f64;
        }
        self.samples += timing.samples as u64;
    }

    /// Adds `seconds` to `phase`.
    pub(crate) fn charge(&mut self, phase: Phase, seconds: f64) {
        *self.slot(phase) += seconds;
    }

    fn slot(&mut self, phase: Phase) -> &mut f64 {
        match phase {
            Phase::Compile => &mut self.compile_s,
            Phase::Inputs => &mut self.inputs_s,
            Phase::Reference => &mut self.reference_s,
            Phase::VerificationRun => &mut self.verification_run_s,
            Phase::Compare => &mut self.compare_s,
            Phase::Sampling => &mut self.sampling_s,
            Phase::CpuBaseline => &mut self.cpu_baselines_s,
        }
    }
}

#[cfg(test)]
#[path = "phases_tests.rs"]
mod tests;
