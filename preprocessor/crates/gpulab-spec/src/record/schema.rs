//! The serde types of a recording file (schema version 1, documented in DESIGN.md).

use crate::metrics::{Attribute, Source, builtin};
use crate::value::{ParamValue, Quantity};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Bumped on any incompatible change to the file format.
pub const SCHEMA_VERSION: u32 = 1;

/// One file: every recorded point of one experiment on one device.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recording {
    pub schema: u32,
    pub experiment: String,
    pub device: DeviceRecord,
    pub points: Vec<Point>,
}

/// The device a recording was made on, with the numbers the metrics are relative to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeviceRecord {
    pub slug: String,
    pub name: String,
    pub compute_capability: (u32, u32),
    pub sm_count: u32,
    pub clock_mhz: u32,
    #[serde(default)]
    pub memory_clock_mhz: Option<u32>,
    #[serde(default)]
    pub bus_width_bits: Option<u32>,
    pub l2_bytes: u64,
    pub memory_bytes: u64,
    /// The NVIDIA driver's own version ("580.159.04"), when it could be read.
    #[serde(default)]
    pub driver_version: Option<String>,
    /// The CUDA version the driver supports ("13.0").
    pub cuda_version: String,
    pub nvrtc_version: String,
    #[serde(default)]
    pub theoretical_bandwidth_gbps: Option<f64>,
    pub fp32_peak_gflops: f64,
}

/// One measured (or failed) point: a variant at one combination of parameter values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Point {
    pub variant: String,
    pub params: BTreeMap<String, ParamValue>,
    /// Hash of everything that determines the result (see `plan::point_key`).
    pub key: String,
    pub recorded_at: chrono::DateTime<chrono::Utc>,
    #[serde(default)]
    pub commit: Option<String>,
    pub tool_version: String,
    pub outcome: Outcome,
    #[serde(default)]
    pub failure: Option<Failure>,
    #[serde(default)]
    pub timing: Option<Timing>,
    /// Derived metrics, filled when a recording is loaded for rendering
    /// (`results::derive_metrics`); not written by the recorder (files of older versions hold
    /// values, which loading replaces).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub metrics: BTreeMap<String, Quantity>,
    #[serde(default)]
    pub attributes: Option<Attributes>,
    #[serde(default)]
    pub verification: Option<Verification>,
    /// What made this point besides the commit and tool version (absent in older recordings).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provenance: Option<PointProvenance>,
    /// The `record` invocation (or live build) that measured this point: relative metrics compare points
    /// of one run, and the page says when they do not (absent in older recordings).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
    /// Hardware counters from the profiled pass (`record --counters`), absent until one ran. Never
    /// part of the key, never a timing: the profiler replays the kernel under its own conditions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counters: Option<Counters>,
}

/// Hardware counters of one point, from one profiled run of its launch sequence under Nsight
/// Compute, with their provenance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Counters {
    /// The point's key when profiled: counters whose key is not the point's are of other code and
    /// are ignored (`Counters::current_for`).
    pub key: String,
    pub recorded_at: chrono::DateTime<chrono::Utc>,
    #[serde(default)]
    pub commit: Option<String>,
    /// `ncu --version`'s last line ("Version 2025.3.0.0 (build …)").
    pub profiler: String,
    /// The profiler's replay and cache/clock settings ("--cache-control all --clock-control none").
    pub settings: String,
    /// Kernel launches profiled and combined (a `loop` or `passes` has several).
    pub launches: usize,
    /// Values by ncu metric name (`smsp__inst_executed.sum`, …), combined over the launches
    /// (`metrics::counters::combine_of`).
    pub values: BTreeMap<String, f64>,
}

impl Counters {
    /// Whether these counters were measured on the code the point's key names now.
    pub fn current_for(&self, point_key: &str) -> bool {
        self.key == point_key
    }
}

/// The software and hardware a point was measured with: shown, never compared (see DESIGN.md,
/// "Keys and provenance"). The host CPU of a CPU baseline is `timing.cpu`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct PointProvenance {
    /// The NVIDIA driver's version ("580.159.04").
    #[serde(default)]
    pub driver_version: Option<String>,
    /// The CUDA version the driver supports ("13.0").
    pub cuda_version: String,
    /// The NVRTC that compiled the kernel ("13.0").
    pub nvrtc_version: String,
    /// The GPU's UUID (`GPU-…`, as `nvidia-smi -L` prints it).
    #[serde(default)]
    pub gpu_uuid: Option<String>,
    /// SHA-256 (first 16 bytes, hex) of the compiled image the point ran (kernel variants).
    #[serde(default)]
    pub code_hash: Option<String>,
    /// What NVRTC compiled for: `sm_90` (cubin) or `compute_90` (PTX, JIT-compiled by the driver).
    #[serde(default)]
    pub code_target: Option<String>,
}

/// Whether a point produced a trustworthy timing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Verified and timed.
    Ok,
    /// Compile, launch or verification failed: never shown as a timing.
    Failed,
    /// Not run (time budget); shown as skipped with the reason.
    Skipped,
}

/// Why a point failed or was skipped.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    pub kind: FailureKind,
    pub message: String,
}

/// The stage at which a point failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FailureKind {
    Compile,
    Launch,
    Verification,
    Timeout,
    Budget,
    Crash,
    /// The GPU cannot run the variant (too old an architecture, too little shared or device
    /// memory): shown as what it needs, and its claims as not applicable.
    NotApplicable,
}

impl FailureKind {
    pub fn label(self) -> &'static str {
        match self {
            FailureKind::Compile => "compile error",
            FailureKind::Launch => "launch failed",
            FailureKind::Verification => "wrong result",
            FailureKind::Timeout => "timed out",
            FailureKind::Budget => "over time budget",
            FailureKind::Crash => "worker crashed",
            FailureKind::NotApplicable => "not applicable",
        }
    }
}

/// How a point's samples are taken: the directive's `measure.mode` for GPU points, `Host` for CPU
/// baselines. Stored as the lowercase name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TimingMode {
    /// The L2 cache flushed before each sample (the default).
    #[default]
    Cold,
    /// No flush; short runs batched so a sample lasts long enough to time.
    Hot,
    /// A CPU baseline, timed with the host's wall clock.
    Host,
}

impl TimingMode {
    /// The name in recordings and directives.
    pub fn as_str(self) -> &'static str {
        match self {
            TimingMode::Cold => "cold",
            TimingMode::Hot => "hot",
            TimingMode::Host => "host",
        }
    }
}

/// How GPU points are measured, recorded on every GPU timing: 1 — the cold-mode L2 flush (a memset)
/// left its dirty lines in L2 for the measured kernel to write back (up to ~17 µs on an H100);
/// 2 — the flush leaves a clean L2 (`gpu::l2_clean`, since 185bbb2). Bump it when a change to the
/// measurement makes old and new numbers of one kernel disagree; keys stay (DESIGN.md, "Keys and
/// provenance").
pub const MEASURE_METHOD: u32 = 2;

impl std::fmt::Display for TimingMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Timing statistics of the measured launch sequence, in milliseconds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Timing {
    pub median_ms: f64,
    pub min_ms: f64,
    pub max_ms: f64,
    pub q1_ms: f64,
    pub q3_ms: f64,
    /// Relative standard deviation of the samples.
    pub noise: f64,
    pub samples: usize,
    /// How the samples were taken (on disk: "cold", "hot" or "host").
    pub mode: TimingMode,
    /// The SM clock fell below 75 % of the device's maximum during the samples, or NVML reported a
    /// thermal or hardware slowdown (recordings before `clocks` existed: a guess from the sample drift).
    #[serde(default)]
    pub throttled: bool,
    /// Why sampling stopped; absent in older recordings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<crate::stats::StopReason>,
    /// The noise target the point was measured against (relative standard deviation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub noise_target: Option<f64>,
    /// The fewest samples the convergence rule asks for (`min_samples`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_samples: Option<usize>,
    /// Runs of the whole launch sequence timed together as one sample (hot mode batches short
    /// kernels; each sample is then the batch's time divided by this). 1 when absent.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub runs_per_sample: usize,
    /// Whether the blocking kernel held the stream while the sample's launches were queued (host launch
    /// overhead kept out of the sample).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub blocked: bool,
    /// Clocks read through NVML during the samples.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clocks: Option<Clocks>,
    /// How a GPU point was measured ([`MEASURE_METHOD`]); absent on CPU baselines. A GPU timing
    /// without it was measured by method 1: every recording of a later method carries the field
    /// (older ones had it added from their commit by a one-time migration).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<u32>,
    /// The host CPU's model (CPU baselines, [`TimingMode::Host`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<String>,
    /// The empty kernel's median (ms) by the events of the worker that timed this point, timed as a
    /// cold point at the start of its job (`engine::calibrate`): the events' side of the
    /// event-overhead calibration, measured on this point's own host and run (cold event-timed
    /// GPU points; absent before 2026-11-28). The ncu side comes from the device's calibration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub empty_kernel_ms: Option<f64>,
}

impl Default for Timing {
    /// An empty cold timing of the current method (all statistics 0, one run per sample): a base for
    /// struct literals.
    fn default() -> Self {
        Timing {
            median_ms: 0.0,
            min_ms: 0.0,
            max_ms: 0.0,
            q1_ms: 0.0,
            q3_ms: 0.0,
            noise: 0.0,
            samples: 0,
            mode: TimingMode::Cold,
            throttled: false,
            stop: None,
            noise_target: None,
            min_samples: None,
            runs_per_sample: 1,
            blocked: false,
            clocks: None,
            method: Some(MEASURE_METHOD),
            cpu: None,
            empty_kernel_ms: None,
        }
    }
}

fn one() -> usize {
    1
}

fn is_one(n: &usize) -> bool {
    *n == 1
}

/// The clocks read (NVML) before, between and after a point's samples.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Clocks {
    /// Lowest and highest SM clock read, MHz.
    pub sm_mhz: (u32, u32),
    /// Lowest and highest memory clock read, MHz.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_mhz: Option<(u32, u32)>,
    /// How many readings.
    pub reads: usize,
    /// NVML reported a thermal or hardware slowdown at some reading.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub slowdown: bool,
}

impl Timing {
    /// A timing statistic by its suffix in a table or claim (`time_ms.min`).
    pub fn stat(&self, suffix: &str) -> Option<f64> {
        Some(match suffix {
            "" | "median" => self.median_ms,
            "min" => self.min_ms,
            "max" => self.max_ms,
            "q1" => self.q1_ms,
            "q3" => self.q3_ms,
            _ => return None,
        })
    }
}

/// Compiled-kernel attributes and theoretical occupancy, from the driver.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Attributes {
    pub registers: u32,
    pub static_shared_bytes: u32,
    pub local_bytes: u32,
    pub max_threads_per_block: u32,
    #[serde(default)]
    pub occupancy: Option<Occupancy>,
}

/// Theoretical occupancy of one launch configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Occupancy {
    pub blocks_per_sm: u32,
    pub warps_per_sm: u32,
    pub limiter: String,
}

/// How the point's output was checked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Verification {
    pub reference: String,
    pub max_error: f64,
    #[serde(default)]
    pub first_bad_index: Option<usize>,
    /// The tolerance compared against (relative to `max(1, max|ref|)`; 0 for exact). For a per-element
    /// rule, the tolerance of the element whose error came closest to its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<f64>,
    /// Where it came from: "floating-point accumulation, K = 4096, λ = 10, per element"
    /// (engine::tolerance) or "spec".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerance_rule: Option<String>,
    /// Floats: the largest ratio of an element's error to its tolerance (≤ 1 passes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_to_tolerance: Option<f64>,
}

/// Whether two short commit hashes name the same commit: one is a prefix of the other (hashes of
/// any length), and both or neither come from a dirty tree (`+dirty`).
pub fn same_commit(a: &str, b: &str) -> bool {
    let (x, y) = (a.trim_end_matches("+dirty"), b.trim_end_matches("+dirty"));
    !x.is_empty()
        && !y.is_empty()
        && (x.starts_with(y) || y.starts_with(x))
        && a.ends_with("+dirty") == b.ends_with("+dirty")
}

impl Point {
    /// Whether the point was measured the way the engine measures now: host timings and hot ones
    /// (no flush) always are; a cold GPU timing is when its method is [`MEASURE_METHOD`].
    pub fn measured_the_current_way(&self) -> bool {
        self.timing.as_ref().is_none_or(|t| {
            t.mode != TimingMode::Cold || t.method.is_some_and(|m| m >= MEASURE_METHOD)
        })
    }

    /// A point of `variant` at `params`, stamped now by this tool version, with no outcome details
    /// yet (ok and untimed until the run fills them in).
    pub fn new(
        variant: &str,
        params: &BTreeMap<String, ParamValue>,
        key: &str,
        commit: Option<String>,
    ) -> Point {
        Point {
            variant: variant.to_string(),
            params: params.clone(),
            key: key.to_string(),
            recorded_at: chrono::Utc::now(),
            commit,
            tool_version: env!("CARGO_PKG_VERSION").to_string(),
            outcome: Outcome::Ok,
            failure: None,
            timing: None,
            metrics: BTreeMap::new(),
            attributes: None,
            verification: None,
            provenance: None,
            run: None,
            counters: None,
        }
    }

    /// A derived metric of this point by name (`gbps`), or a kernel attribute (`registers`,
    /// `blocks_per_sm`, …). A timing statistic is the view's, less the event overhead
    /// (`results::event_offset::metric`): `None` here.
    pub fn metric(&self, name: &str) -> Option<f64> {
        if self.outcome != Outcome::Ok {
            return None;
        }
        let base = name.split_once('.').map_or(name, |(b, _)| b);
        let source = builtin(base).map(|b| b.source);
        if source == Some(Source::Timing) {
            return None;
        }
        if let Some(q) = self.metrics.get(base) {
            return Some(q.value);
        }
        let Some(Source::Attribute(attribute)) = source else {
            return None;
        };
        let attrs = self.attributes.as_ref()?;
        let occupancy = attrs.occupancy.as_ref();
        Some(match attribute {
            Attribute::Registers => attrs.registers as f64,
            Attribute::StaticSharedBytes => attrs.static_shared_bytes as f64,
            Attribute::LocalBytes => attrs.local_bytes as f64,
            Attribute::BlocksPerSm => occupancy?.blocks_per_sm as f64,
            Attribute::WarpsPerSm => occupancy?.warps_per_sm as f64,
        })
    }
}

#[cfg(test)]
#[path = "schema_tests.rs"]
mod tests;
