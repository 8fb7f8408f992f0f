//! The seam between a book build and the live engine: the work asked for and its runner.

use super::EngineError;
use crate::plan::PlannedPoint;
use crate::workspace::Workspace;
use std::sync::Arc;

/// Runs stale points on a GPU and writes their recordings (the live engine implements it).
pub trait LiveRunner {
    /// The slug of the GPU it records on: that device's recordings decide what must run.
    fn device(&self) -> Result<String, EngineError>;
    /// Refreshes the recordings of `work`; returns how many points ran.
    fn refresh(&self, ws: &Workspace, work: &[Work]) -> Result<usize, EngineError>;
}

/// One directive's points that need running.
pub struct Work {
    pub directive: crate::directive::Directive,
    pub experiment: Arc<crate::spec::Experiment>,
    pub points: Vec<PlannedPoint>,
}
