//! The empty kernel timed exactly as a cold point is: the events' side of the calibration.
//! (L2 flush, blocking kernel, start event, the launch, stop event.) The other side is Nsight
//! Compute's duration of the same kernel (`scripts/event_offset.py`).

use super::job::MeasureRules;
use super::measure::measure_gpu;
use crate::gpu::{Gpu, GpuError};
use crate::record::{Timing, TimingMode};

/// Times the empty kernel on `gpu` with `samples` samples (after one untimed launch).
pub fn time_null_kernel(gpu: &Gpu, samples: usize) -> Result<Timing, GpuError> {
    let null = gpu.null_kernel()?;
    null.launch(gpu)?;
    gpu.synchronize()?;
    let samples = samples.max(1);
    let rules = MeasureRules {
        min_samples: samples,
        max_samples: samples,
        mode: TimingMode::Cold,
        ..MeasureRules::default()
    };
    measure_gpu(gpu, &rules, None, 1, &mut || null.launch(gpu), None)
}
