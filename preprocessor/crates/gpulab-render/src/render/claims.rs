//! The claims list: ✓ holds / ✗ does not hold / – not evaluated, with the claim and its detail.

use super::html::escape;
use crate::claims::{Claim, ClaimGroup};
use crate::papers::PaperTable;
use crate::results::view::{ClaimStatus, ClaimView, OtherDeviceClaims};
use crate::results::{numeric_axes, verdict};
use std::fmt::Write as _;

/// The self-check: a claim evaluated on the paper's own tables, merged into one data set.
pub fn on_paper(claim: &Claim, tables: &[&PaperTable]) -> ClaimView {
    let mut groups: Vec<ClaimGroup> = Vec::new();
    for paper in tables {
        for row in &paper.rows {
            let axes = numeric_axes(&row.axes);
            let at = groups.iter().position(|g| g.axes == axes);
            let at = at.unwrap_or_else(|| {
                groups.push(ClaimGroup::new(axes));
                groups.len() - 1
            });
            for (metric, value) in &row.metrics {
                let key = (row.variant.clone(), metric.clone());
                match groups[at].values.get(&key) {
                    Some(seen) if seen != value => {
                        return ClaimView {
                            text: claim.text().to_string(),
                            status: ClaimStatus::NotEvaluated,
                            detail: format!(
                                "the tables disagree: {}.{metric} at {} is {seen} and {value} ({})",
                                row.variant, groups[at].label, paper.id
                            ),
                        };
                    }
                    _ => {
                        groups[at].values.insert(key, *value);
                    }
                }
            }
        }
    }
    verdict(claim, &groups)
}

/// "widuch2010, Table 1 + widuch2010, Table 3, on the NVIDIA GeForce 9600M GT": a data set's citation.
fn citations(tables: &[&PaperTable]) -> String {
    let cited: Vec<String> = tables.iter().map(|t| t.citation()).collect();
    let cited = cited.join(" + ");
    let mut gpus: Vec<&str> = Vec::new();
    for (name, named) in tables.iter().filter_map(|t| t.gpu_short()) {
        if named && !gpus.contains(&name) {
            gpus.push(name);
        }
    }
    match gpus.is_empty() {
        true => cited,
        false => format!("{cited}, on the {}", gpus.join(" and the ")),
    }
}

/// " — holds at 3 of 3 sizes" as HTML; empty without a detail.
fn detail_html(claim: &ClaimView) -> String {
    match claim.detail.trim().is_empty() {
        true => String::new(),
        false => format!(
            " <span class=\"gpulab-claim-detail\">— {}</span>",
            escape(&claim.detail)
        ),
    }
}

/// Mark, class suffix and wording of a claim status.
pub fn status_parts(status: ClaimStatus) -> (&'static str, &'static str, &'static str) {
    match status {
        ClaimStatus::Holds => ("✓", "holds", "holds"),
        ClaimStatus::Fails => ("✗", "fails", "does not hold"),
        ClaimStatus::NotEvaluated => ("–", "unevaluated", "not evaluated"),
    }
}

/// The list as HTML: each claim's verdict here, on `others` and on each `self_check` data set.
pub(crate) fn claims_html(
    (device, claims): (&str, &[ClaimView]),
    others: &[OtherDeviceClaims],
    expect: &[Claim],
    self_check: &[Vec<&PaperTable>],
    of_paper: bool,
) -> String {
    if claims.is_empty() {
        return String::new();
    }
    let mut out = String::from("<ul class=\"gpulab-claims\">\n");
    debug_assert_eq!(claims.len(), expect.len(), "one parsed claim per verdict");
    for (i, (claim, parsed)) in claims.iter().zip(expect).enumerate() {
        let (mark, class, words) = status_parts(claim.status);
        let on = match others.is_empty() {
            true => String::new(),
            false => format!(" on the {}", escape(device)),
        };
        let _ = write!(
            out,
            "<li class=\"gpulab-claim gpulab-claim-{class}\"><span class=\"gpulab-claim-mark\" aria-hidden=\"true\">{mark}</span> \
             <code>{}</code> <span class=\"gpulab-claim-status\">{words}{on}</span>{}",
            escape(&claim.text),
            detail_html(claim)
        );
        for other in others {
            let Some(there) = other.claims.get(i) else {
                continue;
            };
            let (mark, class, words) = status_parts(there.status);
            let _ = write!(
                out,
                "<br><span class=\"gpulab-claim-on gpulab-claim-{class}\"><span class=\"gpulab-claim-mark\" aria-hidden=\"true\">{mark}</span> \
                 <span class=\"gpulab-claim-status\">{words} on the {}</span>{}</span>",
                escape(&other.device),
                detail_html(there)
            );
        }
        let checked_on = if parsed.is_ours() { &[] } else { self_check };
        for tables in checked_on {
            let own = on_paper(parsed, tables);
            let (mark, class, _) = status_parts(own.status);
            let _ = write!(
                out,
                "<br><span class=\"gpulab-claim-paper gpulab-claim-{class}\">on the paper's own numbers ({}): {mark} {}</span>",
                escape(&citations(tables)),
                escape(&own.detail)
            );
        }
        if parsed.is_ours() && (of_paper || !self_check.is_empty()) {
            out.push_str(
                "<br><span class=\"gpulab-claim-paper gpulab-claim-ours\">our expectation, not a \
                 statement of the paper: not checked on its numbers</span>",
            );
        } else if self_check.is_empty() && of_paper {
            out.push_str(
                "<br><span class=\"gpulab-claim-paper gpulab-claim-unevaluated\">on the paper's own numbers: – \
                 none to check: the paper prints no numbers for these quantities</span>",
            );
        }
        out.push_str("</li>\n");
    }
    out.push_str("</ul>");
    out
}

#[cfg(test)]
#[path = "claims_tests.rs"]
mod tests;
