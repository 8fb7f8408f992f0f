//! The provenance line under each output and the stale / not-recorded badges.

use super::html::escape;
use crate::results::view::Provenance;

/// "NVIDIA H100 80GB HBM3 · CUDA 13.0 · driver 580.159.04 · 2026-11-22 · commit abc1234 · …".
pub fn provenance_text(p: &Provenance) -> String {
    let mut parts = vec![p.device_name.clone(), format!("CUDA {}", p.cuda_version)];
    if let Some(driver) = &p.driver_version {
        parts.push(format!("driver {driver}"));
    }
    parts.push(p.date.clone());
    if let Some(commit) = &p.commit {
        parts.push(format!("commit {commit}"));
    }
    if let Some((lo, hi)) = p.event_offset_us {
        parts.push(if format!("{lo:.2}") == format!("{hi:.2}") {
            format!("event times less {hi:.2} µs")
        } else {
            format!("event times less {lo:.2}–{hi:.2} µs (per run)")
        });
    } else if p.calibration_unreadable {
        parts.push("event times not corrected: the calibration cannot be read".into());
    }
    parts.retain(|part| !part.trim().is_empty());
    parts.join(" · ")
}

/// The provenance line as HTML, with `quality` appended and the details in its tooltip.
pub(crate) fn provenance_html(p: &Provenance, quality: Option<&str>) -> String {
    let quality = quality
        .map(|q| format!(" · <span class=\"gpulab-quality\">{}</span>", escape(q)))
        .unwrap_or_default();
    let mut title = format!("recorded with mdbook-gpulab {}", p.tool_version);
    for d in &p.details {
        title.push_str(" · ");
        title.push_str(d);
    }
    format!(
        "<p class=\"gpulab-provenance\" title=\"{}\">{}{quality}</p>",
        escape(&title),
        escape(&provenance_text(p))
    )
}

/// The **stale** badge, when any shown point was recorded with an older kernel or spec.
pub(crate) fn stale_badge_html(stale: usize, total: usize) -> Option<String> {
    (stale > 0).then(|| {
        format!(
            "<p class=\"gpulab-stale-badge\"><span class=\"gpulab-badge\">stale</span> {stale} of {total} point{} \
             {} recorded with an older kernel/spec; run <code>mdbook-gpulab record</code> on a GPU machine</p>",
            plural(total),
            if stale == 1 { "was" } else { "were" }
        )
    })
}

/// A note when some of the directive's points have no recording on this device.
pub(crate) fn missing_note_html(missing: usize, total: usize) -> Option<String> {
    (missing > 0).then(|| {
        format!(
            "<p class=\"gpulab-missing-note\">{missing} of {total} point{} not recorded on this device yet \
             (pending: awaiting a GPU run); run <code>mdbook-gpulab record</code> on a GPU machine</p>",
            plural(total)
        )
    })
}

/// A note when verified points of a directive that declares `counters` have none recorded yet.
pub(crate) fn counters_note_html(awaiting: usize, total: usize) -> Option<String> {
    (awaiting > 0).then(|| {
        format!(
            "<p class=\"gpulab-missing-note\">hardware counters of {awaiting} of {total} point{} not recorded yet \
             (awaiting a GPU run); run <code>mdbook-gpulab record --counters</code> on a GPU machine with Nsight Compute</p>",
            plural(total)
        )
    })
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

#[cfg(test)]
#[path = "provenance_tests.rs"]
mod tests;
