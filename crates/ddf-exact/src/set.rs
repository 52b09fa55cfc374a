//! The unbounded exact set (`w = ∞`): every distinct key once, in as little
//! memory as an exact set of keys allows, growing with no peak.
//!
//! A set never forgets, so it needs no count, no timestamp and no deletion:
//! a cell is the key alone. Two cell forms, chosen once from the key type:
//!
//! - When `Option<K>` is no larger than `K` (references, `String`, boxes:
//!   types with a spare bit pattern), a cell is `Option<K>`, `None` empty.
//! - Otherwise (integers, [`Digest`](ddf_core::Digest)), a cell is a bare
//!   `K` and the *first key inserted* marks the empty cells. That key is
//!   kept beside the table and answered from there, so it needs no cell.
//!   An 8-byte key takes 8 bytes per cell, half of `Option<u64>`.
//!
//! The cells form an extendible hash table (Fagin et al., 1979): a
//! directory indexed by the top `d` bits of the hash points to segments,
//! each a [`LinearTable`] whose keys share the top `L ≤ d` bits (its local
//! depth); a segment homes a key by the hash bits after those `L`. A segment
//! at its load bound of 3/4 below [`SEGMENT_CELLS_LOG2`] doubles; one at
//! that size splits in two by the next hash bit (doubling the directory
//! when `L = d`). So the set never holds an old and a new copy of all its
//! keys at once: the peak is one segment above the steady state, and every
//! segment is between 3/8 and 3/4 full once there are several, which is at
//! most `size_of::<cell>() · 8/3` bytes per key (21.3 for 8-byte keys), plus
//! the directory's 4 bytes per 2¹⁶-cell segment.

use ddf_bits::{LinearTable, MaxLoad, Probe, TableCell};
use std::hash::{BuildHasher, Hash};

/// Cells of a full-grown segment, `2^16`: 512 KiB of 8-byte keys, so a
/// split moves little at once, and the directory stays small (a few
/// thousand entries at 10⁹ keys).
pub(crate) const SEGMENT_CELLS_LOG2: u32 = 16;

/// The deepest directory, `2^32` entries: beyond any set that fits memory
/// (2⁴⁸ cells), and below the 64 bits a hash has.
const MAX_DEPTH: u32 = 32;

/// Segments of an extendible hash table; see the module docs.
#[derive(Debug, Clone)]
struct Segments<C> {
    /// For each `d`-bit hash prefix, the index of its segment.
    dir: Vec<u32>,
    /// `d`: the directory's depth.
    depth: u32,
    /// The segments and their local depths `L`.
    segs: Vec<(LinearTable<C>, u32)>,
    /// Cells of a full-grown segment, `2^full_log2`
    /// ([`SEGMENT_CELLS_LOG2`]; smaller in tests, to split often).
    full_log2: u32,
}

impl<C: TableCell> Segments<C> {
    fn new(empty: C, full_log2: u32) -> Self {
        Segments {
            dir: vec![0],
            depth: 0,
            segs: vec![(LinearTable::small(empty, MaxLoad::ThreeQuarters), 0)],
            full_log2,
        }
    }

    /// The segment of `hash`: the directory entry of its top `d` bits.
    #[inline(always)]
    fn segment(&self, hash: u64) -> usize {
        // Two shifts, so that `d = 0` shifts by 64 without overflow.
        self.dir[((hash >> 1) >> (63 - self.depth)) as usize] as usize
    }

    #[inline(always)]
    fn prefetch(&self, hash: u64) {
        let (t, local) = &self.segs[self.segment(hash)];
        t.prefetch(hash << local);
    }

    #[inline(always)]
    fn contains(&self, hash: u64, is_key: impl FnMut(&C) -> bool) -> bool {
        let (t, local) = &self.segs[self.segment(hash)];
        matches!(t.find(hash << local, is_key), Probe::Found(_))
    }

    /// Inserts the entry `make()` unless `is_key` finds it; returns whether
    /// it was there. `hash_of` gives a stored entry's hash.
    #[inline]
    fn insert(
        &mut self,
        hash: u64,
        is_key: impl FnMut(&C) -> bool,
        make: impl FnOnce() -> C,
        hash_of: impl Fn(&C) -> u64,
    ) -> bool {
        let s = self.segment(hash);
        let (t, local) = &self.segs[s];
        let local = *local;
        let vacant = match t.find(hash << local, is_key) {
            Probe::Found(_) => return true,
            Probe::Vacant(i) => i,
        };
        if t.is_full() && t.cells() >= 1 << self.full_log2 && local < MAX_DEPTH {
            self.split(s, &hash_of);
            // The key's half is full only if every key went to it; then it
            // doubles (a 2^-49151 chance at full size with uniform hashes).
            let s = self.segment(hash);
            let (t, local) = &mut self.segs[s];
            let local = *local;
            t.extend_new([make()], |c| hash_of(c) << local);
            return false;
        }
        let (t, _) = &mut self.segs[s];
        // Below full size (or at the deepest directory) the segment doubles.
        t.fill(vacant, make(), |c| hash_of(c) << local);
        false
    }

    /// Splits segment `s` of local depth `L` by hash bit `L` (from the top).
    #[cold]
    fn split(&mut self, s: usize, hash_of: &impl Fn(&C) -> u64) {
        let local = self.segs[s].1;
        if local == self.depth {
            self.dir = (0..2 * self.dir.len()).map(|i| self.dir[i / 2]).collect();
            self.depth += 1;
        }
        let entries = self.segs[s].0.take_entries();
        let twin = self.segs.len() as u32;
        let mut high = self.segs[s].0.empty_like();
        let bit = 63 - local;
        let (low, high) = {
            let (mut lo, mut hi) = (Vec::new(), Vec::new());
            for e in entries {
                if hash_of(&e) >> bit & 1 == 0 {
                    lo.push(e);
                } else {
                    hi.push(e);
                }
            }
            high.extend_new(hi, |c| hash_of(c) << (local + 1));
            (lo, high)
        };
        let low_table = &mut self.segs[s];
        low_table.1 = local + 1;
        low_table.0.extend_new(low, |c| hash_of(c) << (local + 1));
        self.segs.push((high, local + 1));
        // Directory entries of the segment whose bit `L` is 1 move to the twin.
        let below = self.depth - local - 1;
        for (prefix, seg) in self.dir.iter_mut().enumerate() {
            if *seg == s as u32 && (prefix >> below) & 1 == 1 {
                *seg = twin;
            }
        }
    }

    fn entries(&self) -> impl Iterator<Item = &C> {
        self.segs.iter().flat_map(|(t, _)| t.entries())
    }

    /// Bytes of the cells, the directory and the segment records.
    fn bytes(&self) -> usize {
        let cells: usize = self.segs.iter().map(|(t, _)| t.cells()).sum();
        cells * size_of::<C>()
            + self.dir.len() * size_of::<u32>()
            + self.segs.len() * size_of::<(LinearTable<C>, u32)>()
    }
}

/// A bare key as a cell: empty when it equals the table's empty value, the
/// set's first key.
#[derive(Debug, Clone)]
struct Marked<K>(K);

impl<K: Clone + Eq> TableCell for Marked<K> {
    #[inline(always)]
    fn is_vacant(&self, empty: &Self) -> bool {
        self.0 == empty.0
    }
}

/// The cells, in the form the key type allows; see the module docs.
#[derive(Debug, Clone)]
enum Cells<K> {
    Niche(Segments<Option<K>>),
    /// The first key (the empty mark) and the cells, once a key arrived.
    Marked(Option<(K, Segments<Marked<K>>)>),
}

/// The exact set of keys; see the module docs.
#[derive(Debug, Clone)]
pub(crate) struct KeySet<K, S> {
    cells: Cells<K>,
    /// See [`Segments::full_log2`].
    full_log2: u32,
    len: usize,
    hasher: S,
}

impl<K: Hash + Eq + Clone, S: BuildHasher> KeySet<K, S> {
    pub(crate) fn with_hasher(hasher: S) -> Self {
        Self::with_segments(hasher, SEGMENT_CELLS_LOG2)
    }

    fn with_segments(hasher: S, full_log2: u32) -> Self {
        KeySet {
            cells: Self::fresh(full_log2),
            full_log2,
            len: 0,
            hasher,
        }
    }

    fn fresh(full_log2: u32) -> Cells<K> {
        if size_of::<Option<K>>() == size_of::<K>() {
            Cells::Niche(Segments::new(None, full_log2))
        } else {
            Cells::Marked(None)
        }
    }

    /// Distinct keys stored.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The key's hash under `S`.
    #[inline(always)]
    pub(crate) fn hash(&self, key: &K) -> u64 {
        self.hasher.hash_one(key)
    }

    /// Asks the cache for the line of the home cell of a key of hash `hash`.
    #[inline(always)]
    pub(crate) fn prefetch(&self, hash: u64) {
        match &self.cells {
            Cells::Niche(s) => s.prefetch(hash),
            Cells::Marked(Some((_, s))) => s.prefetch(hash),
            Cells::Marked(None) => {}
        }
    }

    /// Whether `key` of hash `hash` is stored.
    #[inline]
    pub(crate) fn contains_hashed(&self, key: &K, hash: u64) -> bool {
        match &self.cells {
            Cells::Niche(s) => s.contains(hash, |c| c.as_ref() == Some(key)),
            Cells::Marked(Some((first, s))) => first == key || s.contains(hash, |c| c.0 == *key),
            Cells::Marked(None) => false,
        }
    }

    /// Adds `key` of hash `hash`; returns whether it was stored before.
    #[inline]
    pub(crate) fn insert(&mut self, key: K, hash: u64) -> bool {
        let hasher = &self.hasher;
        let found = match &mut self.cells {
            Cells::Niche(s) => s.insert(
                hash,
                |c| c.as_ref() == Some(&key),
                || Some(key.clone()),
                |c| c.as_ref().map_or(0, |k| hasher.hash_one(k)),
            ),
            Cells::Marked(Some((first, s))) => {
                *first == key
                    || s.insert(
                        hash,
                        |c| c.0 == key,
                        || Marked(key.clone()),
                        |c| hasher.hash_one(&c.0),
                    )
            }
            Cells::Marked(marked @ None) => {
                *marked = Some((key.clone(), Segments::new(Marked(key), self.full_log2)));
                false
            }
        };
        self.len += usize::from(!found);
        found
    }

    /// Forgets every key and frees the cells.
    pub(crate) fn clear(&mut self) {
        self.cells = Self::fresh(self.full_log2);
        self.len = 0;
    }

    /// The stored keys, in no particular order.
    pub(crate) fn keys(&self) -> Vec<&K> {
        match &self.cells {
            Cells::Niche(s) => s.entries().filter_map(Option::as_ref).collect(),
            Cells::Marked(Some((first, s))) => std::iter::once(first)
                .chain(s.entries().map(|c| &c.0))
                .collect(),
            Cells::Marked(None) => Vec::new(),
        }
    }

    /// Bytes of the set's cells and directory (not the keys' own heap data).
    pub(crate) fn bytes(&self) -> usize {
        match &self.cells {
            Cells::Niche(s) => s.bytes(),
            Cells::Marked(Some((_, s))) => size_of::<K>() + s.bytes(),
            Cells::Marked(None) => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ddf_hash::MixState;
    use proptest::prelude::*;
    use std::collections::HashSet;

    /// Inserts into a set and a `HashSet` model, comparing every answer.
    /// Segments of 16 cells split after 12 keys: runs wrap and splits nest.
    fn replay<K: Hash + Eq + Clone + std::fmt::Debug>(keys: impl IntoIterator<Item = K>) {
        let mut set = KeySet::with_segments(MixState, 4);
        let mut model = HashSet::new();
        for k in keys {
            let h = set.hash(&k);
            assert_eq!(set.contains_hashed(&k, h), model.contains(&k));
            assert_eq!(set.insert(k.clone(), h), !model.insert(k.clone()));
            assert!(set.contains_hashed(&k, h));
            assert_eq!(set.len(), model.len());
        }
        assert_eq!(set.keys().len(), model.len());
        assert!(set.keys().into_iter().all(|k| model.contains(k)));
        let segs = match &set.cells {
            Cells::Niche(s) => s
                .segs
                .iter()
                .map(|(t, l)| (t.len(), t.max_len(), *l, s.depth))
                .collect(),
            Cells::Marked(Some((_, s))) => s
                .segs
                .iter()
                .map(|(t, l)| (t.len(), t.max_len(), *l, s.depth))
                .collect(),
            Cells::Marked(None) => Vec::new(),
        };
        for (len, max_len, local, depth) in segs {
            assert!(len <= max_len && local <= depth);
        }
    }

    proptest! {
        #[test]
        fn marked_cells_match_a_set(keys in prop::collection::vec(0u64..300, 0..600)) {
            replay(keys);
        }

        #[test]
        fn niche_cells_match_a_set(keys in prop::collection::vec(0u32..300, 0..600)) {
            replay(keys.into_iter().map(|k| k.to_string()));
        }
    }

    #[test]
    fn cell_forms_follow_the_key_type() {
        assert!(matches!(
            KeySet::<u64, _>::with_hasher(MixState).cells,
            Cells::Marked(None)
        ));
        assert!(matches!(
            KeySet::<&str, _>::with_hasher(MixState).cells,
            Cells::Niche(_)
        ));
    }

    /// Past many splits: every key found, segments within their load
    /// bounds, and under 8/3 cells per key.
    #[test]
    fn splits_keep_every_key_and_the_bound() {
        let n = 1_000_000u64;
        let mut set = KeySet::with_hasher(MixState);
        for k in 0..n {
            let h = set.hash(&k);
            assert!(!set.insert(k, h));
        }
        for k in (0..n).step_by(97) {
            assert!(set.contains_hashed(&k, set.hash(&k)));
            assert!(!set.contains_hashed(&(n + k), set.hash(&(n + k))));
        }
        let Cells::Marked(Some((_, s))) = &set.cells else {
            panic!("u64 keys use marked cells");
        };
        assert!(s.segs.len() > 16);
        let cells: usize = s.segs.iter().map(|(t, _)| t.cells()).sum();
        for (t, local) in &s.segs {
            assert!(t.len() <= t.max_len() && *local <= s.depth);
            assert_eq!(t.cells(), 1 << SEGMENT_CELLS_LOG2);
        }
        assert!((cells as f64) <= n as f64 * 8.0 / 3.0, "{cells} cells");
        // Probe lengths at load ≤ 3/4: Knuth's mean distance of a stored key
        // from its home is `(1/(1 − α) − 1)/2`, 1.5 cells at α = 3/4.
        let hash_of = |c: &Marked<u64>| MixState.hash_one(c.0);
        let (mut longest, mut total) = (0, 0.0);
        for (t, local) in &s.segs {
            let (run, mean) = t.probe_stats(|c| hash_of(c) << local);
            longest = longest.max(run);
            total += mean * t.len() as f64;
        }
        let mean = total / (n - 1) as f64;
        eprintln!("mean distance {mean:.3} cells, longest run {longest} cells");
        assert!(mean <= 1.5, "mean distance {mean}");
        assert!(set.bytes() as f64 / (n as f64) < 8.0 * 8.0 / 3.0 + 0.5);
        set.clear();
        assert_eq!((set.len(), set.bytes()), (0, 0));
    }
}
