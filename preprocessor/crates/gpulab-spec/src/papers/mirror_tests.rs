//! Tests of `mirror`.

use super::*;

#[test]
fn parses_the_line_and_refuses_others() {
    let m = Mirror::parse(" naive_mirror = naive with BX, BY swapped").unwrap();
    assert_eq!(m.variant, "naive_mirror");
    assert_eq!(m.of, "naive");
    assert_eq!(m.axes, ("BX".to_string(), "BY".to_string()));
    for bad in [
        "naive_mirror naive BX BY",
        "m = naive with BX swapped",
        "m = naive with BX, BX swapped",
        "naive = naive with BX, BY swapped",
        "m = naive BX, BY swapped",
        "a b = naive with BX, BY swapped",
    ] {
        assert!(Mirror::parse(bad).is_err(), "{bad}");
    }
}
