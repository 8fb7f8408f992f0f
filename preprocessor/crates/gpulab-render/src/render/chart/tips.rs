//! Hover targets over chart points, ringed when flagged; [`TIPS_SCRIPT`] keeps them out of the search.

use super::Tip;
use crate::render::html::escape;

/// Where a tip goes (pixels of the SVG) and what it says.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Spot {
    pub x: i32,
    pub y: i32,
    pub tip: Tip,
}

impl Spot {
    pub(crate) fn new((x, y): (i32, i32), tip: &Tip) -> Spot {
        let tip = tip.clone();
        Spot { x, y, tip }
    }
}

/// A heat-map cell's hover target: its whole rectangle, in pixels of the SVG.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Area {
    pub x: i32,
    pub y: i32,
    pub width: i32,
    pub height: i32,
    pub tip: Tip,
}

/// Gives every hover target its `<title>` from its `data-tip` (idempotent; follows each chart).
pub const TIPS_SCRIPT: &str = "<script>for (const e of document.querySelectorAll(\".gpulab-tip[data-tip]\")) { const t = document.createElementNS(\"http://www.w3.org/2000/svg\", \"title\"); t.textContent = e.getAttribute(\"data-tip\"); e.removeAttribute(\"data-tip\"); e.prepend(t); }</script>";

/// Inserts `extra` before the SVG's closing tag.
fn insert(svg: String, extra: &str) -> String {
    match svg.rfind("</svg>") {
        Some(end) if !extra.is_empty() => {
            let mut out = svg;
            out.insert_str(end, extra);
            out
        }
        _ => svg,
    }
}

/// Appends the cells' hover targets to a plotters SVG, with a warning ring inside a flagged cell.
pub(crate) fn append_areas(svg: String, areas: &[Area]) -> String {
    let mut extra = String::new();
    for a in areas {
        if a.tip.flagged {
            extra.push_str(&format!(
                "<rect class=\"gpulab-tip-flag\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" />",
                a.x + 3,
                a.y + 3,
                (a.width - 6).max(1),
                (a.height - 6).max(1)
            ));
        }
        extra.push_str(&format!(
            "<rect class=\"gpulab-tip\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" data-tip=\"{}\" />",
            a.x,
            a.y,
            a.width,
            a.height,
            escape(&a.tip.text)
        ));
    }
    insert(svg, &extra)
}

/// Appends the spots to a plotters SVG (before its closing tag).
pub(crate) fn append(svg: String, spots: &[Spot]) -> String {
    let mut extra = String::new();
    for s in spots {
        if s.tip.flagged {
            extra.push_str(&format!(
                "<circle class=\"gpulab-tip-flag\" cx=\"{}\" cy=\"{}\" r=\"6\" />",
                s.x, s.y
            ));
        }
        extra.push_str(&format!(
            "<circle class=\"gpulab-tip\" cx=\"{}\" cy=\"{}\" r=\"7\" data-tip=\"{}\" />",
            s.x,
            s.y,
            escape(&s.tip.text)
        ));
    }
    insert(svg, &extra)
}

#[cfg(test)]
#[path = "tips_tests.rs"]
mod tests;
