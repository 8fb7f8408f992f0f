//! Tests of `prose_literals`.

use super::*;

#[test]
fn numbers_in_prose_with_groups_and_decimals() {
    let found: Vec<String> =
        numbers("H100 at 3052 GB/s, 46 561 against 51,766; 91.0 % in 2D; sm_90 1.96× of 32")
            .into_iter()
            .map(|(_, t)| t)
            .collect();
    assert_eq!(found, ["3052", "46 561", "51,766", "91.0", "1.96", "32"]);
}

#[test]
fn a_figure_equal_to_a_shown_value_is_flagged_once_typed_by_hand() {
    let md = "It reaches 3052 GB/s (91.0 %), 6.7× the copy, as {{#gpulab c x.gbps}} shows; in 2010, \
              32 warps, N = 160, steps of 160 or 2048 floats, 100 × a, compute capability 1.2; \
              `3052`. The paper's 91.0 % stays.\n";
    let file = SourceFile::new("c.md", md);
    let shown = [
        "3\u{202f}052",
        "91.0\u{a0}%",
        "6.7×",
        "2\u{202f}010",
        "32",
        "160",
        "2\u{202f}048",
        "100\u{a0}%",
        "1.2×",
    ];
    let shown: Vec<String> = shown.iter().map(|s| s.to_string()).collect();
    let warned: Vec<String> = literal_warnings(&file, &shown)
        .iter()
        .map(|d| md[d.span.clone()].to_string())
        .collect();
    assert_eq!(
        warned,
        ["3052", "91.0", "6.7"],
        "a year, a count, a size, a round number, a version, code and the paper's figure are not ours"
    );
}

#[test]
fn shown_numbers_are_the_texts_of_numeric_cells() {
    let html = "<td class=\"gpulab-cell gpulab-num gpulab-best\" title=\"a &gt; b\">2\u{202f}241<sup>~</sup></td><td class=\"gpulab-cell\">x</td><span class=\"gpulab-value gpulab-num\">6.7×</span>";
    assert_eq!(shown_numbers(html), ["2\u{202f}241", "6.7×"]);
}
