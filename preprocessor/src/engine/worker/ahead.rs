//! A point's reference computed on another thread while the GPU runs the point.

use crate::host_data::HostData;
use std::thread::JoinHandle;

/// A reference being computed, with the cache key and output length it was started for.
pub(super) struct Ahead {
    key: String,
    len: usize,
    handle: JoinHandle<Result<HostData, String>>,
}

impl Ahead {
    /// Starts `compute` on its own thread; `None` when no thread could be started (the caller
    /// then computes the reference itself, after the run).
    pub(super) fn spawn(
        key: String,
        len: usize,
        compute: impl FnOnce() -> Result<HostData, String> + Send + 'static,
    ) -> Option<Ahead> {
        let handle = std::thread::Builder::new()
            .name("gpulab-reference".into())
            .spawn(compute)
            .ok()?;
        Some(Ahead { key, len, handle })
    }

    /// Waits for the reference: with its cache key once computed (or the reference's error), or
    /// `None` when the output has another length than the one it was started for, or the thread
    /// panicked: the caller computes it then.
    pub(super) fn take(self, output_len: usize) -> Option<Result<(String, HostData), String>> {
        let done = self.handle.join().ok()?;
        (output_len == self.len).then(|| done.map(|e| (self.key, e)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ones(n: usize) -> Result<HostData, String> {
        Ok(HostData::F32(vec![1.0; n]))
    }

    #[test]
    fn a_reference_of_the_output_s_length_is_taken_with_its_key() {
        let a = Ahead::spawn("k".into(), 4, || ones(4)).unwrap();
        let (key, e) = a.take(4).unwrap().unwrap();
        assert_eq!(key, "k");
        assert_eq!(e, HostData::F32(vec![1.0; 4]));
    }

    #[test]
    fn another_length_or_a_panic_leaves_it_to_the_caller_and_an_error_is_the_reference_s() {
        assert!(
            Ahead::spawn("k".into(), 4, || ones(4))
                .unwrap()
                .take(5)
                .is_none()
        );
        let panicked = Ahead::spawn("k".into(), 4, || panic!("synthetic")).unwrap();
        assert!(panicked.take(4).is_none());
        let failed = Ahead::spawn("k".into(), 4, || Err("no inputs".into())).unwrap();
        assert_eq!(failed.take(4), Some(Err("no inputs".into())));
    }
}
