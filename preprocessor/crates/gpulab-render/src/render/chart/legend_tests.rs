//! Tests of `legend`.

use super::*;

#[test]
fn wraps_long_legends() {
    let names: Vec<String> = (0..12)
        .map(|i| format!("a rather long series name {i}"))
        .collect();
    let places = layout(&names);
    assert!(places.last().unwrap().1 >= 2);
    assert!(places.iter().all(|(x, _)| *x < WIDTH));
    assert_eq!(height(&[], None), 8);
    assert_eq!(height(&[("a".into(), BLACK)], Some("note")), 48);
}
