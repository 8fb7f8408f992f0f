//! Tests of `claims`.

use super::*;

fn claim(text: &str) -> Claim {
    Claim::parse(text).unwrap()
}

/// The parsed claims of synthetic verdicts, as the directive stores them.
fn parsed(claims: &[ClaimView]) -> Vec<Claim> {
    claims.iter().map(|c| claim(&c.text)).collect()
}

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
    // Without a self-check the parsed claims are not evaluated; only their count matters.
    let parsed = vec![claim("a.time_ms < b.time_ms"); claims.len()];
    let html = claims_html(("GPU A", &claims), &[], &parsed, &[], false);
    assert!(html.contains("gpulab-claim-holds\"><span class=\"gpulab-claim-mark\" aria-hidden=\"true\">✓</span> <code>a.time_ms &lt; b.time_ms</code> <span class=\"gpulab-claim-status\">holds</span> <span class=\"gpulab-claim-detail\">— holds at 3 of 3 sizes</span>"));
    assert!(html.contains("✗</span> <code>x &gt; 4 where N &gt;= 640</code> <span class=\"gpulab-claim-status\">does not hold</span>"));
    assert!(html.contains(
        "–</span> <code>c ~= d</code> <span class=\"gpulab-claim-status\">not evaluated</span></li>"
    ));
    assert_eq!(claims_html(("GPU A", &[]), &[], &[], &[], true), "");
    assert!(!html.contains("paper's own numbers"));
}

/// A directive showing one GPU showed its claims on that GPU alone: 59 of the 86 paper claims
/// were never seen on the H200, two of which come out differently there.
#[test]
fn claims_were_shown_on_one_gpu_only() {
    let verdict = |status, detail: &str| ClaimView {
        text: "a.time_ms < b.time_ms".into(),
        status,
        detail: detail.into(),
    };
    let shown = [verdict(ClaimStatus::Holds, "holds at 2 of 2 points")];
    let others = [OtherDeviceClaims {
        device: "GPU B".into(),
        claims: vec![verdict(
            ClaimStatus::Fails,
            "does not hold at 1 of 2 points",
        )],
    }];
    let html = claims_html(("GPU A", &shown), &others, &parsed(&shown), &[], false);
    assert!(
        html.contains("<span class=\"gpulab-claim-status\">holds on the GPU A</span>"),
        "{html}"
    );
    assert!(html.contains("<span class=\"gpulab-claim-on gpulab-claim-fails\"><span class=\"gpulab-claim-mark\" aria-hidden=\"true\">✗</span> <span class=\"gpulab-claim-status\">does not hold on the GPU B</span> <span class=\"gpulab-claim-detail\">— does not hold at 1 of 2 points</span></span>"), "{html}");
    let alone = claims_html(("GPU A", &shown), &[], &parsed(&shown), &[], false);
    assert!(
        !alone.contains(" on the GPU"),
        "one GPU needs no name: {alone}"
    );
}

/// The self-check: each claim evaluated on a (synthetic) paper table.
#[test]
fn claims_are_also_evaluated_on_the_papers_numbers() {
    let text =
        "# units: time_ms=ms\nN,variant,time_ms\n160,a,2.0\n160,b,1.0\n320,a,3.0\n320,b,4.0\n";
    let paper = PaperTable::parse("synth2020/t1", std::path::Path::new("t1.csv"), text).unwrap();
    let holds = on_paper(&claim("some: b.time_ms < a.time_ms"), &[&paper]);
    assert_eq!(holds.status, ClaimStatus::Holds, "{}", holds.detail);
    let fails = on_paper(&claim("b.time_ms < a.time_ms"), &[&paper]);
    assert_eq!(fails.status, ClaimStatus::Fails);
    assert!(
        fails
            .detail
            .contains("does not hold at 1 of 2 points: at N=320"),
        "{}",
        fails.detail
    );
    let absent = on_paper(&claim("c.time_ms < a.time_ms"), &[&paper]);
    assert_eq!(absent.status, ClaimStatus::NotEvaluated);
    let claims = vec![ClaimView {
        text: "b.time_ms < a.time_ms".into(),
        status: ClaimStatus::Holds,
        detail: String::new(),
    }];
    let html = claims_html(
        ("GPU A", &claims),
        &[],
        &parsed(&claims),
        &[vec![&paper]],
        true,
    );
    assert!(html.contains("<span class=\"gpulab-claim-paper gpulab-claim-fails\">on the paper's own numbers (synth2020, t1): ✗ does not hold at 1 of 2 points"), "{html}");
}

/// A claim whose variants live in different tables of the paper (Widuch's Tables 1 and 3,
/// Szczepański's one table per version) was never checked on the paper's numbers.
#[test]
fn self_check_merges_the_tables_of_one_data_set() {
    // Synthetic tables.
    let a = PaperTable::parse(
        "synth2020/t1",
        std::path::Path::new("t1.csv"),
        "N,variant,time_ms\n160,global,4.0\n320,global,9.0\n",
    )
    .unwrap();
    let b = PaperTable::parse(
        "synth2020/t3",
        std::path::Path::new("t3.csv"),
        "N,variant,time_ms\n160,shared,1.0\n320,shared,2.0\n640,shared,5.0\n",
    )
    .unwrap();
    let both = on_paper(&claim("shared.time_ms < global.time_ms"), &[&a, &b]);
    assert_eq!(both.status, ClaimStatus::Holds, "{}", both.detail);
    assert!(both.detail.contains('2'), "two points: {}", both.detail);
    let alone = on_paper(&claim("shared.time_ms < global.time_ms"), &[&a]);
    assert_eq!(alone.status, ClaimStatus::NotEvaluated);
    let clash = PaperTable::parse(
        "synth2020/t4",
        std::path::Path::new("t4.csv"),
        "N,variant,time_ms\n160,shared,1.5\n",
    )
    .unwrap();
    let disagree = on_paper(&claim("shared.time_ms < global.time_ms"), &[&b, &clash]);
    assert_eq!(disagree.status, ClaimStatus::NotEvaluated);
    assert!(
        disagree
            .detail
            .contains("the tables disagree: shared.time_ms at N=160 is 1 and 1.5 (synth2020/t4)"),
        "{}",
        disagree.detail
    );
    let claims = vec![ClaimView {
        text: "shared.time_ms < global.time_ms".into(),
        status: ClaimStatus::Holds,
        detail: String::new(),
    }];
    let gpu = PaperTable::parse(
        "synth2020/t9",
        std::path::Path::new("t9.csv"),
        "# gpu: Synthetic GPU 7 (2 SMs)\nN,variant,time_ms\n160,global,4.0\n",
    )
    .unwrap();
    assert_eq!(
        citations(&[&a, &gpu]),
        "synth2020, t1 + synth2020, t9, on the Synthetic GPU 7"
    );
    let unstated = PaperTable::parse(
        "synth2020/t8",
        std::path::Path::new("t8.csv"),
        "# gpu: not stated in the text\nN,variant,time_ms\n160,global,4.0\n",
    )
    .unwrap();
    assert_eq!(citations(&[&unstated]), "synth2020, t8", "no GPU named");
    let html = claims_html(
        ("GPU A", &claims),
        &[],
        &parsed(&claims),
        &[vec![&a, &b], vec![&clash]],
        true,
    );
    assert!(
        html.contains("on the paper's own numbers (synth2020, t1 + synth2020, t3): ✓ holds"),
        "{html}"
    );
    assert!(
        html.contains("on the paper's own numbers (synth2020, t4): – "),
        "{html}"
    );
    assert!(!html.contains("none to check"), "{html}");
}

/// A paper claim with no paper numbers said nothing about them, as if the check had been forgotten.
#[test]
fn paper_claims_without_numbers_say_so() {
    let claims = vec![ClaimView {
        text: "a.time_ms < b.time_ms".into(),
        status: ClaimStatus::Holds,
        detail: String::new(),
    }];
    let of_paper = claims_html(("GPU A", &claims), &[], &parsed(&claims), &[], true);
    assert!(
        of_paper
            .contains("on the paper's own numbers: – none to check: the paper prints no numbers"),
        "{of_paper}"
    );
    let target = claims_html(("GPU A", &claims), &[], &parsed(&claims), &[], false);
    assert!(
        !target.contains("paper's own numbers"),
        "a project target is no paper claim: {target}"
    );
}

/// An expectation of the handbook in a directive that reproduces a lab task was shown as if
/// the lab had stated it ("the paper prints no numbers"), and counted as the lab's.
#[test]
fn our_claims_are_not_checked_on_the_paper() {
    let claims = vec![ClaimView {
        text: "ours: a.time_ms < b.time_ms".into(),
        status: ClaimStatus::Holds,
        detail: String::new(),
    }];
    let text = "# paper: synth2020\nN,variant,time_ms\n1,a,1\n1,b,2\n";
    let a = PaperTable::parse("synth2020/t1", std::path::Path::new("t1.csv"), text).unwrap();
    for self_check in [vec![], vec![vec![&a]]] {
        let html = claims_html(("GPU A", &claims), &[], &parsed(&claims), &self_check, true);
        assert!(
            html.contains("our expectation, not a statement of the paper"),
            "{html}"
        );
        assert!(!html.contains("paper's own numbers"), "{html}");
    }
    let target = claims_html(("GPU A", &claims), &[], &parsed(&claims), &[], false);
    assert!(!target.contains("our expectation"), "{target}");
}
