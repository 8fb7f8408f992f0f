//! Hover targets over chart points: an invisible circle per drawn point whose `<title>` gives the
//! point's sample count, spread and quality marks, and a warning ring around points with a concern.
//! plotters cannot write `<title>`, so the targets are collected in pixel space while drawing and
//! appended to its SVG.

use super::Tip;
use crate::render::html::escape;

/// Where a tip goes (pixels of the SVG) and what it says.
#[derive(Debug, Clone, PartialEq)]
pub struct Spot {
    pub x: i32,
    pub y: i32,
    pub tip: Tip,
}

/// Appends the spots to a plotters SVG (before its closing tag).
pub fn append(svg: String, spots: &[Spot]) -> String {
    if spots.is_empty() {
        return svg;
    }
    let Some(end) = svg.rfind("</svg>") else {
        return svg;
    };
    let mut extra = String::new();
    for s in spots {
        if s.tip.flagged {
            extra.push_str(&format!(
                "<circle class=\"gpulab-tip-flag\" cx=\"{}\" cy=\"{}\" r=\"6\" />",
                s.x, s.y
            ));
        }
        extra.push_str(&format!(
            "<circle class=\"gpulab-tip\" cx=\"{}\" cy=\"{}\" r=\"7\"><title>{}</title></circle>",
            s.x,
            s.y,
            escape(&s.tip.text)
        ));
    }
    let mut out = svg;
    out.insert_str(end, &extra);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spots_become_titled_circles_before_the_end() {
        let svg = "<svg><rect /></svg>\n".to_string();
        let spots = [
            Spot {
                x: 10,
                y: 20,
                tip: Tip {
                    text: "median of 3 samples <ok>".into(),
                    flagged: false,
                },
            },
            Spot {
                x: 30,
                y: 40,
                tip: Tip {
                    text: "noisy".into(),
                    flagged: true,
                },
            },
        ];
        let out = append(svg, &spots);
        assert!(out.starts_with("<svg><rect />"));
        assert!(out.contains(
            "<circle class=\"gpulab-tip\" cx=\"10\" cy=\"20\" r=\"7\"><title>median of 3 samples &lt;ok&gt;</title></circle>"
        ));
        assert!(out.contains("<circle class=\"gpulab-tip-flag\" cx=\"30\" cy=\"40\" r=\"6\" />"));
        assert!(out.ends_with("</svg>\n"));
        assert_eq!(append("<svg></svg>".into(), &[]), "<svg></svg>");
    }
}
