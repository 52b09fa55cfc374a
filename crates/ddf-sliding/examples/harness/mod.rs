//! What the line studies (`vline_study`, `qline_study`) share: the clock
//! that ages entries and paces the scan, the observe loops around a
//! study's probe, and the timed passes of fresh keys.

use ddf_hash::{Digest, KeyedSipHasher};
use std::time::Instant;

/// Generations as the crate counts them: a tag per generation of
/// `⌈w / c⌉` insertions, modulo `2^s`, and a scan that sweeps the whole
/// table every `2^s − c − 1` generations, so a stale tag is emptied before
/// it wraps to the current one.
pub(crate) struct Clock {
    generation_len: u64,
    in_generation: u64,
    tag: u32,
    tag_mask: u32,
    sweep: u64,
    scan: usize,
    scan_credit: u64,
}

impl Clock {
    pub(crate) fn new(window: u64, generations: u32, tag_bits: u32) -> Clock {
        Clock {
            generation_len: window.div_ceil(u64::from(generations)),
            in_generation: 0,
            tag: 0,
            tag_mask: (1 << tag_bits) - 1,
            sweep: (1u64 << tag_bits) - u64::from(generations) - 1,
            scan: 0,
            scan_credit: 0,
        }
    }

    /// Insertions per generation, `⌈w / c⌉`.
    pub(crate) fn generation_len(&self) -> u64 {
        self.generation_len
    }

    /// The current generation's tag.
    #[inline(always)]
    pub(crate) fn tag(&self) -> u32 {
        self.tag
    }

    /// After an insertion into a table of `buckets` buckets: sweeps
    /// `buckets / (sweep · g)` of them per insertion (`sweep(bucket, tag)`),
    /// then counts the insertion in its generation.
    #[inline]
    pub(crate) fn tick(&mut self, buckets: usize, mut sweep: impl FnMut(usize, u32)) {
        self.scan_credit += buckets as u64;
        while self.scan_credit >= self.sweep * self.generation_len {
            self.scan_credit -= self.sweep * self.generation_len;
            sweep(self.scan, self.tag);
            self.scan = if self.scan + 1 == buckets {
                0
            } else {
                self.scan + 1
            };
        }
        self.in_generation += 1;
        if self.in_generation == self.generation_len {
            self.in_generation = 0;
            self.tag = (self.tag + 1) & self.tag_mask;
        }
    }
}

/// A study's probe: where an item lives, a request for its buckets, and
/// detect-then-record on them.
pub(crate) trait Probe {
    type Slot: Copy + Default;

    fn slot(&self, digest: Digest) -> Self::Slot;

    /// Requests both buckets of `slot`, neither read yet.
    fn prefetch(&self, slot: Self::Slot);

    /// Whether the item had an active entry; records it.
    fn observe_slot(&mut self, slot: Self::Slot) -> bool;

    fn observe(&mut self, digest: Digest) -> bool {
        let slot = self.slot(digest);
        // Both buckets are requested before either is read.
        self.prefetch(slot);
        self.observe_slot(slot)
    }

    /// Batches: both buckets of item `i + 8` requested before item `i`.
    fn observe_batch(&mut self, digests: &[Digest], seen: &mut Vec<bool>) {
        const AHEAD: usize = 8;
        let mut slots = [Self::Slot::default(); AHEAD];
        for (i, &d) in digests.iter().take(AHEAD).enumerate() {
            slots[i] = self.slot(d);
            self.prefetch(slots[i]);
        }
        for i in 0..digests.len() {
            let slot = slots[i % AHEAD];
            if let Some(&next) = digests.get(i + AHEAD) {
                slots[i % AHEAD] = self.slot(next);
                self.prefetch(slots[i % AHEAD]);
            }
            seen.push(self.observe_slot(slot));
        }
    }
}

/// Observes `count` distinct keys from `from` on; returns the false
/// duplicates. Its name is what callgrind's `--toggle-collect` matches.
#[inline(never)]
pub(crate) fn study_loop<S: Probe>(
    s: &mut S,
    hasher: &KeyedSipHasher,
    from: u64,
    count: u64,
) -> u64 {
    (from..from + count)
        .map(|id| u64::from(s.observe(ddf_hash::digest(hasher, &id))))
        .sum()
}

pub(crate) fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Fresh keys for one timed pass: `ops` of them, by one or in blocks.
pub(crate) struct Pass {
    pub(crate) ops: u64,
    pub(crate) block: u64,
    pub(crate) next: u64,
}

impl Pass {
    /// Times `each` over the next `ops` keys (`batch`: blocks of `block`
    /// digests), in ns per key.
    pub(crate) fn time(
        &mut self,
        batch: bool,
        hasher: &KeyedSipHasher,
        mut each: impl FnMut(&[Digest]),
    ) -> f64 {
        let (from, step) = (self.next, if batch { self.block } else { 1 });
        let mut digests = Vec::with_capacity(step as usize);
        let t = Instant::now();
        for start in (from..from + self.ops).step_by(step as usize) {
            digests.clear();
            digests.extend((start..start + step).map(|id| ddf_hash::digest(hasher, &id)));
            each(&digests);
        }
        self.next += self.ops;
        t.elapsed().as_nanos() as f64 / self.ops as f64
    }
}
