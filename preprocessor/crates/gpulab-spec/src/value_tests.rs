//! Tests of `value`.

use super::*;

/// Bug (fixed): the bank-conflict tables shaded their slowest cell "best": `ps`, a unit the
/// registry does not know, fell back to higher-is-better.
#[test]
fn every_unit_knows_its_direction_and_an_unknown_one_has_none() {
    assert_eq!(better_of_unit_text("ps"), Some(Better::Lower));
    assert_eq!(better_of_unit_text("ns"), Some(Better::Lower));
    assert_eq!(better_of_unit_text("ms"), Some(Better::Lower));
    assert_eq!(better_of_unit_text("GOP/s"), Some(Better::Higher));
    assert_eq!(better_of_unit_text("×"), Some(Better::Higher));
    assert_eq!(better_of_unit_text("way"), None);
    assert_eq!(better_of_unit_text("FLOP/access"), None);
    assert_eq!(Unit::Count.better(), None);
}
