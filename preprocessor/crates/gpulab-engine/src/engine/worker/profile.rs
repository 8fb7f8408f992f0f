//! The worker's profiled run (`record --counters`): each point's launches run exactly once for the
//! profiler, with no flush, blocking kernel, reference, verification or timing.

use super::{Failed, PointRunner, Stopped, emit};
use crate::engine::job::{JobPoint, Message};
use crate::engine::sequence::Sequence;
use crate::spec::Exec;
use crate::spec::metrics::point_vars;
use std::process::ExitCode;

/// Runs every point once and reports each as `Profiled`.
pub(super) fn profile_points(
    runner: &mut PointRunner,
    points: &[JobPoint],
) -> Result<ExitCode, Stopped> {
    for (index, jp) in points.iter().enumerate() {
        emit(&Message::Start { index })?;
        let (kernels, error) = match runner.profile(jp) {
            Ok(kernels) => (kernels, None),
            Err(e) => (Vec::new(), Some(e)),
        };
        emit(&Message::Profiled {
            index,
            kernels,
            error,
        })?;
        if runner.gpu.is_poisoned() {
            // The rest would fail too; the counter pass records what ran before.
            return Ok(ExitCode::from(3));
        }
    }
    Ok(ExitCode::SUCCESS)
}

impl PointRunner {
    /// One run of `jp`'s launch sequence: the kernel of each launch, in order.
    fn profile(&mut self, jp: &JobPoint) -> Result<Vec<String>, String> {
        let message = |Failed(_, m): Failed| m;
        let exp = self.exp.clone();
        let variant = exp
            .variant(&jp.variant)
            .ok_or_else(|| format!("no variant `{}` in the spec", jp.variant))?;
        let Exec::Kernel { source } = &variant.exec else {
            return Err("not a kernel variant: counters are recorded for kernels only".into());
        };
        let vars = point_vars(&jp.params, Some(&self.device));
        self.inputs(&vars).map_err(message)?;
        let options = crate::engine::resolve::defines(variant, &vars).map_err(|e| e.to_string())?;
        let (module, _) = self.module(source, options).map_err(message)?;
        let seq = Sequence::plan(variant, &vars).map_err(|e| e.to_string())?;
        let kernels = super::functions(&module, &seq).map_err(message)?;
        let buffers = self.device_buffers(&module).map_err(message)?;
        self.gpu.synchronize().map_err(|e| e.to_string())?;
        seq.launch(&self.gpu, &kernels, &buffers)
            .map_err(|e| e.to_string())?;
        self.gpu.synchronize().map_err(|e| e.to_string())?;
        Ok(seq.describe().into_iter().map(|l| l.kernel).collect())
    }
}
