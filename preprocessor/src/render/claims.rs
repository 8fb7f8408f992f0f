//! The claims list: ✓ holds / ✗ does not hold / – not evaluated, with the claim and its detail.

use super::html::escape;
use crate::claims::ClaimGroup;
use crate::papers::PaperTable;
use crate::results::view::{ClaimStatus, ClaimView};
use crate::results::{evaluate_claim_on, numeric_axes};
use std::fmt::Write as _;

/// The self-check: a claim evaluated on the paper's own numbers (its `data/papers` table), so a reader
/// sees which claims even the paper's data supports. Rows with the same axis values form one group.
pub fn on_paper(text: &str, paper: &PaperTable) -> ClaimView {
    let mut groups: Vec<ClaimGroup> = Vec::new();
    for row in &paper.rows {
        let axes = numeric_axes(&row.axes);
        let at = match groups.iter().position(|g| g.axes == axes) {
            Some(i) => i,
            None => {
                groups.push(ClaimGroup::new(axes));
                groups.len() - 1
            }
        };
        for (metric, value) in &row.metrics {
            groups[at]
                .values
                .insert((row.variant.clone(), metric.clone()), *value);
        }
    }
    evaluate_claim_on(text, &groups)
}

/// Mark, class suffix and wording of a claim status.
pub fn status_parts(status: ClaimStatus) -> (&'static str, &'static str, &'static str) {
    match status {
        ClaimStatus::Holds => ("✓", "holds", "holds"),
        ClaimStatus::Fails => ("✗", "fails", "does not hold"),
        ClaimStatus::NotEvaluated => ("–", "unevaluated", "not evaluated"),
    }
}

/// The list as HTML; empty when there are no claims. With the directive's paper table, each claim
/// also says whether the paper's own numbers support it ([`on_paper`]).
pub fn claims_html(claims: &[ClaimView], paper: Option<&PaperTable>) -> String {
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
        if let Some(paper) = paper {
            let own = on_paper(&claim.text, paper);
            let (mark, class, _) = status_parts(own.status);
            let _ = write!(
                out,
                "<br><span class=\"gpulab-claim-paper gpulab-claim-{class}\">on the paper's own numbers ({}): {mark} {}</span>",
                escape(&paper.citation()),
                escape(&own.detail)
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
        let html = claims_html(&claims, None);
        assert!(html.contains("gpulab-claim-holds\"><span class=\"gpulab-claim-mark\" aria-hidden=\"true\">✓</span> <code>a.time_ms &lt; b.time_ms</code> <span class=\"gpulab-claim-status\">holds</span> <span class=\"gpulab-claim-detail\">— holds at 3 of 3 sizes</span>"));
        assert!(html.contains("✗</span> <code>x &gt; 4 where N &gt;= 640</code> <span class=\"gpulab-claim-status\">does not hold</span>"));
        assert!(html.contains("–</span> <code>c ~= d</code> <span class=\"gpulab-claim-status\">not evaluated</span></li>"));
        assert_eq!(claims_html(&[], None), "");
        assert!(!html.contains("paper's own numbers"));
    }

    /// The self-check: each claim evaluated on a (synthetic) paper table.
    #[test]
    fn claims_are_also_evaluated_on_the_papers_numbers() {
        let text =
            "# units: time_ms=ms\nN,variant,time_ms\n160,a,2.0\n160,b,1.0\n320,a,3.0\n320,b,4.0\n";
        let paper =
            PaperTable::parse("synth2020/t1", std::path::Path::new("t1.csv"), text).unwrap();
        let holds = on_paper("some: b.time_ms < a.time_ms", &paper);
        assert_eq!(holds.status, ClaimStatus::Holds, "{}", holds.detail);
        let fails = on_paper("b.time_ms < a.time_ms", &paper);
        assert_eq!(fails.status, ClaimStatus::Fails);
        assert!(
            fails
                .detail
                .contains("does not hold at 1 of 2 points: at N=320"),
            "{}",
            fails.detail
        );
        let absent = on_paper("c.time_ms < a.time_ms", &paper);
        assert_eq!(absent.status, ClaimStatus::NotEvaluated);
        let claims = vec![ClaimView {
            text: "b.time_ms < a.time_ms".into(),
            status: ClaimStatus::Holds,
            detail: String::new(),
        }];
        let html = claims_html(&claims, Some(&paper));
        assert!(html.contains("<span class=\"gpulab-claim-paper gpulab-claim-fails\">on the paper's own numbers (synth2020, t1): ✗ does not hold at 1 of 2 points"), "{html}");
    }
}
