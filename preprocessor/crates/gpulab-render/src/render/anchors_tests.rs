//! Tests of `anchors`.

use super::*;
use crate::results::anchors::AnchorRow;

#[test]
fn a_row_shows_both_values_and_the_ratio() {
    let d = DeviceAnchors {
        device: "GPU".into(),
        rows: vec![
            AnchorRow {
                label: "PyTorch copy_".into(),
                unit: "GB/s".into(),
                library: Some(3000.0),
                ours: Some(("copy_vec4_flat".into(), 3030.0, false)),
            },
            AnchorRow {
                label: "PyTorch sum".into(),
                unit: "GB/s".into(),
                library: None,
                ours: Some(("reduce7".into(), 2900.0, true)),
            },
        ],
        provenance: Some("commit abc".into()),
    };
    let html = anchors_html(&[d]);
    assert!(html.contains("<td>3000 GB/s</td><td><code>copy_vec4_flat</code></td><td>3030 GB/s</td><td>101.0 %</td>"), "{html}");
    assert!(html.contains("not measured"), "{html}");
    assert!(html.contains("gpulab-stale-mark"), "{html}");
    assert!(anchors_html(&[]).contains("No library anchors recorded yet"));
}
