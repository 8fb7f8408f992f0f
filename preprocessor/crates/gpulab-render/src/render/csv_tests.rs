//! Tests of `csv`.

use super::*;

#[test]
fn quoting() {
    assert_eq!(quote("a,b"), "\"a,b\"");
    assert_eq!(quote("say \"x\""), "\"say \"\"x\"\"\"");
    assert_eq!(quote("plain"), "plain");
    assert_eq!(csv_line(&["a".into(), "b,c".into()]), "a,\"b,c\"\n");
}
