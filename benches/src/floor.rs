//! The hardware floor: hash the key, touch as many random cache lines as the filter does.

use ddf_core::{Digest, DuplicateFilter, TimedFilter};

/// Bytes per cache line.
const LINE_BYTES: u64 = 64;

/// The least work a filter of a given size can do per item: the caller
/// hashes the key (as for the filter), then this touches `lines` random
/// cache lines of an array of the filter's size, reading one word of each
/// and setting one bit in it.
///
/// It is itself a (poor) filter, a blocked Bloom filter with one bit per
/// line, so the suite drives it through [`DuplicateFilter`] exactly as it
/// drives the filters: the floor and the filter share the loop, the
/// hashing and the key stream, and their ratio isolates the filter's own work.
#[derive(Debug, Clone)]
pub struct Floor {
    words: Vec<u64>,
    lines: u64,
    touches: u32,
}

impl Floor {
    /// A floor over `bytes` bytes (rounded up to whole lines, at least one)
    /// touching `touches` (at least 1) lines per operation.
    pub fn new(bytes: u64, touches: u32) -> Self {
        let lines = bytes.div_ceil(LINE_BYTES).max(1);
        // Mapped as the filters' tables are (huge pages from 8 MiB on, see
        // `ddf_bits::pages`) and written in full, so neither page faults nor
        // page walks the filters do not pay land in the floor's timed loop.
        let words = ddf_bits::pages::filled_vec((lines * LINE_BYTES / 8) as usize, 0u64);
        Floor {
            words,
            lines,
            touches: touches.max(1),
        }
    }

    /// Lines touched per operation.
    pub fn touches(&self) -> u32 {
        self.touches
    }

    /// The word and bit of touch `i`: a line by multiply-shift of a
    /// remixed digest, a word and a bit from its low bits.
    #[inline]
    fn position(&self, h: u64, i: u32) -> (usize, u64) {
        // Odd multipliers give each touch its own line from one digest.
        let hi = h.wrapping_mul(0x9e37_79b9_7f4a_7c15 ^ (u64::from(i) << 1));
        let line = Digest::new(hi).reduce(self.lines);
        let word = line * (LINE_BYTES / 8) + (hi & 7);
        (word as usize, 1 << ((hi >> 3) & 63))
    }
}

impl DuplicateFilter for Floor {
    #[inline]
    fn contains(&self, digest: Digest) -> bool {
        (0..self.touches).all(|i| {
            let (w, bit) = self.position(digest.get(), i);
            self.words[w] & bit != 0
        })
    }

    #[inline]
    fn insert(&mut self, digest: Digest) {
        for i in 0..self.touches {
            let (w, bit) = self.position(digest.get(), i);
            self.words[w] |= bit;
        }
    }

    /// Every line read and written once, without the early exit a
    /// short-circuiting `contains` would take.
    #[inline]
    fn observe(&mut self, digest: Digest) -> ddf_core::Verdict {
        let mut seen = true;
        for i in 0..self.touches {
            let (w, bit) = self.position(digest.get(), i);
            let old = self.words[w];
            seen &= old & bit != 0;
            self.words[w] = old | bit;
        }
        ddf_core::Verdict::from_seen(seen)
    }

    fn memory_bits(&self) -> u64 {
        self.lines * LINE_BYTES * 8
    }

    fn clear(&mut self) {
        self.words.fill(0);
    }
}

/// The floor has no clock: a time window's floor is its count floor.
impl TimedFilter for Floor {
    fn contains_at(&self, digest: Digest, _now: u64) -> bool {
        self.contains(digest)
    }

    fn insert_at(&mut self, digest: Digest, _now: u64) {
        self.insert(digest);
    }

    fn clock_regressions(&self) -> u64 {
        0
    }

    fn generations_closed_early(&self) -> u64 {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn touches_distinct_lines_and_remembers() {
        let mut f = Floor::new(1 << 20, 3);
        let d = Digest::mixed(5);
        assert!(!f.observe(d).is_duplicate());
        assert!(f.observe(d).is_duplicate());
        let lines: std::collections::HashSet<usize> =
            (0..3).map(|i| f.position(d.get(), i).0 / 8).collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(f.memory_bits(), 1 << 23);
    }
}
