//! Tests of `table`.

use super::*;

fn cells(values: &[f64]) -> Vec<TableCell> {
    values
        .iter()
        .map(|v| TableCell {
            state: CellState::Value(*v),
            stale: false,
            best: false,
            paper: None,
            concerns: Vec::new(),
            quality: None,
        })
        .collect()
}

#[test]
fn the_best_cell_follows_the_metrics_direction_and_none_shades_nothing() {
    let best = |better| {
        let mut row = cells(&[3.0, 1.0, 2.0]);
        mark_best(&mut row, better);
        row.iter().map(|c| c.best).collect::<Vec<_>>()
    };
    assert_eq!(best(Some(Better::Lower)), [false, true, false]);
    assert_eq!(best(Some(Better::Higher)), [true, false, false]);
    assert_eq!(best(None), [false, false, false]);
}
