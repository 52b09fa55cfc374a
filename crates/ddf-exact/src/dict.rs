//! The counting dictionary `D` of Theorem 1: key → (occurrences in the FIFO,
//! latest timestamp), in one open-addressing table.
//!
//! Linear probing over `2^k` cells, each holding a key, its count and its
//! latest timestamp, so one probe finds all three in one place. A key's home
//! cell is the top `k` bits of its hash (the `S` hasher, computed once per
//! operation), so the batch paths can prefetch the home of an item before
//! they reach it. Deletion shifts the rest of the run back (no tombstones:
//! a full window deletes once per insertion, and tombstones would lengthen
//! every later probe).
//!
//! The table doubles when an insertion would take its load above 1/2, so
//! it never holds more than twice the cells of the keys it ever held at
//! once: a window of `w` items (or `capacity`) stops growing at the least
//! power of two of at least `2·w` cells, and the unbounded set grows with
//! its distinct keys.

use std::hash::{BuildHasher, Hash};

/// What the dictionary keeps per key present in the window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Slot {
    /// Occurrences of the key in the FIFO (the counting dictionary's value).
    pub(crate) count: u64,
    /// Timestamp of the latest occurrence (time windows only).
    pub(crate) latest: u64,
}

/// A key and its slot.
#[derive(Debug, Clone)]
struct Bucket<K> {
    key: K,
    slot: Slot,
}

/// One cell, aligned to 32 bytes: for 8-byte keys it is exactly 32 bytes
/// (tag, key, count, timestamp), two to a cache line, and never straddles
/// two lines, so a probe and its prefetch are one line. (Storing the hash
/// too would spare rehashing in deletions, but makes 40-byte cells that
/// straddle lines; measured, the straddling cost more at DRAM size.)
#[derive(Debug, Clone)]
#[repr(align(32))]
struct Cell<K>(Option<Bucket<K>>);

/// The open-addressing dictionary; see the module docs.
#[derive(Debug, Clone)]
pub(crate) struct Dict<K, S> {
    cells: Vec<Cell<K>>,
    len: usize,
    /// `64 − k` for `2^k` cells (unused while there are none).
    home_shift: u32,
    hasher: S,
}

/// Cells of the first table.
const FIRST_CELLS: usize = 8;

impl<K: Hash + Eq, S: BuildHasher> Dict<K, S> {
    pub(crate) fn with_hasher(hasher: S) -> Self {
        Dict {
            cells: Vec::new(),
            len: 0,
            home_shift: 64,
            hasher,
        }
    }

    /// Distinct keys stored.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The key's hash under `S`, from which its home cell comes.
    #[inline(always)]
    pub(crate) fn hash(&self, key: &K) -> u64 {
        self.hasher.hash_one(key)
    }

    /// The home cell of a hash: its top `k` bits. The table has cells.
    #[inline(always)]
    fn home(&self, hash: u64) -> usize {
        (hash >> self.home_shift) as usize
    }

    #[inline(always)]
    fn mask(&self) -> usize {
        self.cells.len().wrapping_sub(1)
    }

    /// Where `key` (of hash `hash`) is, or the empty cell ending its probe;
    /// `None` while the table has no cells.
    #[inline(always)]
    fn probe(&self, key: &K, hash: u64) -> Option<(usize, bool)> {
        if self.cells.is_empty() {
            return None;
        }
        let mask = self.mask();
        let mut i = self.home(hash);
        loop {
            match &self.cells[i].0 {
                None => return Some((i, false)),
                Some(b) if b.key == *key => return Some((i, true)),
                Some(_) => i = (i + 1) & mask,
            }
        }
    }

    /// Asks the cache for the line of the home cell of a key of hash `hash`.
    #[inline(always)]
    pub(crate) fn prefetch(&self, hash: u64) {
        if !self.cells.is_empty() {
            ddf_bits::prefetch::prefetch_write(&self.cells, self.home(hash));
        }
    }

    /// The slot of `key`, if stored.
    #[inline]
    pub(crate) fn get(&self, key: &K) -> Option<&Slot> {
        self.get_hashed(key, self.hash(key))
    }

    /// The slot of `key` of hash `hash`, if stored.
    #[inline]
    pub(crate) fn get_hashed(&self, key: &K, hash: u64) -> Option<&Slot> {
        match self.probe(key, hash) {
            Some((i, true)) => self.cells[i].0.as_ref().map(|b| &b.slot),
            _ => None,
        }
    }

    /// Counts one occurrence of `key` at time `now`; returns whether it was
    /// stored before. One probe serves the lookup and the insertion (two
    /// when the table doubles first).
    #[inline]
    pub(crate) fn add(&mut self, key: K, hash: u64, now: u64) -> bool {
        if let Some((i, true)) = self.probe(&key, hash) {
            if let Some(b) = &mut self.cells[i].0 {
                b.slot.count += 1;
                b.slot.latest = now;
            }
            return true;
        }
        if 2 * (self.len + 1) > self.cells.len() {
            self.grow();
        }
        let slot = Slot {
            count: 1,
            latest: now,
        };
        if let Some((i, _)) = self.probe(&key, hash) {
            self.cells[i] = Cell(Some(Bucket { key, slot }));
            self.len += 1;
        }
        false
    }

    /// Counts one occurrence of `key` fewer, deleting it at zero; a key not
    /// stored is left alone (the FIFO and the dictionary agree, so it never is).
    #[inline]
    pub(crate) fn remove_one(&mut self, key: &K) {
        let Some((i, true)) = self.probe(key, self.hash(key)) else {
            return;
        };
        if let Some(b) = &mut self.cells[i].0 {
            b.slot.count -= 1;
            if b.slot.count == 0 {
                self.delete(i);
            }
        }
    }

    /// Empties cell `hole` and shifts later cells of its run back, so that
    /// every stored key stays reachable from its home.
    fn delete(&mut self, mut hole: usize) {
        let mask = self.mask();
        let mut i = (hole + 1) & mask;
        while let Some(b) = &self.cells[i].0 {
            let home = self.home(self.hash(&b.key));
            // The hole lies on the key's path from its home: move it back.
            if i.wrapping_sub(home) & mask >= i.wrapping_sub(hole) & mask {
                self.cells[hole].0 = self.cells[i].0.take();
                hole = i;
            }
            i = (i + 1) & mask;
        }
        self.cells[hole].0 = None;
        self.len -= 1;
    }

    /// Doubles the table (from [`FIRST_CELLS`]) and reinserts every key.
    #[cold]
    fn grow(&mut self) {
        let n = (2 * self.cells.len()).max(FIRST_CELLS);
        let old = std::mem::replace(&mut self.cells, (0..n).map(|_| Cell(None)).collect());
        self.home_shift = 64 - n.trailing_zeros();
        let mask = n - 1;
        for b in old.into_iter().filter_map(|c| c.0) {
            let mut i = self.home(self.hash(&b.key));
            while self.cells[i].0.is_some() {
                i = (i + 1) & mask;
            }
            self.cells[i] = Cell(Some(b));
        }
    }

    /// Empties the table, keeping its cells.
    pub(crate) fn clear(&mut self) {
        self.cells.iter_mut().for_each(|c| c.0 = None);
        self.len = 0;
    }

    /// The stored keys, in cell order.
    pub(crate) fn keys(&self) -> impl Iterator<Item = &K> {
        self.cells
            .iter()
            .filter_map(|c| c.0.as_ref())
            .map(|b| &b.key)
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
                    d.remove_one(&key);
                    let e = model.get_mut(&key).unwrap();
                    *e -= 1;
                    if *e == 0 {
                        model.remove(&key);
                    }
                }
                prop_assert_eq!(d.len(), model.len());
                // Doubling happens at load 1/2: under four cells per key held at the peak.
                peak = peak.max(model.len());
                prop_assert!(d.cells.len() <= FIRST_CELLS.max(4 * peak));
                for (k, &c) in &model {
                    prop_assert_eq!(d.get(k).map(|s| s.count), Some(c));
                }
            }
            let mut keys: Vec<u64> = d.keys().copied().collect();
            keys.sort_unstable();
            let mut want: Vec<u64> = model.keys().copied().collect();
            want.sort_unstable();
            prop_assert_eq!(keys, want);
        }
    }

    #[test]
    fn digest_cells_are_half_a_line() {
        assert_eq!(std::mem::size_of::<Cell<ddf_core::Digest>>(), 32);
        assert_eq!(std::mem::align_of::<Cell<ddf_core::Digest>>(), 32);
    }

    #[test]
    fn empty_table_answers_without_cells() {
        let mut d: Dict<u64, MixState> = Dict::with_hasher(MixState);
        assert!(d.get(&3).is_none());
        d.remove_one(&3);
        d.prefetch(d.hash(&3));
        assert!(d.is_empty());
    }
}
