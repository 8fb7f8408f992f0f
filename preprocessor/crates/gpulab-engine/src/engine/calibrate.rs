//! The empty kernel timed exactly as a cold point is: the events' side of the event-overhead
//! calibration (Nsight Compute's is `scripts/event_offset.py`).

use super::job::MeasureRules;
use super::measure::measure_gpu;
use crate::gpu::{Gpu, GpuError};
use crate::record::{Timing, TimingMode};

/// Times `samples` samples of `launches` back-to-back empty-kernel launches (after an untimed one).
pub fn time_null_kernel(gpu: &Gpu, samples: usize, launches: usize) -> Result<Timing, GpuError> {
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
    let launches = launches.max(1);
    measure_gpu(
        gpu,
        &rules,
        None,
        launches,
        &mut || (0..launches).try_for_each(|_| null.launch(gpu)),
        None,
    )
}
