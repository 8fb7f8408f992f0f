//! What happens to each device buffer before the verification run and each timed sample
//! (`[[buffer]] reset`, see `spec::Reset`).

use crate::spec::{Experiment, Reset, Variant};

/// One buffer's preparation before a launch sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Prepare {
    /// Every byte set to 0xFF, so unwritten elements fail verification.
    Poison,
    /// Copied back from a pristine device copy of its `init` contents.
    Restore,
    /// Every byte set to zero.
    Zero,
}

/// Per buffer (in spec order): what precedes the verification run, and each timed sample.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct ResetPlan {
    pub verification: Vec<(String, Prepare)>,
    pub every_sample: Vec<(String, Prepare)>,
}

impl ResetPlan {
    /// The plan for `variant`: a `reset` buffer is prepared before every run; another output (or
    /// pass scratch) buffer is poisoned before the verification run only.
    pub(crate) fn new(exp: &Experiment, variant: &Variant) -> ResetPlan {
        let mut plan = ResetPlan::default();
        // A multi-pass variant's scratch and result buffers are outputs too.
        let is_scratch = |name: &str| {
            let passes = variant.passes.as_ref();
            passes.is_some_and(|p| p.scratch.iter().any(|s| s == name) || p.result == name)
        };
        for b in exp.buffers.iter().filter(|b| !b.constant) {
            let every = match b.reset {
                Reset::Init => Some(Prepare::Restore),
                Reset::Zero => Some(Prepare::Zero),
                Reset::None => None,
            };
            if let Some(p) = every {
                plan.verification.push((b.name.clone(), p));
                plan.every_sample.push((b.name.clone(), p));
            } else if b.output || is_scratch(&b.name) {
                plan.verification.push((b.name.clone(), Prepare::Poison));
            }
        }
        plan
    }

    /// The buffers that need a pristine copy of their initial contents.
    pub(crate) fn restored(&self) -> impl Iterator<Item = &str> {
        self.every_sample
            .iter()
            .filter(|(_, p)| *p == Prepare::Restore)
            .map(|(n, _)| n.as_str())
    }

    /// Whether timed samples must be prepared (each then one run, prepared untimed).
    pub(crate) fn per_sample(&self) -> bool {
        !self.every_sample.is_empty()
    }
}

#[cfg(test)]
#[path = "buffer_reset_tests.rs"]
mod tests;
