//! The table's paths for line buckets ([`Layout::Line`](crate::plan::Layout)):
//! lookup, insertion and the scan, each reading a bucket as one
//! [`Line`](crate::lines::Line) and comparing all its cells at once
//! ([`LineShape::matches`](crate::lines::LineShape::matches),
//! [`LineShape::cells_of`](crate::lines::LineShape::cells_of)).
//!
//! The rules are the other layouts': at most one entry per key, a new entry
//! in a free (empty or stale) cell, relocation only when both buckets are
//! full of active entries. Three things differ. A probe costs the same
//! whatever the line holds. The new entry goes to the line with fewer
//! non-empty cells, judged from the compares alone; stale entries count
//! there until the scan empties them. And it takes that line's first empty
//! cell, so ages are computed only for a chosen line without one (then its
//! first stale cell): 9–11 % fewer instructions an observe than the first
//! free cell, which needs the ages every time. With 16 to 30 cells a line leaves so few insertions
//! without a free cell that the fallbacks are rare: the other line's free
//! cell, then one level of moves, then the other layouts' random walk.

use super::{Ages, Slot, Table};
use crate::lines::LineShape;
use ddf_hash::SplitMix64;

impl Table {
    /// [`lookup`](Table::lookup) in lines. The dispatch on the line shape
    /// stays here, out of line: inlined into `lookup`, it would grow the
    /// other layouts' path (the filter's line paths call the inlined form
    /// from its kernels instead).
    #[inline(never)]
    pub(super) fn lookup_line(&self, slot: Slot) -> Option<u32> {
        self.lookup_line_inlined(slot)
    }

    /// [`upsert`](Table::upsert) in lines; the dispatch stays out of
    /// `upsert` as in [`lookup_line`](Table::lookup_line) (inlined there,
    /// it cost the default layout 6 % more instructions per observe, and
    /// the word layouts 3 % with the wide shapes).
    #[inline(never)]
    pub(super) fn upsert_line(
        &mut self,
        slot: Slot,
        tag: u32,
        ages: &Ages,
        rng: &mut SplitMix64,
    ) -> Option<u32> {
        self.upsert_line_inlined(slot, tag, ages, rng)
    }

    /// [`scan`](Table::scan) in lines: empties the stale cells of the next
    /// `count` lines.
    pub(super) fn scan_line(&mut self, count: u64, ages: &Ages) {
        self.scan_line_inlined(count, ages);
    }

    /// [`lookup_line`](Table::lookup_line), inlined: the path of the
    /// filter's kernels (`filter/kernels.rs`), compiled for the machine's
    /// instructions there.
    #[inline(always)]
    pub(crate) fn lookup_line_inlined(&self, slot: Slot) -> Option<u32> {
        per_line_shape!(self, S, W => self.lookup_line_in::<S, W>(slot))
    }

    /// [`lookup_line`](Table::lookup_line) with `S` tag bits, wide if `W`.
    #[inline(always)]
    fn lookup_line_in<const S: u32, const W: bool>(&self, slot: Slot) -> Option<u32> {
        let shape = LineShape::fixed::<S, W>();
        let (lines, _) = self.cells.as_lines().expect("a table of lines");
        let remainder = slot.remainder;
        for bucket in [slot.first, slot.second] {
            let line = &lines[bucket as usize];
            // Ages do not matter here: any entry of the key, active or stale.
            let matches = shape.matches(line, remainder);
            if matches != 0 {
                return Some(shape.tag(line, matches.trailing_zeros()));
            }
        }
        self.stash_tag(slot)
    }

    /// [`upsert_line`](Table::upsert_line), inlined like
    /// [`lookup_line_inlined`](Table::lookup_line_inlined).
    #[inline(always)]
    pub(crate) fn upsert_line_inlined(
        &mut self,
        slot: Slot,
        tag: u32,
        ages: &Ages,
        rng: &mut SplitMix64,
    ) -> Option<u32> {
        per_line_shape!(self, S, W => self.upsert_line_in::<S, W>(slot, tag, ages, rng))
    }

    /// [`upsert_line`](Table::upsert_line) with `S` tag bits, wide if `W`.
    #[inline(always)]
    fn upsert_line_in<const S: u32, const W: bool>(
        &mut self,
        slot: Slot,
        tag: u32,
        ages: &Ages,
        rng: &mut SplitMix64,
    ) -> Option<u32> {
        let shape = LineShape::fixed::<S, W>();
        let remainder = slot.remainder;
        // No prefetch of the second line: its loads follow the first's by a
        // few dozen instructions, so both misses are in flight together
        // anyway, and the batch path requested both lines items ahead. (The
        // table's `prefetch` dispatched on the layout again: 18 instructions
        // an observe, which one by one beyond the caches cost time.)
        let (lines, _) = self.cells.as_lines_mut().expect("a table of lines");
        // Hits need no ages: the caller judges the old tag. So both lines
        // are only compared, and ages are computed for one line below.
        let first = shape.cells_of(&lines[slot.first as usize], remainder);
        let second = shape.cells_of(&lines[slot.second as usize], remainder);
        for (bucket, (matches, _)) in [(slot.first, first), (slot.second, second)] {
            if matches != 0 {
                let line = &mut lines[bucket as usize];
                let j = matches.trailing_zeros();
                let old = shape.tag(line, j);
                shape.set_tag(line, j, tag);
                return Some(old);
            }
        }
        if let Some(old) = self.refresh_stash(slot, tag) {
            return Some(old);
        }
        // The line with fewer entries (the first on a tie), chosen without
        // a branch: which one wins is as random as the hash. Stale entries
        // count until the scan empties them, which keeps the choice to the
        // compares; the chosen line's ages only if it has no empty cell.
        let take_second = second.1.count_ones() < first.1.count_ones();
        let (bucket, other, full) = if take_second {
            (slot.second, slot.first, second.1)
        } else {
            (slot.first, slot.second, first.1)
        };
        let (lines, _) = self.cells.as_lines_mut().expect("a table of lines");
        let line = &mut lines[bucket as usize];
        // An empty cell needs no ages; only a line without one looks for
        // stale entries.
        let empty = !full & shape.cell_mask();
        let free = if empty != 0 {
            empty
        } else {
            shape.older_than(line, &ages.line) & shape.cell_mask()
        };
        let fresh = remainder << S | tag;
        if free == 0 {
            self.place_elsewhere(slot, other, fresh, ages, rng);
        } else {
            let j = free.trailing_zeros();
            shape.put(line, j, remainder, tag);
            self.occupied += u64::from(full >> j & 1 == 0);
        }
        None
    }

    /// The chosen line has no free cell: the other line's free cell, else
    /// relocation.
    #[cold]
    fn place_elsewhere(
        &mut self,
        slot: Slot,
        other: u64,
        value: u32,
        ages: &Ages,
        rng: &mut SplitMix64,
    ) {
        if !self.try_place_line(other, value, ages) {
            self.relocate_line(slot, value, ages, rng);
        }
    }

    /// Puts `value` in the first free cell of line `bucket`, if it has one.
    pub(super) fn try_place_line(&mut self, bucket: u64, value: u32, ages: &Ages) -> bool {
        let (lines, shape) = self.cells.as_lines_mut().expect("a table of lines");
        let line = &mut lines[bucket as usize];
        let full = shape.full(line);
        // An empty cell needs no ages; only a line without one looks for
        // stale entries.
        let empty = !full & shape.cell_mask();
        let free = if empty != 0 {
            empty
        } else {
            shape.older_than(line, &ages.line) & shape.cell_mask()
        };
        if free == 0 {
            return false;
        }
        let j = free.trailing_zeros();
        shape.replace(line, j, value);
        self.occupied += u64::from(full >> j & 1 == 0);
        true
    }

    /// Both lines of `slot` are full of active entries: one level of moves
    /// (an entry of either line whose other line has room goes there, and
    /// `value` takes its cell), else the random walk.
    #[cold]
    fn relocate_line(&mut self, slot: Slot, value: u32, ages: &Ages, rng: &mut SplitMix64) {
        for bucket in [slot.first, slot.second] {
            for j in 0..self.per_bucket {
                let victim = self.cells.get(bucket, j);
                let other = self.alternate(bucket, victim >> self.tag_bits);
                if other != bucket && self.try_place_line(other, victim, ages) {
                    self.kicks += 1;
                    self.cells.replace(bucket, j, value);
                    return;
                }
            }
        }
        self.walk(slot, value, ages, rng);
    }

    /// [`scan_line`](Table::scan_line), inlined like
    /// [`lookup_line_inlined`](Table::lookup_line_inlined).
    #[inline(always)]
    pub(crate) fn scan_line_inlined(&mut self, count: u64, ages: &Ages) {
        per_line_shape!(self, S, W => self.scan_line_in::<S, W>(count, ages));
    }

    /// [`scan_line`](Table::scan_line) with `S` tag bits, wide if `W`.
    #[inline(always)]
    fn scan_line_in<const S: u32, const W: bool>(&mut self, count: u64, ages: &Ages) {
        let shape = LineShape::fixed::<S, W>();
        let (buckets, mut bucket, mut freed) = (self.buckets, self.scan, 0);
        let (lines, _) = self.cells.as_lines_mut().expect("a table of lines");
        for _ in 0..count {
            let line = &mut lines[bucket as usize];
            freed += u64::from(shape.sweep(line, &ages.line));
            bucket = if bucket + 1 == buckets { 0 } else { bucket + 1 };
        }
        self.scan = bucket;
        self.occupied -= freed;
    }
}

#[cfg(test)]
mod tests {
    use crate::plan::{Layout, Request, Slack};
    use crate::{Digest, DuplicateFilter, SlidingBloom, Snapshot, Verdict};
    use ddf_hash::SplitMix64;
    use std::collections::VecDeque;

    /// Narrow lines at 1e-3, wide ones at 1e-6.
    fn line_filter(window: u64, load: f64, fpr: f64) -> SlidingBloom {
        let mut request = Request::count(window, Slack::AtMost(window), None, fpr);
        request.layout = Some(Layout::Line);
        request.load = load;
        let f = SlidingBloom::from_request(request).unwrap();
        assert_eq!(f.plan().layout, Layout::Line);
        f
    }

    /// A stream with repeats from within and beyond the window: every item
    /// of the last `w` is reported, fresh keys at most at the bound, the
    /// stash stays empty, and the occupancy count stays exact.
    #[test]
    fn lines_keep_the_window_and_the_rate() {
        for (load, fpr) in [(0.9, 1e-3), (0.96, 1e-3), (0.9, 1e-6), (0.96, 1e-6)] {
            let w = 20_000;
            let mut f = line_filter(w, load, fpr);
            let wide = f.remainder_bits() > 16;
            assert_eq!(wide, fpr < 1e-3);
            let mut recent: VecDeque<u64> = VecDeque::new();
            let mut rng = SplitMix64::new(5);
            let (mut fresh, mut false_dups) = (0u64, 0u64);
            for i in 0..12 * w {
                // A third of the items repeat one of the window's.
                let key = if i > w && rng.below(3) == 0 {
                    recent[rng.below(w) as usize]
                } else {
                    fresh += 1;
                    1 << 40 | i
                };
                let verdict = f.observe(Digest::mixed(key));
                let in_window = recent.contains(&key);
                if in_window {
                    assert_eq!(
                        verdict,
                        Verdict::Duplicate,
                        "item {i} missed at load {load}"
                    );
                } else if verdict == Verdict::Duplicate {
                    false_dups += 1;
                }
                recent.push_back(key);
                if recent.len() as u64 > w {
                    recent.pop_front();
                }
            }
            let bound = f.false_positive_bound();
            let rate = false_dups as f64 / fresh as f64;
            // The bound is a union bound over the most active entries; a
            // count of k has a standard error of about √k, so 3 of them
            // above the bound would be a real excess.
            let k = bound * fresh as f64;
            assert!(
                (false_dups as f64) <= k + 3.0 * k.sqrt(),
                "rate {rate} above the bound {bound} at load {load}"
            );
            assert_eq!(f.stash_len(), 0, "load {load}");
            assert_eq!(f.occupied_cells(), f.table().cells().occupied());
        }
    }

    /// Batches give the same verdicts and the same state as one by one.
    #[test]
    fn line_batches_match_one_by_one() {
        for fpr in [1e-3, 1e-6] {
            let mut one = line_filter(5_000, 0.9, fpr);
            let mut batch = one.clone();
            let mut rng = SplitMix64::new(9);
            let digests: Vec<Digest> = (0..30_000)
                .map(|_| Digest::mixed(rng.below(12_000)))
                .collect();
            let singles: Vec<Verdict> = digests.iter().map(|&d| one.observe(d)).collect();
            let mut batched = Vec::new();
            for chunk in digests.chunks(64) {
                batch.observe_batch(chunk, &mut batched);
            }
            assert_eq!(singles, batched);
            assert_eq!(one.to_bytes(), batch.to_bytes());
        }
    }
}
