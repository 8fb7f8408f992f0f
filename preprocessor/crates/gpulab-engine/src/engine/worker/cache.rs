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
#[path = "cache_tests.rs"]
mod tests;
