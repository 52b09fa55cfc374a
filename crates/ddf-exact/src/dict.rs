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
//! The table doubles when an insertion would take its load above 3/8, so a
//! probe for a missing key walks about 1.8 cells (Knuth's
//! `(1 + 1/(1 − α)²)/2`; 2.5 at load 1/2), and the table never holds more
//! than 16/3 cells per key it ever held at once: a window of `n` keys at once
//! (`w + 1` for a count window, whose new key is counted before the oldest
//! leaves; a time window's `capacity`) keeps between 8n/3 and 16n/3 cells.
//! At 32 bytes a cell, a cache line holds two, so the longer walks of load
//! 1/2 cost more than the memory saved: at `w = 4096` (L2, SipHash-1-3, load
//! ≈ 1) 57.3 ns per `observe` at load 1/2 against 41.7 at 1/4
//! (`docs/performance.md`).

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
}

/// The hash of a cell (0 for an empty one, which the table never asks).
#[inline(always)]
fn hash_of<K>(c: &Cell<K>) -> u64 {
    c.0.as_ref().map_or(0, |e| e.hash)
}

impl<K: Hash + Eq + Clone, S: BuildHasher> Dict<K, S> {
    /// An empty dictionary.
    pub(crate) fn with_hasher(hasher: S) -> Self {
        Dict {
            table: LinearTable::small(Cell(None), MaxLoad::ThreeEighths),
            hasher,
        }
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
            Probe::Vacant(i) => {
                let slot = Slot {
                    count: NonZeroU64::MIN,
                    latest: now,
                };
                t.fill(i, Cell(Some(Entry { key, hash, slot })), hash_of);
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
            let mut d = Dict::with_hasher(MixState);
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
                // Doubling happens past load 3/8: under 16/3 cells per key
                // held at the peak.
                peak = peak.max(model.len());
                prop_assert!(3 * d.cells() <= 24.max(16 * peak));
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

    /// A window of `n` keys at once ends at the least power of two (at
    /// least 8) of cells whose 3/8 holds `n`, and its churn keeps that size.
    #[test]
    fn a_window_table_stays_at_load_three_eighths() {
        for (most, cells) in [
            (1, 8),
            (3, 8),
            (5, 16),
            (7, 32),
            (9, 32),
            (4097, 16384),
            (5000, 16384),
        ] {
            let mut d = Dict::with_hasher(MixState);
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
        let mut d: Dict<u64, MixState> = Dict::with_hasher(MixState);
        assert!(d.get(&3).is_none());
        d.remove_one(&3, d.hash(&3));
        d.prefetch(d.hash(&3));
        assert_eq!(d.len(), 0);
    }
}
