//! Tests of `provenance`.

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
    assert!(provenance_text(&corrected).ends_with("· commit abc1234 · event times less 0.96 µs"));
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
    assert!(badge.contains("stale</span> 3 of 40 points were recorded with an older kernel/spec"));
    assert!(badge.contains("<code>mdbook-gpulab record</code>"));
    assert!(stale_badge_html(1, 1).unwrap().contains("1 of 1 point was"));
    assert_eq!(stale_badge_html(0, 40), None);
    assert!(
        missing_note_html(2, 8)
            .unwrap()
            .contains("2 of 8 points not recorded")
    );
}
