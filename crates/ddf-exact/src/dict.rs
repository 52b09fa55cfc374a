//! The counting dictionary `D` of Theorem 1: key → (occurrences in the FIFO,
//! latest timestamp), in one open-addressing table.
//!
//! A [`ddf_bits::LinearTable`] of `2^k` cells, each holding a key, its hash,
//! its count and its latest timestamp, so one probe finds all of them in one
//! place. A key's home cell is the top `k` bits of its hash (the `S` hasher,
//! computed once per operation), so the batch paths can prefetch the home of
//! an item before they reach it. Deletion shifts the rest of the run back (no
//! tombstones: a full window deletes once per insertion, and tombstones would
//! lengthen every later probe); the stored hash rehomes each moved cell
//! without hashing its key again, and a probe compares hashes before keys.
//!
//! The table doubles when an insertion would take its load above 1/2, so
//! it never holds more than twice the cells of the keys it ever held at
//! once. A window holds at most `n` keys at once (`w + 1` for a count window:
//! the new key is counted before the oldest leaves; a time window's
//! `capacity`), so its table stops at the least power of two of at least
//! `2·(n − 1)` cells and holds `n` keys there: a window of `w = 2^j` items
//! keeps `2·w` cells, not the `4·w` one more doubling for its `w + 1`-th key
//! would give (for `w = 4096`, 256 KiB instead of 512 KiB, inside the L2
//! cache).

use ddf_bits::{LinearTable, MaxLoad, Probe, TableCell};
use std::hash::{BuildHasher, Hash};
use std::num::NonZeroU64;

/// What the dictionary keeps per key present in the window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Slot {
    /// Occurrences of the key in the FIFO (the counting dictionary's value);
    /// never 0, which lets `Option<Entry>` use it as its empty mark.
    pub(crate) count: NonZeroU64,
    /// Timestamp of the latest occurrence (time windows only).
    pub(crate) latest: u64,
}

/// A key, its hash and its slot.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry<K> {
    key: K,
    /// The key's hash under `S`: a deletion's backward shift and a doubling
    /// rehome moved entries from it, without hashing their keys again.
    hash: u64,
    slot: Slot,
}

/// One cell, aligned to 32 bytes: for 8-byte keys it is exactly 32 bytes
/// (key, hash, count, timestamp; the empty cell is the count's niche), two
/// to a cache line, and never straddles two lines, so a probe and its
/// prefetch are one line.
#[derive(Debug, Clone, PartialEq, Eq)]
#[repr(align(32))]
struct Cell<K>(Option<Entry<K>>);

impl<K: Clone> TableCell for Cell<K> {
    #[inline(always)]
    fn is_vacant(&self, _: &Self) -> bool {
        self.0.is_none()
    }
}

/// The open-addressing dictionary; see the module docs.
#[derive(Debug, Clone)]
pub(crate) struct Dict<K, S> {
    table: LinearTable<Cell<K>>,
    hasher: S,
    /// The most keys held at once, `n` (`usize::MAX`: no bound).
    most: usize,
    /// The cells the table stops doubling at, for `n` keys.
    final_cells: usize,
}

/// The hash of a cell (0 for an empty one, which the table never asks).
#[inline(always)]
fn hash_of<K>(c: &Cell<K>) -> u64 {
    c.0.as_ref().map_or(0, |e| e.hash)
}

impl<K: Hash + Eq + Clone, S: BuildHasher> Dict<K, S> {
    /// An empty dictionary that holds at most `most` keys at once
    /// (`usize::MAX` for no bound); see the module docs for its sizes.
    pub(crate) fn with_hasher(hasher: S, most: usize) -> Self {
        // `2·(n − 1)` cells, a power of two; saturates for no bound.
        let final_cells = most
            .saturating_sub(1)
            .saturating_mul(2)
            .checked_next_power_of_two()
            .unwrap_or(usize::MAX);
        let mut d = Dict {
            // Load at most 1/2: a missing key's probe walks about 2.5 cells.
            table: LinearTable::small(Cell(None), MaxLoad::Half),
            hasher,
            most,
            final_cells,
        };
        d.settle();
        d
    }

    /// At the final size, lets the table hold all `n` keys (fewer than its
    /// cells: `2^k ≥ 2·(n − 1) ≥ n` for `n ≥ 2`, with one cell to spare
    /// checked here).
    #[inline]
    fn settle(&mut self) {
        let t = &mut self.table;
        if t.cells() >= self.final_cells && t.max_len() < self.most && self.most < t.cells() {
            // In range by the check just made (and `len ≤ max_len`).
            let _ = t.set_max_len(self.most);
        }
    }

    /// Makes room for one more key in a full table: doubles it (up to the
    /// final size, where it then holds `n` keys). Past `n` keys (a broken
    /// caller) it still doubles, in `fill`, rather than fail.
    #[cold]
    fn grow(&mut self) {
        if self.table.cells() < self.final_cells {
            self.table.double(hash_of);
        }
        self.settle();
    }

    /// Distinct keys stored.
    pub(crate) fn len(&self) -> usize {
        self.table.len()
    }

    /// The key's hash under `S`, from which its home cell comes.
    #[inline(always)]
    pub(crate) fn hash(&self, key: &K) -> u64 {
        self.hasher.hash_one(key)
    }

    /// Where `key` (of hash `hash`) is, or the empty cell ending its probe.
    #[inline(always)]
    fn probe(t: &LinearTable<Cell<K>>, key: &K, hash: u64) -> Probe {
        t.find(hash, |c| {
            c.0.as_ref()
                .is_some_and(|e| e.hash == hash && e.key == *key)
        })
    }

    /// Asks the cache for the line of the home cell of a key of hash `hash`.
    #[inline(always)]
    pub(crate) fn prefetch(&self, hash: u64) {
        self.table.prefetch(hash);
    }

    /// The slot of `key`, if stored (for tests).
    #[cfg(test)]
    pub(crate) fn get(&self, key: &K) -> Option<&Slot> {
        self.get_hashed(key, self.hash(key))
    }

    /// The slot of `key` of hash `hash`, if stored.
    #[inline]
    pub(crate) fn get_hashed(&self, key: &K, hash: u64) -> Option<&Slot> {
        let t = &self.table;
        match Self::probe(t, key, hash) {
            Probe::Found(i) => t.cell(i).0.as_ref().map(|e| &e.slot),
            Probe::Vacant(_) => None,
        }
    }

    /// Counts one occurrence of `key` at time `now`; returns whether it was
    /// stored before. One probe serves the lookup and the insertion (the
    /// table doubles first when the new key would take its load above 1/2).
    #[inline(always)]
    pub(crate) fn add(&mut self, key: K, hash: u64, now: u64) -> bool {
        let t = &mut self.table;
        match Self::probe(t, &key, hash) {
            Probe::Found(i) => {
                if let Some(e) = &mut t.cell_mut(i).0 {
                    e.slot.count = e.slot.count.saturating_add(1);
                    e.slot.latest = now;
                }
                true
            }
            Probe::Vacant(mut i) => {
                if t.is_full() {
                    // The probe's cell moves when the table doubles.
                    self.grow();
                    i = match Self::probe(&self.table, &key, hash) {
                        Probe::Vacant(i) | Probe::Found(i) => i,
                    };
                }
                let slot = Slot {
                    count: NonZeroU64::MIN,
                    latest: now,
                };
                self.table
                    .fill(i, Cell(Some(Entry { key, hash, slot })), hash_of);
                false
            }
        }
    }

    /// Counts one occurrence of `key` (of hash `hash`, kept in the FIFO so
    /// the key is not hashed again) fewer, deleting it at zero; a key not
    /// stored is left alone (the FIFO and the dictionary agree, so it never is).
    #[inline(always)]
    pub(crate) fn remove_one(&mut self, key: &K, hash: u64) {
        let t = &mut self.table;
        let Probe::Found(i) = Self::probe(t, key, hash) else {
            return;
        };
        if let Some(e) = &mut t.cell_mut(i).0 {
            match NonZeroU64::new(e.slot.count.get() - 1) {
                Some(c) => e.slot.count = c,
                None => {
                    t.remove(i, hash_of);
                }
            }
        }
    }

    /// Empties the table, keeping its cells.
    pub(crate) fn clear(&mut self) {
        self.table.clear();
    }

    /// The stored keys, in cell order.
    pub(crate) fn keys(&self) -> impl Iterator<Item = &K> {
        self.table
            .entries()
            .filter_map(|c| c.0.as_ref().map(|e| &e.key))
    }

    /// Cells of the table (for tests).
    #[cfg(test)]
    fn cells(&self) -> usize {
        self.table.cells()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ddf_hash::MixState;
    use proptest::prelude::*;
    use std::collections::HashMap;

    proptest! {
        /// Adds and removes, against a `HashMap` model; few keys, so runs
        /// are long and wrap.
        #[test]
        fn matches_a_map(ops in prop::collection::vec((any::<bool>(), 0u64..24), 0..500)) {
            let mut d = Dict::with_hasher(MixState, usize::MAX);
            let mut model: HashMap<u64, u64> = HashMap::new();
            let mut peak = 0;
            for (t, &(add, key)) in ops.iter().enumerate() {
                if add || !model.contains_key(&key) {
                    let h = d.hash(&key);
                    prop_assert_eq!(d.add(key, h, t as u64), model.contains_key(&key));
                    *model.entry(key).or_insert(0) += 1;
                } else {
                    d.remove_one(&key, d.hash(&key));
                    let e = model.get_mut(&key).unwrap();
                    *e -= 1;
                    if *e == 0 {
                        model.remove(&key);
                    }
                }
                prop_assert_eq!(d.len(), model.len());
                // Doubling happens at load 1/2: under four cells per key held at the peak.
                peak = peak.max(model.len());
                prop_assert!(d.cells() <= 8.max(4 * peak));
                for (k, &c) in &model {
                    prop_assert_eq!(d.get(k).map(|s| s.count.get()), Some(c));
                }
            }
            let mut keys: Vec<u64> = d.keys().copied().collect();
            keys.sort_unstable();
            let mut want: Vec<u64> = model.keys().copied().collect();
            want.sort_unstable();
            prop_assert_eq!(keys, want);
        }
    }

    /// A window's table stops at `2·(n − 1)` cells and holds its `n` keys
    /// there, as a count window of `w = n − 1` needs.
    #[test]
    fn a_bounded_table_stops_at_its_final_size() {
        for (most, cells) in [
            (1, 8),
            (5, 8),
            (7, 16),
            (9, 16),
            (4097, 8192),
            (5000, 16384),
        ] {
            let mut d = Dict::with_hasher(MixState, most);
            for k in 0..most as u64 {
                prop_assert_add(&mut d, k);
            }
            assert_eq!((d.len(), d.cells()), (most, cells), "n = {most}");
            // Keys still all found, and a window's churn keeps the size.
            for k in 0..most as u64 {
                assert!(d.get(&k).is_some());
                d.remove_one(&k, d.hash(&k));
                prop_assert_add(&mut d, k + most as u64);
            }
            assert_eq!((d.len(), d.cells()), (most, cells));
        }

        fn prop_assert_add(d: &mut Dict<u64, MixState>, k: u64) {
            let h = d.hash(&k);
            assert!(!d.add(k, h, 0));
        }
    }

    #[test]
    fn digest_cells_are_half_a_line() {
        assert_eq!(std::mem::size_of::<Cell<ddf_core::Digest>>(), 32);
        assert_eq!(std::mem::align_of::<Cell<ddf_core::Digest>>(), 32);
    }

    #[test]
    fn an_empty_table_answers() {
        let mut d: Dict<u64, MixState> = Dict::with_hasher(MixState, usize::MAX);
        assert!(d.get(&3).is_none());
        d.remove_one(&3, d.hash(&3));
        d.prefetch(d.hash(&3));
        assert_eq!(d.len(), 0);
    }
}
