//! Tests of `tips`.

use super::*;

#[test]
fn spots_become_tipped_circles_before_the_end() {
    let svg = "<svg><rect /></svg>\n".to_string();
    let spots = [
        Spot {
            x: 10,
            y: 20,
            tip: Tip {
                text: "median of 3 samples <\"ok\">".into(),
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
        "<circle class=\"gpulab-tip\" cx=\"10\" cy=\"20\" r=\"7\" data-tip=\"median of 3 samples &lt;&quot;ok&quot;&gt;\" />"
    ));
    assert!(out.contains("<circle class=\"gpulab-tip-flag\" cx=\"30\" cy=\"40\" r=\"6\" />"));
    assert!(out.ends_with("</svg>\n"));
    assert_eq!(append("<svg></svg>".into(), &[]), "<svg></svg>");
}

#[test]
fn areas_become_tipped_rectangles_with_a_ring_when_flagged() {
    let area = |flagged| Area {
        x: 100,
        y: 50,
        width: 40,
        height: 30,
        tip: Tip {
            text: "median of 12 samples".into(),
            flagged,
        },
    };
    let out = append_areas("<svg></svg>".into(), &[area(false), area(true)]);
    assert_eq!(
        out.matches("<rect class=\"gpulab-tip\" x=\"100\" y=\"50\" width=\"40\" height=\"30\" data-tip=\"median of 12 samples\" />").count(),
        2,
        "{out}"
    );
    assert_eq!(
        out.matches(
            "<rect class=\"gpulab-tip-flag\" x=\"103\" y=\"53\" width=\"34\" height=\"24\" />"
        )
        .count(),
        1,
        "{out}"
    );
    assert!(out.ends_with("</svg>"));
}
