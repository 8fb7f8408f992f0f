//! HTML of the Nsight Compute check: per device, ncu's time of each checked point beside the engine's
//! recorded median, or "not run yet on this GPU".

use super::html::escape;
use crate::results::ncu_check::{DeviceCheck, NcuCheckFile, NcuPoint};

/// The tables, one per device (a note for a device without a check, or when there is no device).
pub fn ncu_check_html(devices: &[DeviceCheck]) -> String {
    if devices.is_empty() {
        return "<p class=\"gpulab-missing-note\">The Nsight Compute check has not run yet: no GPU has \
                recordings.</p>\n"
            .to_string();
    }
    devices
        .iter()
        .map(|d| match &d.file {
            Some(f) => device_html(f),
            None => format!(
                "<p class=\"gpulab-missing-note\"><strong>{}</strong>: the Nsight Compute check has not \
                 run yet on this GPU (<code>STEPS=ncu bash scripts/gpu-suite.sh</code> on it runs \
                 <code>scripts/ncu_check.py</code>).</p>\n",
                escape(&d.slug)
            ),
        })
        .collect()
}

fn point_label(p: &NcuPoint) -> String {
    let params: Vec<String> = p.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!(
        "<code>{}/{}</code> {}",
        escape(&p.experiment),
        escape(&p.variant),
        escape(&params.join(" "))
    )
}

fn device_html(f: &NcuCheckFile) -> String {
    let within = f.points.iter().filter(|p| p.within).count();
    let worst = f
        .points
        .iter()
        .map(|p| (p.ratio - 1.0).abs())
        .fold(0.0f64, f64::max);
    // With a calibration, the recorded median and its ratio come first, then the median as the book
    // shows it (less the event overhead) with the ratio the verdict is on.
    let offset = f.event_offset.as_ref();
    let (before, raw_heads) = match offset {
        Some(o) => (
            format!(
                " ({} before subtracting the events' {:.3} µs, calibrated {})",
                f.points
                    .iter()
                    .filter(|p| p.within_raw.unwrap_or(p.within))
                    .count(),
                o.offset_ms * 1e3,
                escape(&o.date[..o.date.len().min(10)])
            ),
            "<th>engine as recorded (ms)</th><th>÷ ncu</th><th>less the event overhead (ms)</th>",
        ),
        None => (String::new(), "<th>engine (ms)</th>"),
    };
    let mut out = format!(
        "<div class=\"gpulab-ncu-check\"><p><strong>{}</strong>: {within} of {} points within target{before} \
         (±{:.0} % for kernels of {:.0} µs or more, ±{:.0} % below); largest deviation {:.1} %.</p>\n\
         <table>\n<thead><tr><th>point</th><th>mode</th><th>launches</th><th>ncu (ms)</th>\
         {raw_heads}<th>engine ÷ ncu</th><th>target</th><th></th></tr></thead>\n<tbody>\n",
        escape(&f.gpu),
        f.points.len(),
        f.targets.long * 100.0,
        f.targets.short_below_us,
        f.targets.short * 100.0,
        worst * 100.0
    );
    for p in &f.points {
        let cache = f
            .cache_control
            .get(&p.mode)
            .map(|c| format!(" (--cache-control {c})"))
            .unwrap_or_default();
        let raw = match (offset, p.engine_raw_ms, p.ratio_raw) {
            (Some(_), Some(ms), Some(r)) => format!("<td>{ms:.4}</td><td>{r:.3}</td>"),
            (Some(_), _, _) => "<td></td><td></td>".to_string(),
            (None, _, _) => String::new(),
        };
        out.push_str(&format!(
            "<tr><td>{}</td><td>{}{}</td><td>{}</td><td>{:.4}</td>{raw}<td>{:.4}</td><td>{:.3}</td>\
             <td>±{:.0} %</td><td>{}</td></tr>\n",
            point_label(p),
            escape(&p.mode),
            escape(&cache),
            p.launches,
            p.ncu_ms,
            p.engine_ms,
            p.ratio,
            p.target * 100.0,
            if p.within {
                "within"
            } else {
                "<strong>outside</strong>"
            }
        ));
    }
    out.push_str("</tbody>\n</table>\n");
    out.push_str(&format!(
        "<p class=\"gpulab-provenance\">scripts/ncu_check.py at commit {}, {}, {}; \
         --clock-control {}, gpu__time_duration.sum, median of {} runs; kernels: {}; {:.0} s on the GPU.</p>\n</div>\n",
        escape(f.commit.as_deref().unwrap_or("unknown")),
        escape(&f.date),
        escape(&f.ncu_version),
        escape(&f.clock_control),
        f.runs_per_point,
        escape(
            f.code
                .as_deref()
                .unwrap_or("compiled by the script with CuPy")
        ),
        f.seconds
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::ncu_check::Targets;
    use std::collections::BTreeMap;

    fn point(ratio: f64, within: bool) -> NcuPoint {
        NcuPoint {
            experiment: "sgemm".into(),
            variant: "naive".into(),
            params: BTreeMap::from([("N".to_string(), serde_json::json!(2048))]),
            mode: "cold".into(),
            launches: 1,
            ncu_ms: 3.0,
            engine_ms: 3.0 * ratio,
            ratio,
            target: 0.02,
            within,
            engine_raw_ms: None,
            ratio_raw: None,
            within_raw: None,
        }
    }

    /// A SYNTHETIC check of `points` on the H100's name.
    fn check(
        points: Vec<NcuPoint>,
        event_offset: Option<crate::results::ncu_check::OffsetUsed>,
    ) -> NcuCheckFile {
        NcuCheckFile {
            commit: Some("abc1234".into()),
            date: "2026-11-23T18:00:00Z".into(),
            ncu_version: "Version 2025.3.0.0".into(),
            gpu: "NVIDIA H100 80GB HBM3".into(),
            clock_control: "none".into(),
            cache_control: BTreeMap::from([("cold".to_string(), "all".to_string())]),
            runs_per_point: 7,
            targets: Targets {
                long: 0.02,
                short: 0.05,
                short_below_us: 10.0,
            },
            seconds: 61.0,
            code: None,
            event_offset,
            points,
        }
    }

    #[test]
    fn a_check_renders_every_point_with_its_verdict_and_provenance() {
        let f = check(vec![point(1.01, true), point(1.06, false)], None);
        let html = ncu_check_html(&[
            DeviceCheck {
                slug: "nvidia-h100".into(),
                file: Some(f),
            },
            DeviceCheck {
                slug: "nvidia-h200".into(),
                file: None,
            },
        ]);
        assert!(html.contains("1 of 2 points within target"), "{html}");
        assert!(html.contains("largest deviation 6.0 %"), "{html}");
        assert!(html.contains("<code>sgemm/naive</code> N=2048"), "{html}");
        assert!(html.contains("cold (--cache-control all)"), "{html}");
        assert!(html.contains("<td>1.010</td>") && html.contains("<strong>outside</strong>"));
        assert!(html.contains("commit abc1234") && html.contains("--clock-control none"));
        assert!(
            html.contains("kernels: compiled by the script with CuPy;"),
            "{html}"
        );
        assert!(html.contains(
            "<strong>nvidia-h200</strong>: the Nsight Compute check has not run yet on this GPU"
        ));
        assert!(ncu_check_html(&[]).contains("has not run yet"));
    }

    #[test]
    fn a_calibrated_check_shows_the_recorded_and_the_corrected_ratio_and_both_counts() {
        let mut corrected = point(1.01, true);
        corrected.engine_raw_ms = Some(3.3);
        corrected.ratio_raw = Some(1.1);
        corrected.within_raw = Some(false);
        let offset = crate::results::ncu_check::OffsetUsed {
            offset_ms: 0.00096,
            date: "2026-11-24T01:54:37Z".into(),
        };
        let f = check(vec![corrected], Some(offset));
        let html = ncu_check_html(&[DeviceCheck {
            slug: "nvidia-h100".into(),
            file: Some(f),
        }]);
        assert!(
            html.contains(
                "1 of 1 points within target (0 before subtracting the events' 0.960 µs, calibrated 2026-11-24)"
            ),
            "{html}"
        );
        assert!(
            html.contains("<th>engine as recorded (ms)</th><th>÷ ncu</th>"),
            "{html}"
        );
        assert!(
            html.contains("<td>3.3000</td><td>1.100</td><td>3.0300</td><td>1.010</td>"),
            "{html}"
        );
    }
}
