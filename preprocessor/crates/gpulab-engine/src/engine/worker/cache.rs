//! A least-recently-used cache bounded by bytes, for the worker's host inputs and CPU references.

/// Entries with their size in bytes, most recently used last.
pub(crate) struct ByteLru<K, V> {
    entries: Vec<(K, V, u64)>,
    cap_bytes: u64,
}

impl<K: PartialEq, V> ByteLru<K, V> {
    /// A cache that evicts its oldest entries above `cap_bytes` (always keeping the newest).
    pub(crate) fn new(cap_bytes: u64) -> Self {
        ByteLru {
            entries: Vec::new(),
            cap_bytes,
        }
    }

    /// The value for `key`, now the most recently used.
    pub(crate) fn get(&mut self, key: &K) -> Option<&V> {
        let i = self.entries.iter().position(|(k, _, _)| k == key)?;
        let e = self.entries.remove(i);
        self.entries.push(e);
        self.entries.last().map(|(_, v, _)| v)
    }

    /// Inserts (or replaces) `key`, then evicts the oldest entries over the cap.
    pub(crate) fn insert(&mut self, key: K, value: V, bytes: u64) {
        self.entries.retain(|(k, _, _)| k != &key);
        self.entries.push((key, value, bytes));
        while self.entries.len() > 1 && self.bytes() > self.cap_bytes {
            self.entries.remove(0);
        }
    }

    /// Bytes held.
    pub(crate) fn bytes(&self) -> u64 {
        self.entries.iter().map(|(_, _, b)| b).sum()
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }
}

#[cfg(test)]
mod tests {
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
}
