//! The filter traits of [`SlidingBloom`] and its prefetching batch paths.

use super::kernels::{ContainsAhead, ObserveHinted, ObserveNow};
use super::*;

impl DuplicateFilter for SlidingBloom {
    /// Whether an entry for `digest` has an active generation; for time
    /// windows, at the latest time seen.
    #[inline]
    fn contains(&self, digest: Digest) -> bool {
        if self.table.has_lines() {
            self.isa.run(ContainsAhead {
                filter: self,
                digest,
                ahead: 0,
            })
        } else {
            self.contains_ahead::<false>(digest, 0)
        }
    }

    /// Records `digest` in the current generation (for time windows, at the
    /// latest time seen): refreshes its entry or inserts a new one.
    #[inline]
    fn insert(&mut self, digest: Digest) {
        self.observe(digest);
    }

    // Always inlined: with the word path written out here the inliner
    // stopped at the call, which cost 14 instructions an observe on lines
    // and 17 on words (callgrind, `examples/observe_loop`).
    #[inline(always)]
    fn observe(&mut self, digest: Digest) -> Verdict {
        let seen = if self.table.has_lines() {
            self.isa.run(ObserveNow {
                filter: self,
                digest,
            })
        } else {
            self.observe_now::<false>(digest)
        };
        Verdict::from_seen(seen)
    }

    /// Prefetches both buckets a few items ahead and, in tables beyond
    /// the caches, the buckets relocation will read; same verdicts, state
    /// and draws.
    fn observe_batch(&mut self, digests: &[Digest], verdicts: &mut Vec<Verdict>) {
        self.observe_pipelined(digests, verdicts);
    }

    fn contains_batch(&self, digests: &[Digest], answers: &mut Vec<bool>) {
        batch::contains_batch(self, digests, answers);
    }

    /// The buckets' bits (`B·W` aligned, `B·4·(r + s)` packed), plus the stash's
    /// [`STASH_CAPACITY`](crate::STASH_CAPACITY) reserved entries (bucket,
    /// remainder and tag each) and the counters
    /// ([`COUNTER_WORDS`](crate::COUNTER_WORDS) words, and one per
    /// generation of the last `c + 1` for time windows): fixed at
    /// construction.
    fn memory_bits(&self) -> u64 {
        self.plan.memory_bits()
    }

    fn clear(&mut self) {
        self.clear_all();
    }
}

/// Items between the prefetch of an item's buckets and the peek at them
/// that prefetches its relocation reads, and between that peek and the item.
pub(super) const PEEK_DISTANCE: usize = 4;

impl SlidingBloom {
    /// The batch path of `observe` (and of `observe_batch_at` once the clock
    /// has moved): item `i + 2d` gets both buckets prefetched; in tables of
    /// at least [`BEYOND_CACHE_BITS`], item `i + d`, whose buckets
    /// have arrived by then, gets the buckets its relocation would read
    /// prefetched ([`Table::prefetch_relocation`]); then item `i` is
    /// observed. Only hints: the verdicts, state and draws are those of
    /// `observe` one by one.
    fn observe_pipelined(&mut self, digests: &[Digest], verdicts: &mut Vec<Verdict>) {
        if self.plan.memory_bits() < BEYOND_CACHE_BITS {
            batch::observe_batch(self, digests, verdicts);
        } else if self.table.has_lines() {
            self.isa.run(ObserveHinted {
                filter: self,
                digests,
                verdicts,
            });
        } else {
            self.observe_hinted::<false>(digests, verdicts);
        }
    }

    /// The two-stage pipeline of [`observe_pipelined`](Self::observe_pipelined).
    #[inline(always)]
    pub(super) fn observe_hinted<const LINES: bool>(
        &mut self,
        digests: &[Digest],
        verdicts: &mut Vec<Verdict>,
    ) {
        verdicts.reserve(digests.len());
        // Each item's slot, computed once when its buckets are prefetched.
        const RING: usize = 2 * PEEK_DISTANCE;
        let mut slots = [Slot::default(); RING];
        for (i, &digest) in digests.iter().take(RING).enumerate() {
            slots[i] = self.slot(digest);
            self.table.prefetch(slots[i]);
        }
        for i in 0..digests.len() {
            let slot = slots[i % RING];
            if let Some(&next) = digests.get(i + RING) {
                slots[i % RING] = self.slot(next);
                self.table.prefetch(slots[i % RING]);
            }
            if i + PEEK_DISTANCE < digests.len() {
                let peek = slots[(i + PEEK_DISTANCE) % RING];
                self.table.prefetch_relocation(peek, &self.ages);
            }
            verdicts.push(Verdict::from_seen(self.observe_slot::<LINES>(slot)));
        }
    }
}

/// Both buckets of the item (the scan's bucket is sequential and the
/// hardware prefetcher follows it).
impl Prefetch for SlidingBloom {
    /// Two lines per item.
    const LOOKAHEAD: usize = 8;

    #[inline]
    fn prefetch(&self, digest: Digest) {
        self.table.prefetch(self.slot(digest));
    }
}

impl TimedFilter for SlidingBloom {
    /// Detect at time `now` (time windows; count windows ignore `now`).
    fn contains_at(&self, digest: Digest, now: u64) -> bool {
        let ahead = self.generations_ahead(now);
        if self.table.has_lines() {
            self.isa.run(ContainsAhead {
                filter: self,
                digest,
                ahead,
            })
        } else {
            self.contains_ahead::<false>(digest, ahead)
        }
    }

    /// Insert at time `now` (time windows; count windows ignore `now`).
    fn insert_at(&mut self, digest: Digest, now: u64) {
        self.observe_at(digest, now);
    }

    // Always inlined, as `observe`: out of line it was one more call an
    // item, 15 instructions, and one by one beyond the caches every
    // instruction counts (`docs/performance.md`, "How close the default is
    // to overlapping").
    #[inline(always)]
    fn observe_at(&mut self, digest: Digest, now: u64) -> Verdict {
        if self.plan.request.clock == Clock::Time {
            self.advance_to(now);
        }
        self.observe(digest)
    }

    /// Moves the clock to `now` once, then observes the batch with both
    /// buckets prefetched a few items ahead (as
    /// [`observe_batch`](DuplicateFilter::observe_batch)): the verdicts,
    /// state and counters of `observe_at` one by one. A `now` behind the
    /// latest time seen takes the one-by-one path, which counts one clock
    /// regression per item.
    fn observe_batch_at(&mut self, digests: &[Digest], now: u64, verdicts: &mut Vec<Verdict>) {
        if self.plan.request.clock == Clock::Time {
            if now < self.clock.latest() {
                verdicts.reserve(digests.len());
                for &d in digests {
                    verdicts.push(self.observe_at(d, now));
                }
                return;
            }
            self.advance_to(now);
        }
        self.observe_pipelined(digests, verdicts);
    }

    /// Prefetched like [`contains_batch`](DuplicateFilter::contains_batch)
    /// when `now` falls in the current generation or before (the usual
    /// case); a `now` generations ahead is answered one by one, and one more
    /// than `c` ahead reports nothing.
    fn contains_batch_at(&self, digests: &[Digest], now: u64, answers: &mut Vec<bool>) {
        match self.generations_ahead(now) {
            0 => batch::contains_batch(self, digests, answers),
            ahead if ahead > self.plan.generations => {
                answers.extend(std::iter::repeat_n(false, digests.len()));
            }
            ahead => answers.extend(
                digests
                    .iter()
                    .map(|&d| self.contains_ahead::<false>(d, ahead)),
            ),
        }
    }

    /// 0 for count windows, which ignore `now`.
    fn clock_regressions(&self) -> u64 {
        self.clock.regressions()
    }

    /// Generations that reached `⌈capacity/c⌉` insertions before their
    /// `⌈t/c⌉` time units had passed (0 for count windows).
    fn generations_closed_early(&self) -> u64 {
        self.closed_early
    }
}

impl Windowed for SlidingBloom {
    fn window(&self) -> Window {
        match self.plan.request.clock {
            Clock::Count => Window::Count(self.plan.request.window),
            Clock::Time => Window::Time(self.plan.request.window),
        }
    }

    /// The effective slack `m`: `(c + 1)·⌈n/c⌉ − 1 − n` insertions, or
    /// `(c + 1)·⌈t/c⌉ − t` time units.
    fn slack(&self) -> u64 {
        self.plan.slack
    }
}
