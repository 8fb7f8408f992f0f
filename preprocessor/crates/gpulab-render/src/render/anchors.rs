//! HTML of the library-anchors table: one table per device, ours beside the library's.

use super::html::escape;
use crate::results::anchors::DeviceAnchors;

/// The tables, or a note when no device has anchors or recordings yet.
pub fn anchors_html(devices: &[DeviceAnchors]) -> String {
    if devices.is_empty() {
        return "<p class=\"gpulab-missing-note\">No library anchors recorded yet: run \
                <code>python3 scripts/library_anchors.py</code> on a GPU machine.</p>\n"
            .to_string();
    }
    let mut out = String::new();
    for d in devices {
        out.push_str(&format!(
            "<div class=\"gpulab-anchors\"><p><strong>{}</strong></p>\n<table>\n<thead><tr><th>operation</th>\
             <th>library</th><th>our best kernel</th><th>ours</th><th>ours ÷ library</th></tr></thead>\n<tbody>\n",
            escape(&d.device)
        ));
        for r in &d.rows {
            let library = r
                .library
                .map(|v| format!("{v:.0} {}", r.unit))
                .unwrap_or_else(|| "not measured".into());
            let (variant, ours, ratio) = match &r.ours {
                Some((v, value, stale)) => (
                    format!(
                        "<code>{}</code>{}",
                        escape(v),
                        if *stale {
                            " <span class=\"gpulab-stale-mark\">stale</span>"
                        } else {
                            ""
                        }
                    ),
                    format!("{value:.0} {}", r.unit),
                    r.library
                        .map(|l| format!("{:.1} %", 100.0 * value / l))
                        .unwrap_or_else(|| "—".into()),
                ),
                None => ("not recorded".into(), "—".into(), "—".into()),
            };
            out.push_str(&format!(
                "<tr><td>{}</td><td>{}</td><td>{variant}</td><td>{}</td><td>{}</td></tr>\n",
                escape(&r.label),
                escape(&library),
                escape(&ours),
                escape(&ratio)
            ));
        }
        out.push_str("</tbody>\n</table>\n");
        if let Some(p) = &d.provenance {
            out.push_str(&format!(
                "<p class=\"gpulab-provenance\">library anchors: {}</p>\n",
                escape(p)
            ));
        }
        out.push_str("</div>\n");
    }
    out
}

#[cfg(test)]
#[path = "anchors_tests.rs"]
mod tests;
