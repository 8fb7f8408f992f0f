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
mod tests {
    use super::*;

    // Synthetic provenance.
    fn provenance() -> Provenance {
        Provenance {
            device_name: "NVIDIA H100 80GB HBM3".into(),
            cuda_version: "13.0".into(),
            driver_version: Some("580.159.04".into()),
            date: "2026-11-22".into(),
            commit: Some("abc1234".into()),
            tool_version: "0.1.0".into(),
            details: Vec::new(),
            event_offset_us: None,
            calibration_unreadable: false,
        }
    }

    #[test]
    fn line_and_badges() {
        let p = provenance();
        assert_eq!(
            provenance_text(&p),
            "NVIDIA H100 80GB HBM3 · CUDA 13.0 · driver 580.159.04 · 2026-11-22 · commit abc1234"
        );
        let bare = Provenance {
            driver_version: None,
            commit: None,
            ..p.clone()
        };
        assert_eq!(
            provenance_text(&bare),
            "NVIDIA H100 80GB HBM3 · CUDA 13.0 · 2026-11-22"
        );
        assert!(provenance_html(&p, None).contains("title=\"recorded with mdbook-gpulab 0.1.0\""));
        let corrected = Provenance {
            event_offset_us: Some((0.96, 0.96)),
            ..p.clone()
        };
        assert!(
            provenance_text(&corrected).ends_with("· commit abc1234 · event times less 0.96 µs")
        );
        let per_run = Provenance {
            event_offset_us: Some((1.34, 3.07)),
            ..p.clone()
        };
        assert!(
            provenance_text(&per_run).ends_with("· event times less 1.34–3.07 µs (per run)"),
            "{}",
            provenance_text(&per_run)
        );
        let uncorrected = Provenance {
            calibration_unreadable: true,
            ..p.clone()
        };
        assert!(
            provenance_text(&uncorrected)
                .ends_with("· event times not corrected: the calibration cannot be read")
        );
        let detailed = Provenance {
            details: vec!["NVRTC 13.0".into(), "GPU GPU-ab".into()],
            ..p.clone()
        };
        assert!(
            provenance_html(&detailed, None)
                .contains("title=\"recorded with mdbook-gpulab 0.1.0 · NVRTC 13.0 · GPU GPU-ab\"")
        );
        assert!(
            provenance_html(&p, Some("quality: of 2 timed points, 1 ~ noise above the target"))
                .ends_with(" · <span class=\"gpulab-quality\">quality: of 2 timed points, 1 ~ noise above the target</span></p>")
        );
        let badge = stale_badge_html(3, 40).unwrap();
        assert!(
            badge.contains("stale</span> 3 of 40 points were recorded with an older kernel/spec")
        );
        assert!(badge.contains("<code>mdbook-gpulab record</code>"));
        assert!(stale_badge_html(1, 1).unwrap().contains("1 of 1 point was"));
        assert_eq!(stale_badge_html(0, 40), None);
        assert!(
            missing_note_html(2, 8)
                .unwrap()
                .contains("2 of 8 points not recorded")
        );
    }
}
