//! Tests of `validate`.

use super::c_type_name;

/// Review (session 13): qualifiers, pointers and `… int` spellings named no type.
#[test]
fn c_type_names_map_to_element_types() {
    for (c, t) in [
        ("float", "f32"),
        ("const float*", "f32"),
        ("unsigned int", "u32"),
        ("long long int", "i64"),
        ("unsigned long", "u64"),
        ("short int", "i16"),
        ("signed int", "i32"),
        ("int", "i32"),
    ] {
        assert_eq!(c_type_name(c), Some(t), "{c}");
    }
    assert_eq!(c_type_name("flaot"), None);
}
