//! Tests of `marker`.

use super::*;

/// Bug (fixed): a bar chart of 11 series had 10 colours and no marker, so its first and
/// eleventh series were the same blue bars.
#[test]
fn no_colour_and_marker_pair_repeats_within_thirty_series() {
    let pairs: std::collections::HashSet<_> = (0..30)
        .map(|i| (super::super::palette::series_color(i), series_marker(i)))
        .collect();
    assert_eq!(pairs.len(), 30);
}

#[test]
fn the_first_fifteen_series_each_have_their_own_marker_and_dash() {
    let pairs: std::collections::HashSet<_> = (0..15)
        .map(|i| (series_marker(i), series_dash(i)))
        .collect();
    assert_eq!(pairs.len(), 15);
}
