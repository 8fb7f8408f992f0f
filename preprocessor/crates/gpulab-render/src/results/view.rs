//! What the renderer is given: a directive's results per device, resolved and ready to draw.

use crate::directive::Directive;
use crate::metrics::MetricInfo;
use crate::papers::PaperTable;
use crate::record::{DeviceRecord, Point};
use crate::results::event_offset::{self, EventOffset};
use crate::value::ParamValue;
use std::collections::BTreeMap;

/// One cell of the sweep: a variant at one combination of axis values, and what was recorded.
#[derive(Debug, Clone)]
pub struct Cell<'a> {
    pub variant: String,
    /// Values of the directive's axes only (not every spec parameter).
    pub axes: BTreeMap<String, ParamValue>,
    /// `None` when nothing is recorded for this cell on this device.
    pub point: Option<&'a Point>,
    /// The recorded point's key no longer matches the current kernel/spec/axes.
    pub stale: bool,
    /// Relative metrics the directive names, where point and baseline are verified and timed.
    pub relative: BTreeMap<String, f64>,
    /// The device's event-overhead calibration, which the times shown subtract.
    pub calibration: Option<&'a EventOffset>,
    /// The device whose recording it is (or would be).
    pub device: &'a DeviceRecord,
}

impl Cell<'_> {
    /// A metric of the cell's verified point as the page shows it ([`event_offset::metric`]).
    pub fn metric(&self, name: &str) -> Option<f64> {
        event_offset::metric(self.point?, self.calibration, name)
    }
}

/// Provenance printed under each output.
#[derive(Debug, Clone)]
pub struct Provenance {
    pub device_name: String,
    pub cuda_version: String,
    pub driver_version: Option<String>,
    /// The day the points shown were recorded (YYYY-MM-DD), or the range of days.
    pub date: String,
    pub commit: Option<String>,
    pub tool_version: String,
    /// More of the points' provenance, for the line's tooltip ("NVRTC 13.0", …).
    pub details: Vec<String>,
    /// The event overhead subtracted from the points shown (µs per launch, least and most).
    pub event_offset_us: Option<(f64, f64)>,
    /// The device has a calibration that cannot be read: its event times are shown uncorrected.
    pub calibration_unreadable: bool,
}

/// The outcome of one `expect` claim on one device.
#[derive(Debug, Clone)]
pub struct ClaimView {
    pub text: String,
    pub status: ClaimStatus,
    /// "holds at 8 of 8 sizes", "fails at N=640: …", "not evaluated: no data".
    pub detail: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClaimStatus {
    Holds,
    Fails,
    NotEvaluated,
}

/// A directive's claims on a device with recordings of its points that it does not show.
#[derive(Debug, Clone)]
pub struct OtherDeviceClaims {
    /// The device's name: "NVIDIA H200".
    pub device: String,
    /// One verdict per claim, in the directive's order.
    pub claims: Vec<ClaimView>,
}

/// Everything recorded for a directive on one device.
#[derive(Debug, Clone)]
pub struct DeviceResults<'a> {
    pub device: &'a DeviceRecord,
    pub cells: Vec<Cell<'a>>,
    pub provenance: Provenance,
    pub claims: Vec<ClaimView>,
}

impl DeviceResults<'_> {
    pub fn stale_count(&self) -> usize {
        self.cells.iter().filter(|c| c.stale).count()
    }
    /// Points recorded as failed (a wrong result, a launch error, a crash or a timeout).
    pub fn failed_count(&self) -> usize {
        self.cells
            .iter()
            .filter(|c| {
                c.point
                    .is_some_and(|p| p.outcome == crate::record::Outcome::Failed)
            })
            .count()
    }
    pub fn missing_count(&self) -> usize {
        self.cells.iter().filter(|c| c.point.is_none()).count()
    }
    /// Verified, current points without counters of their code, when the directive `declares` them.
    pub(crate) fn counters_awaiting_count(&self, declares: bool) -> usize {
        if !declares {
            return 0;
        }
        self.cells
            .iter()
            .filter(|c| !c.stale)
            .filter_map(|c| c.point)
            .filter(|p| p.outcome == crate::record::Outcome::Ok)
            .filter(|p| !p.counters.as_ref().is_some_and(|k| k.current_for(&p.key)))
            .count()
    }
}

/// The renderer's whole input for one directive.
#[derive(Debug, Clone)]
pub struct DirectiveView<'a> {
    pub directive: &'a Directive,
    pub experiment_title: String,
    /// Human label of each variant, in display order.
    pub variant_labels: Vec<(String, String)>,
    /// Unit and label of every metric the directive may name (built-in and the spec's custom ones).
    pub metrics: BTreeMap<String, MetricInfo>,
    /// One entry per device shown; empty when nothing is recorded anywhere.
    pub devices: Vec<DeviceResults<'a>>,
    /// The claims on every other recorded device (empty without claims or other recordings).
    pub other_devices: Vec<OtherDeviceClaims>,
    pub paper: Option<&'a PaperTable>,
    /// The paper's data sets the claims are also evaluated on (the self-check).
    pub self_check: Vec<Vec<&'a PaperTable>>,
    /// Cells the directive asks for (for the "no recording" box and counts).
    pub expected_cells: usize,
    /// The spec and kernel sources behind the output, shown beside it (empty: not shown).
    pub code: Vec<CodeFile>,
}

/// One file shown beside a result.
#[derive(Debug, Clone, PartialEq)]
pub struct CodeFile {
    /// The path from the book root: `kernels/sgemm/sgemm.cu`.
    pub name: String,
    /// The highlighter's language: `cpp` (CUDA C) or `toml`.
    pub language: &'static str,
    /// The file's text (empty when `listed_at` names an earlier listing).
    pub text: String,
    /// The `id` of an earlier code box on the page that lists this file (linked, not repeated).
    pub listed_at: Option<String>,
}
