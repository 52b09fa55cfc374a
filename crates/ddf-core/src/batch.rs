//! The batch driver: look a few items ahead, prefetch, then probe in order.
//!
//! A filter whose operation is a few random memory accesses spends most of
//! an operation waiting for DRAM when its table is large. Given a block of
//! digests, it can ask for the cache lines of item `i + d` while it works on
//! item `i`, so that `d` misses are in flight at once. The filter supplies
//! only [`Prefetch::prefetch`] (which lines an item touches); the loop lives
//! here, once, and every filter's `observe_batch` / `contains_batch` calls it.
//!
//! Items are still observed one at a time and in order: observing item `j`
//! may change the row item `j + 1` reads, so nothing is reordered and no
//! answer is computed ahead. A prefetch is only a hint, so the verdicts, the
//! state and the filter's random draws are exactly those of the one-by-one
//! path.

use crate::filter::{DuplicateFilter, TimedFilter, Verdict};
use ddf_hash::Digest;

/// A filter that can announce the memory an operation on a digest will touch.
pub trait Prefetch: DuplicateFilter {
    /// How many items ahead the driver prefetches. Lines per item times this
    /// should stay near the number of misses a core keeps in flight (10–20
    /// line-fill buffers on current x86_64), so filters touching several
    /// lines per item lower it.
    const LOOKAHEAD: usize = 16;

    /// The state, in bits, below which the driver does not prefetch at all.
    /// A state that fits in the core's L2 is served fast enough that the
    /// out-of-order core overlaps its misses by itself; a filter whose hints
    /// cost real arithmetic (several probe hashes per item) sets this so the
    /// hints are only computed when they can pay.
    const MIN_PREFETCH_BITS: u64 = 0;

    /// Hints the cache lines that `observe(digest)` (and `contains`) will
    /// touch, using the filter's current state. It must have no effect but
    /// the hint (filters use `ddf_bits::prefetch`); a hint computed from a
    /// state that changes before the probe is merely wasted.
    fn prefetch(&self, digest: Digest);
}

/// `observe_batch` for a [`Prefetch`] filter: appends `filter.observe(d)` for
/// every digest in order, prefetching [`Prefetch::LOOKAHEAD`] items ahead.
#[inline]
pub fn observe_batch<F: Prefetch>(filter: &mut F, digests: &[Digest], verdicts: &mut Vec<Verdict>) {
    verdicts.reserve(digests.len());
    pipeline(filter, digests, |f| f, |f, d| verdicts.push(f.observe(d)));
}

/// `contains_batch` for a [`Prefetch`] filter: appends `filter.contains(d)`
/// for every digest in order, prefetching [`Prefetch::LOOKAHEAD`] items ahead.
#[inline]
pub fn contains_batch<F: Prefetch>(filter: &F, digests: &[Digest], answers: &mut Vec<bool>) {
    answers.reserve(digests.len());
    hinted(filter, digests, |d| answers.push(filter.contains(d)));
}

/// The driver for operations through a shared reference (lookups, and the
/// lock-free filters that threads share): calls `probe` on every digest in
/// order, hinting [`Prefetch::LOOKAHEAD`] items ahead as [`observe_batch`]
/// does. `probe` works on the same `filter`, through `&`.
#[inline]
pub fn hinted<F: Prefetch>(filter: &F, digests: &[Digest], mut probe: impl FnMut(Digest)) {
    pipeline(&mut &*filter, digests, |f| *f, |_, d| probe(d));
}

/// `observe_batch_at` for a [`Prefetch`] timed filter: appends
/// `filter.observe_at(d, now)` for every digest in order, prefetching as
/// [`observe_batch`] does (the hints use the state before `now` is applied,
/// so after a jump in time the first few are partly wasted, never wrong).
#[inline]
pub fn observe_batch_at<F: Prefetch + TimedFilter>(
    filter: &mut F,
    digests: &[Digest],
    now: u64,
    verdicts: &mut Vec<Verdict>,
) {
    verdicts.reserve(digests.len());
    pipeline(
        filter,
        digests,
        |f| f,
        |f, d| verdicts.push(f.observe_at(d, now)),
    );
}

/// `contains_batch_at` for a [`Prefetch`] timed filter: appends
/// `filter.contains_at(d, now)` for every digest in order, prefetching as
/// [`contains_batch`] does.
#[inline]
pub fn contains_batch_at<F: Prefetch + TimedFilter>(
    filter: &F,
    digests: &[Digest],
    now: u64,
    answers: &mut Vec<bool>,
) {
    answers.reserve(digests.len());
    hinted(filter, digests, |d| {
        answers.push(filter.contains_at(d, now))
    });
}

/// The loop of both drivers: hint `LOOKAHEAD` items ahead of `probe`, which
/// sees the digests one at a time and in order. `state` is the filter (to
/// observe) or a shared reference to it (to look up); `view` reads the
/// filter out of it for the hints.
#[inline(always)]
fn pipeline<T, F: Prefetch>(
    state: &mut T,
    digests: &[Digest],
    view: impl Fn(&T) -> &F,
    mut probe: impl FnMut(&mut T, Digest),
) {
    if view(state).memory_bits() < F::MIN_PREFETCH_BITS {
        for &d in digests {
            probe(state, d);
        }
        return;
    }
    let ahead = F::LOOKAHEAD.min(digests.len());
    for &d in &digests[..ahead] {
        view(state).prefetch(d);
    }
    for (i, &d) in digests.iter().enumerate() {
        if let Some(&next) = digests.get(i + ahead) {
            view(state).prefetch(next);
        }
        probe(state, d);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    /// Records the order of hints and probes.
    #[derive(Debug, Default)]
    struct Log {
        events: RefCell<Vec<(char, u64)>>,
        seen: std::collections::HashSet<u64>,
    }

    impl DuplicateFilter for Log {
        fn contains(&self, d: Digest) -> bool {
            self.events.borrow_mut().push(('c', d.get()));
            self.seen.contains(&d.get())
        }
        fn insert(&mut self, d: Digest) {
            self.seen.insert(d.get());
        }
        fn memory_bits(&self) -> u64 {
            0
        }
        fn clear(&mut self) {
            self.seen.clear();
        }
    }

    impl Prefetch for Log {
        const LOOKAHEAD: usize = 3;
        fn prefetch(&self, d: Digest) {
            self.events.borrow_mut().push(('p', d.get()));
        }
    }

    #[test]
    fn probes_in_order_with_each_item_hinted_first() {
        let ds: Vec<Digest> = [5u64, 6, 5, 7, 8, 6].map(Digest::new).to_vec();
        let mut f = Log::default();
        let mut verdicts = Vec::new();
        observe_batch(&mut f, &ds, &mut verdicts);
        let dup = Verdict::Duplicate;
        let new = Verdict::Unseen;
        assert_eq!(verdicts, [new, new, dup, new, new, dup]);
        let events = f.events.take();
        let probes: Vec<u64> = events.iter().filter(|e| e.0 == 'c').map(|e| e.1).collect();
        assert_eq!(probes, [5, 6, 5, 7, 8, 6]);
        // Every item is hinted exactly once, at least one probe ahead of its own.
        let hints: Vec<u64> = events.iter().filter(|e| e.0 == 'p').map(|e| e.1).collect();
        assert_eq!(hints, [5, 6, 5, 7, 8, 6]);
        assert_eq!(events[..3], [('p', 5), ('p', 6), ('p', 5)]);
        let mut answers = Vec::new();
        contains_batch(&f, &ds[..2], &mut answers);
        assert_eq!(answers, [true, true]);
    }

    /// The same log with a floor above its size: no hints at all.
    #[derive(Debug, Default)]
    struct Small(Log);

    impl DuplicateFilter for Small {
        fn contains(&self, d: Digest) -> bool {
            self.0.contains(d)
        }
        fn insert(&mut self, d: Digest) {
            self.0.insert(d)
        }
        fn memory_bits(&self) -> u64 {
            64
        }
        fn clear(&mut self) {
            self.0.clear()
        }
    }

    impl Prefetch for Small {
        const MIN_PREFETCH_BITS: u64 = 65;
        fn prefetch(&self, d: Digest) {
            self.0.prefetch(d)
        }
    }

    #[test]
    fn small_states_skip_the_hints() {
        let ds: Vec<Digest> = [1u64, 2, 1].map(Digest::new).to_vec();
        let mut f = Small::default();
        let mut verdicts = Vec::new();
        observe_batch(&mut f, &ds, &mut verdicts);
        assert_eq!(verdicts[2], Verdict::Duplicate);
        let mut answers = Vec::new();
        contains_batch(&f, &ds, &mut answers);
        assert_eq!(answers, [true, true, true]);
        assert!(f.0.events.take().iter().all(|e| e.0 == 'c'));
    }
}
