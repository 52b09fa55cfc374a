//! `Tumbling`: runs a set filter over a stream by clearing it every `capacity` insertions.

use ddf_core::{Digest, DuplicateFilter, Verdict};

/// A filter for a set (no window, no forgetting) made usable on an endless
/// stream the simple way: cleared after every `capacity` observations, so
/// it never runs past the load it was sized for. The suite runs every set
/// filter this way, ours and the peers alike, so they compare like for like.
#[derive(Debug, Clone)]
pub struct Tumbling<F> {
    inner: F,
    capacity: u64,
    filled: u64,
}

impl<F: DuplicateFilter> Tumbling<F> {
    /// Wraps `inner`, clearing it every `capacity` (at least 1) observations.
    pub fn new(inner: F, capacity: u64) -> Self {
        Tumbling {
            inner,
            capacity: capacity.max(1),
            filled: 0,
        }
    }

    /// The wrapped filter.
    pub fn inner(&self) -> &F {
        &self.inner
    }

    #[inline]
    fn tick(&mut self, n: u64) {
        self.filled += n;
        if self.filled >= self.capacity {
            self.inner.clear();
            self.filled = 0;
        }
    }
}

impl<F: DuplicateFilter> DuplicateFilter for Tumbling<F> {
    #[inline]
    fn contains(&self, digest: Digest) -> bool {
        self.inner.contains(digest)
    }

    #[inline]
    fn insert(&mut self, digest: Digest) {
        self.inner.insert(digest);
        self.tick(1);
    }

    #[inline]
    fn observe(&mut self, digest: Digest) -> Verdict {
        let v = self.inner.observe(digest);
        self.tick(1);
        v
    }

    /// Whole runs up to each clearing go to the inner filter's batch path.
    fn observe_batch(&mut self, mut digests: &[Digest], verdicts: &mut Vec<Verdict>) {
        while !digests.is_empty() {
            let room = (self.capacity - self.filled).min(digests.len() as u64) as usize;
            let (now, rest) = digests.split_at(room);
            self.inner.observe_batch(now, verdicts);
            self.tick(room as u64);
            digests = rest;
        }
    }

    fn memory_bits(&self) -> u64 {
        self.inner.memory_bits()
    }

    fn clear(&mut self) {
        self.inner.clear();
        self.filled = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ddf_exact::ExactWindow;

    #[test]
    fn forgets_at_each_capacity_on_both_paths() {
        let digests: Vec<Digest> = (0..10).map(|i| Digest::mixed(i % 3)).collect();
        let mut one = Tumbling::new(ExactWindow::unbounded(), 4);
        let by_one: Vec<Verdict> = digests.iter().map(|&d| one.observe(d)).collect();
        let mut batch = Tumbling::new(ExactWindow::unbounded(), 4);
        let mut by_batch = Vec::new();
        batch.observe_batch(&digests, &mut by_batch);
        assert_eq!(by_one, by_batch);
        // Items 0, 1, 2, 0 | 1, 2, 0, 1 | 2, 0: repeats only within a run of 4.
        let dups: Vec<bool> = by_one.iter().map(|v| v.is_duplicate()).collect();
        assert_eq!(
            dups,
            [
                false, false, false, true, false, false, false, true, false, false
            ]
        );
    }
}
