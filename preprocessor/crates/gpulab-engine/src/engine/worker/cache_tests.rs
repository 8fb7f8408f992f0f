//! Tests of `cache`.

use super::ByteLru;

#[test]
fn evicts_the_least_recently_used_over_the_cap() {
    let mut c = ByteLru::new(10);
    c.insert("a", 1, 4);
    c.insert("b", 2, 4);
    assert_eq!(c.get(&"a"), Some(&1), "a is now the most recent");
    c.insert("c", 3, 4);
    assert_eq!(c.get(&"b"), None, "b was the oldest");
    assert_eq!(c.get(&"a"), Some(&1));
    assert_eq!(c.get(&"c"), Some(&3));
    assert_eq!(c.bytes(), 8);
    c.insert("huge", 4, 100);
    assert_eq!(c.len(), 1);
    assert_eq!(c.get(&"huge"), Some(&4), "the newest is kept");
    c.insert("huge", 5, 1);
    assert_eq!(c.len(), 1, "replaced, not doubled");
    assert_eq!(c.get(&"huge"), Some(&5));
}
