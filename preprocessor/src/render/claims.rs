//! The claims list: ✓ holds / ✗ does not hold / – not evaluated, with the claim and its detail.

use super::html::escape;
use crate::results::view::{ClaimStatus, ClaimView};
use std::fmt::Write as _;

/// Mark, class suffix and wording of a claim status.
pub fn status_parts(status: ClaimStatus) -> (&'static str, &'static str, &'static str) {
    match status {
        ClaimStatus::Holds => ("✓", "holds", "holds"),
        ClaimStatus::Fails => ("✗", "fails", "does not hold"),
        ClaimStatus::NotEvaluated => ("–", "unevaluated", "not evaluated"),
    }
}

/// The list as HTML; empty when there are no claims.
pub fn claims_html(claims: &[ClaimView]) -> String {
    if claims.is_empty() {
        return String::new();
    }
    let mut out = String::from("<ul class=\"gpulab-claims\">\n");
    for claim in claims {
        let (mark, class, words) = status_parts(claim.status);
        let _ = write!(
            out,
            "<li class=\"gpulab-claim gpulab-claim-{class}\"><span class=\"gpulab-claim-mark\" aria-hidden=\"true\">{mark}</span> \
             <code>{}</code> <span class=\"gpulab-claim-status\">{words}</span>",
            escape(&claim.text)
        );
        if !claim.detail.trim().is_empty() {
            let _ = write!(
                out,
                " <span class=\"gpulab-claim-detail\">— {}</span>",
                escape(&claim.detail)
            );
        }
        out.push_str("</li>\n");
    }
    out.push_str("</ul>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_each_status() {
        // Synthetic claims.
        let claims = vec![
            ClaimView {
                text: "a.time_ms < b.time_ms".into(),
                status: ClaimStatus::Holds,
                detail: "holds at 3 of 3 sizes".into(),
            },
            ClaimView {
                text: "x > 4 where N >= 640".into(),
                status: ClaimStatus::Fails,
                detail: "fails at N=640".into(),
            },
            ClaimView {
                text: "c ~= d".into(),
                status: ClaimStatus::NotEvaluated,
                detail: String::new(),
            },
        ];
        let html = claims_html(&claims);
        assert!(html.contains("gpulab-claim-holds\"><span class=\"gpulab-claim-mark\" aria-hidden=\"true\">✓</span> <code>a.time_ms &lt; b.time_ms</code> <span class=\"gpulab-claim-status\">holds</span> <span class=\"gpulab-claim-detail\">— holds at 3 of 3 sizes</span>"));
        assert!(html.contains("✗</span> <code>x &gt; 4 where N &gt;= 640</code> <span class=\"gpulab-claim-status\">does not hold</span>"));
        assert!(html.contains("–</span> <code>c ~= d</code> <span class=\"gpulab-claim-status\">not evaluated</span></li>"));
        assert_eq!(claims_html(&[]), "");
    }
}
