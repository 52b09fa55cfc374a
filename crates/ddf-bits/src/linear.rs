//! [`LinearTable`]: open addressing with linear probing, a home cell taken
//! from the top bits of a hash, and deletion by backward shift, the
//! dictionary of the exact window, the exact set and the Short Hash Filter.
//!
//! # Layout
//!
//! The table has `2^k` cells. A cell is either the table's *empty* value
//! (given at construction: 0 for integer cells, `None` for options, any
//! reserved key for a set) or an entry, which the caller defines: a key and
//! whatever payload travels with it (a count, a timestamp, a stored hash).
//! The table never looks inside an entry; operations that need to know an
//! entry's key or hash take it as a closure.
//!
//! An entry's *home* is the top `k` bits of its 64-bit hash. Taking the top
//! bits (not `hash mod 2^k`) means the home of an item is known from its
//! hash alone, before any probe, so a batch can prefetch the home lines of
//! the next items while it probes this one; and a hash's home in a table of
//! twice the size is `2·home` or `2·home + 1`, which keeps tables that grow
//! (or split) in hash order.
//!
//! # Invariants
//!
//! - **Run order.** An entry sits at its home or after it, and every cell
//!   from its home up to it (wrapping at the end) holds an entry. So a probe
//!   walks from the home and stops at the entry or at the first empty cell,
//!   which proves the key absent and is where it would go.
//! - **Load bound.** At most `max_len` entries, and `max_len < 2^k`, so at
//!   least one cell is empty and every probe ends. A table sized for its
//!   worst case never reaches it; one that would exceed it doubles first
//!   ([`LinearTable::fill`]), keeping the ratio `max_len / 2^k`. At load `α`
//!   a probe for a missing key walks about `(1 + 1/(1 − α)²)/2` cells
//!   (Knuth), so the bound is the caller's trade of memory for probe length.
//! - **No tombstones.** Deleting an entry must not cut the run of a later
//!   entry from its home. Instead of marking the cell deleted (a tombstone,
//!   which every later probe would walk over, and which a filter that deletes
//!   once per insertion would fill its table with), [`LinearTable::remove`]
//!   walks on to the end of the run and moves back each entry whose home is
//!   not between the hole and itself, into the hole, which moves on to where
//!   that entry was. When the run ends, the hole is emptied; run order holds
//!   again. The walk needs each later entry's home, so an entry that cannot
//!   give its hash cheaply should store it (or the bits of it the home uses).
//!
//! Distances along the probe order wrap with a mask, so no operation
//! divides. Tables of 8 MiB and more ask for huge pages
//! ([`pages::filled_vec`](crate::pages::filled_vec)): a probe is a random
//! access, and with 4 KiB pages each one would also miss the TLB.

use crate::ParamError;

/// A cell of a [`LinearTable`]: an entry, or the table's empty value.
///
/// The table asks only whether a cell is empty, so this is the one thing a
/// cell type tells it: for integers and bare keys, equality with the
/// table's empty value; for an `Option`, `is_none`, which needs no look at
/// the empty value at all.
pub trait TableCell: Clone {
    /// Whether this cell is empty, given the table's empty value.
    fn is_vacant(&self, empty: &Self) -> bool;
}

macro_rules! int_cells {
    ($($t:ty),*) => {$(
        impl TableCell for $t {
            #[inline(always)]
            fn is_vacant(&self, empty: &Self) -> bool {
                self == empty
            }
        }
    )*};
}
int_cells!(u8, u16, u32, u64, u128);

impl<T: Clone> TableCell for Option<T> {
    #[inline(always)]
    fn is_vacant(&self, _: &Self) -> bool {
        self.is_none()
    }
}

/// Where a probe ended: at the key's entry, or at the empty cell that proves
/// it absent (where it would be inserted).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Probe {
    /// The key is in this cell.
    Found(usize),
    /// The key is absent; this empty cell ends its run.
    Vacant(usize),
}

/// An open-addressing table with linear probing; see the module docs.
#[derive(Debug, PartialEq, Eq)]
pub struct LinearTable<C> {
    cells: Vec<C>,
    /// The value of an empty cell.
    empty: C,
    /// Entries stored.
    len: usize,
    /// The most entries stored before the table doubles (`< 2^k`).
    max_len: usize,
    /// `64 − k`: the shift that leaves a hash's top `k` bits.
    home_shift: u32,
}

/// A clone of 8 MiB or more is advised for huge pages, as the original was
/// ([`pages::copied_vec`](crate::pages::copied_vec)): probes land at random,
/// so a copy on 4 KiB pages would miss the TLB where the original does not.
impl<C: Clone> Clone for LinearTable<C> {
    fn clone(&self) -> Self {
        LinearTable {
            cells: crate::pages::copied_vec(&self.cells),
            empty: self.empty.clone(),
            len: self.len,
            max_len: self.max_len,
            home_shift: self.home_shift,
        }
    }
}

/// A load bound for [`LinearTable::small`]: the most entries per cell,
/// kept as the table doubles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaxLoad {
    /// 3/8: a missing key's probe walks about 1.8 cells.
    ThreeEighths,
    /// 1/2: about 2.5 cells.
    Half,
    /// 3/4: about 8.5 cells.
    ThreeQuarters,
    /// 7/8: about 32.5 cells.
    SevenEighths,
}

impl MaxLoad {
    /// Entries allowed in 8 cells.
    const fn of_eight(self) -> usize {
        match self {
            MaxLoad::ThreeEighths => 3,
            MaxLoad::Half => 4,
            MaxLoad::ThreeQuarters => 6,
            MaxLoad::SevenEighths => 7,
        }
    }
}

/// The most cells a table may have, `2^40`: far beyond any state `ddf`
/// allows (`ddf_param::MAX_STATE_BITS`), and small enough that cell
/// indices and byte sizes never overflow.
pub const MAX_CELLS_LOG2: u32 = 40;

impl<C: TableCell> LinearTable<C> {
    /// An empty table of `2^cells_log2` cells, each `empty`, holding at
    /// most `max_len` entries before it doubles. Fails unless
    /// `1 ≤ cells_log2 ≤ 40` and `1 ≤ max_len < 2^cells_log2` (one cell
    /// always stays empty).
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_bits::{LinearTable, Probe};
    ///
    /// // Eight cells of `Option<(key, payload)>`, at most six entries.
    /// let mut t = LinearTable::new(3, 6, None)?;
    /// let (key, hash) = (42u64, 0xA000_0000_0000_0000u64);
    /// let Probe::Vacant(i) = t.find(hash, |c: &Option<(u64, &str)>| c.is_some_and(|e| e.0 == key))
    /// else { unreachable!() };
    /// t.fill(i, Some((key, "answer")), |_| hash);
    /// assert_eq!(t.find(hash, |c| c.is_some_and(|e| e.0 == key)), Probe::Found(5));
    /// assert!(LinearTable::new(3, 8, 0u64).is_err());
    /// # Ok::<(), ddf_bits::ParamError>(())
    /// ```
    pub fn new(cells_log2: u32, max_len: usize, empty: C) -> Result<Self, ParamError> {
        if !(1..=MAX_CELLS_LOG2).contains(&cells_log2) {
            return Err(ParamError::new(
                "cells_log2",
                cells_log2,
                format!("1..={MAX_CELLS_LOG2}"),
            ));
        }
        let cells = 1usize << cells_log2;
        if max_len == 0 || max_len >= cells {
            return Err(ParamError::new(
                "max_len",
                max_len,
                format!("1..{cells} (fewer entries than the {cells} cells)"),
            ));
        }
        Ok(LinearTable {
            cells: crate::pages::filled_vec(cells, empty.clone()),
            empty,
            len: 0,
            max_len,
            home_shift: 64 - cells_log2,
        })
    }

    /// An empty table of 8 cells, each `empty`, at load bound `load`: the
    /// start of a table that grows.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_bits::{LinearTable, MaxLoad};
    ///
    /// let t = LinearTable::small(0u64, MaxLoad::ThreeQuarters);
    /// assert_eq!((t.cells(), t.max_len()), (8, 6));
    /// ```
    pub fn small(empty: C, load: MaxLoad) -> Self {
        LinearTable {
            cells: vec![empty.clone(); 8],
            empty,
            len: 0,
            max_len: load.of_eight(),
            home_shift: 61,
        }
    }

    /// An empty table of the same cells, load bound and empty value.
    pub fn empty_like(&self) -> Self {
        LinearTable {
            cells: crate::pages::filled_vec(self.cells.len(), self.empty.clone()),
            empty: self.empty.clone(),
            len: 0,
            max_len: self.max_len,
            home_shift: self.home_shift,
        }
    }

    /// Entries stored.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no entry is stored.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Cells, `2^k`.
    #[inline]
    pub fn cells(&self) -> usize {
        self.cells.len()
    }

    /// The most entries stored before the table doubles.
    #[inline]
    pub fn max_len(&self) -> usize {
        self.max_len
    }

    /// Whether one more entry would exceed the load bound (and
    /// [`fill`](Self::fill) would double the table first).
    #[inline]
    pub fn is_full(&self) -> bool {
        self.len >= self.max_len
    }

    /// The value of an empty cell.
    #[inline]
    pub fn empty(&self) -> &C {
        &self.empty
    }

    /// The home cell of `hash`: its top `k` bits.
    #[inline(always)]
    pub fn home(&self, hash: u64) -> usize {
        (hash >> self.home_shift) as usize
    }

    #[inline(always)]
    fn mask(&self) -> usize {
        self.cells.len() - 1
    }

    /// Asks the cache for the line of `hash`'s home cell, to be written soon.
    #[inline(always)]
    pub fn prefetch(&self, hash: u64) {
        crate::prefetch::prefetch_write(&self.cells, self.home(hash));
    }

    /// Walks from `hash`'s home to the entry `is_key` accepts, or to the
    /// first empty cell. `is_key` sees only entries.
    #[inline(always)]
    pub fn find(&self, hash: u64, mut is_key: impl FnMut(&C) -> bool) -> Probe {
        let mask = self.mask();
        let mut i = self.home(hash);
        loop {
            let c = &self.cells[i];
            if c.is_vacant(&self.empty) {
                return Probe::Vacant(i);
            }
            if is_key(c) {
                return Probe::Found(i);
            }
            i = (i + 1) & mask;
        }
    }

    /// The cell at index `i` (panics out of range, as a slice does).
    #[inline(always)]
    pub fn cell(&self, i: usize) -> &C {
        &self.cells[i]
    }

    /// The entry at index `i`, to update its payload. The caller keeps its
    /// key and hash (and does not empty it: use [`remove`](Self::remove)).
    #[inline(always)]
    pub fn cell_mut(&mut self, i: usize) -> &mut C {
        &mut self.cells[i]
    }

    /// Stores `entry` (of hash `hash_of(&entry)`) in the cell `vacant` that
    /// [`find`](Self::find) returned for it, with no change in between.
    /// When the table [`is_full`](Self::is_full), it doubles first
    /// (rehoming every entry by `hash_of`) and the entry goes to the end of
    /// its run there. Returns where the entry is.
    #[inline]
    pub fn fill(&mut self, vacant: usize, entry: C, hash_of: impl Fn(&C) -> u64) -> usize {
        if self.is_full() {
            self.double(&hash_of);
            return self.insert_new(hash_of(&entry), entry);
        }
        self.cells[vacant] = entry;
        self.len += 1;
        vacant
    }

    /// Stores `entry`, known absent, at the end of its run from `hash`'s
    /// home (no key comparisons). The caller keeps the load bound (see
    /// [`is_full`](Self::is_full)); the table never fills its last cell.
    fn insert_new(&mut self, hash: u64, entry: C) -> usize {
        let mask = self.mask();
        let mut i = self.home(hash);
        while !self.cells[i].is_vacant(&self.empty) {
            i = (i + 1) & mask;
        }
        self.cells[i] = entry;
        self.len += 1;
        i
    }

    /// Removes the entry at `i`, shifting later entries of its run back
    /// (see the module docs); `hash_of` gives an entry's hash. An empty
    /// cell is left alone.
    #[inline(always)]
    pub fn remove(&mut self, i: usize, hash_of: impl Fn(&C) -> u64) {
        if self.cells[i].is_vacant(&self.empty) {
            return;
        }
        let mask = self.mask();
        self.cells[i] = self.empty.clone();
        let mut hole = i;
        let mut j = (i + 1) & mask;
        while !self.cells[j].is_vacant(&self.empty) {
            let home = self.home(hash_of(&self.cells[j]));
            // Distances back to the entry's home and to the hole, along the
            // probe order: the hole is on the entry's path from its home
            // exactly when its home is no nearer than the hole.
            let moves = j.wrapping_sub(home) & mask >= j.wrapping_sub(hole) & mask;
            if size_of::<C>() <= 16 {
                // The entry moves into the hole, which moves on to where it
                // was; else the hole swaps with itself. A select, not a
                // branch: whether an entry moves is a coin toss the predictor
                // misses about one time in three (callgrind's simulation: 0.7
                // of the SHF's 3.1 mispredictions per observation).
                let to = std::hint::select_unpredictable(moves, j, hole);
                self.cells.swap(hole, to);
                hole = to;
            } else if moves {
                // A wide cell's swap with itself costs more than the missed
                // branch (measured on the exact window's 32-byte cells: 24
                // instructions more per observation).
                self.cells.swap(hole, j);
                hole = j;
            }
            j = (j + 1) & mask;
        }
        self.len -= 1;
    }

    /// Doubles the cells and the load bound, rehoming every entry by
    /// `hash_of`. The old cells are freed only after the new ones are
    /// filled, so the peak is three times the old cells.
    #[cold]
    pub fn double(&mut self, hash_of: impl Fn(&C) -> u64) {
        let n = 2 * self.cells.len();
        let old = std::mem::replace(
            &mut self.cells,
            crate::pages::filled_vec(n, self.empty.clone()),
        );
        self.home_shift -= 1;
        self.max_len *= 2;
        self.len = 0;
        for c in old {
            if !c.is_vacant(&self.empty) {
                self.insert_new(hash_of(&c), c);
            }
        }
    }

    /// Takes every entry out (in cell order), leaving the table empty with
    /// its cells; for a caller that moves entries to other tables.
    pub fn take_entries(&mut self) -> Vec<C> {
        let mut out = Vec::with_capacity(self.len);
        for c in &mut self.cells {
            if !c.is_vacant(&self.empty) {
                out.push(std::mem::replace(c, self.empty.clone()));
            }
        }
        self.len = 0;
        out
    }

    /// Stores entries known absent and distinct, each at the end of its run
    /// (no key comparisons), doubling as [`fill`](Self::fill) does.
    pub fn extend_new(
        &mut self,
        entries: impl IntoIterator<Item = C>,
        hash_of: impl Fn(&C) -> u64,
    ) {
        for e in entries {
            if self.is_full() {
                self.double(&hash_of);
            }
            self.insert_new(hash_of(&e), e);
        }
    }

    /// Empties every cell, keeping them.
    pub fn clear(&mut self) {
        self.cells.fill(self.empty.clone());
        self.len = 0;
    }

    /// The entries, in cell order.
    pub fn entries(&self) -> impl Iterator<Item = &C> {
        self.cells.iter().filter(move |c| !c.is_vacant(&self.empty))
    }

    /// The longest run's length in cells, and the mean distance of an entry
    /// from its home (a successful probe walks one more cell); for
    /// measuring a load bound.
    pub fn probe_stats(&self, hash_of: impl Fn(&C) -> u64) -> (usize, f64) {
        let mask = self.mask();
        let (mut longest, mut run, mut total) = (0, 0, 0usize);
        // Walk twice round so a run that wraps is counted whole.
        for j in 0..2 * self.cells.len() {
            let i = j & mask;
            if self.cells[i].is_vacant(&self.empty) {
                run = 0;
            } else {
                run += 1;
                longest = longest.max(run.min(self.cells.len()));
                if j < self.cells.len() {
                    total += i.wrapping_sub(self.home(hash_of(&self.cells[i]))) & mask;
                }
            }
        }
        (longest, total as f64 / self.len.max(1) as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ddf_hash::mix64;
    use proptest::prelude::*;
    use std::collections::HashMap;

    /// Entries of the model tests: key and payload.
    type Entry = Option<(u64, u32)>;

    /// Runs insert / remove / get operations against a `HashMap` model,
    /// checking every answer, `len`, the load bound and run order. `hash`
    /// maps a key to its hash; a narrow hash makes long, wrapping runs.
    fn replay(cells_log2: u32, max_len: usize, hash: fn(u64) -> u64, ops: &[(u8, u64, u32)]) {
        let mut t: LinearTable<Entry> = LinearTable::new(cells_log2, max_len, None).unwrap();
        let hash_of = |c: &Entry| c.map_or(0, |e| hash(e.0));
        let mut model: HashMap<u64, u32> = HashMap::new();
        let ratio = max_len as f64 / (1u64 << cells_log2) as f64;
        for &(op, key, payload) in ops {
            let h = hash(key);
            let probe = t.find(h, |c| c.is_some_and(|e| e.0 == key));
            match (op % 3, probe) {
                (0, Probe::Found(i)) => {
                    // Update the payload in place.
                    *t.cell_mut(i) = Some((key, payload));
                    model.insert(key, payload);
                }
                (0, Probe::Vacant(i)) => {
                    let at = t.fill(i, Some((key, payload)), hash_of);
                    assert_eq!(t.cell(at), &Some((key, payload)));
                    model.insert(key, payload);
                }
                (1, Probe::Found(i)) => {
                    assert_eq!(t.cell(i), &Some((key, model[&key])));
                    t.remove(i, hash_of);
                    model.remove(&key);
                }
                (_, p) => {
                    let got = match p {
                        Probe::Found(i) => t.cell(i).map(|e| e.1),
                        Probe::Vacant(i) => {
                            assert_eq!(t.cell(i), &None);
                            None
                        }
                    };
                    assert_eq!(got, model.get(&key).copied());
                }
            }
            assert_eq!(t.len(), model.len());
            assert!(t.len() <= t.max_len() && t.max_len() < t.cells());
            // Doubling keeps the bound's ratio.
            assert!(t.max_len() as f64 <= ratio * t.cells() as f64);
            assert_run_order(&t, hash_of);
        }
        let mut got: Vec<(u64, u32)> = t.entries().filter_map(|&e| e).collect();
        got.sort_unstable();
        let mut want: Vec<(u64, u32)> = model.into_iter().collect();
        want.sort_unstable();
        assert_eq!(got, want);
    }

    /// Every entry is reachable from its home through entries only.
    fn assert_run_order(t: &LinearTable<Entry>, hash_of: impl Fn(&Entry) -> u64) {
        let mask = t.cells() - 1;
        for i in 0..t.cells() {
            if t.cell(i).is_some() {
                let mut j = t.home(hash_of(t.cell(i)));
                while j != i {
                    assert!(t.cell(j).is_some(), "a hole between home and entry");
                    j = (j + 1) & mask;
                }
            }
        }
    }

    fn ops(keys: u64) -> impl Strategy<Value = Vec<(u8, u64, u32)>> {
        prop::collection::vec((any::<u8>(), 0..keys, any::<u32>()), 0..400)
    }

    proptest! {
        #[test]
        fn matches_a_map_with_spread_hashes(ops in ops(64)) {
            replay(4, 8, mix64, &ops);
        }

        #[test]
        fn matches_a_map_with_colliding_homes(ops in ops(40)) {
            // Only the top two bits vary: every run starts in one of four
            // homes, so runs are long and wrap past the end.
            replay(3, 6, |k| mix64(k) & (3 << 62), &ops);
        }

        #[test]
        fn matches_a_map_at_high_load(ops in ops(200)) {
            replay(5, 31, |k| mix64(k) | (1 << 63), &ops);
        }
    }

    #[test]
    fn bad_sizes_are_param_errors() {
        assert_eq!(
            LinearTable::new(0, 1, 0u8).unwrap_err().param(),
            "cells_log2"
        );
        assert_eq!(
            LinearTable::new(41, 1, 0u8).unwrap_err().param(),
            "cells_log2"
        );
        assert_eq!(LinearTable::new(2, 4, 0u8).unwrap_err().param(), "max_len");
        assert_eq!(LinearTable::new(2, 0, 0u8).unwrap_err().param(), "max_len");
    }

    /// A clone (huge-page advised when large) is the same table: a
    /// 2^20-cell table of `u64` (8 MiB, the advice's threshold) and a small one.
    #[test]
    fn clones_are_equal() {
        let hash_of = |c: &u64| mix64(*c);
        for cells_log2 in [3, 20] {
            let mut t = LinearTable::new(cells_log2, 1 << (cells_log2 - 1), 0u64).unwrap();
            t.extend_new(1..=4, hash_of);
            let u = t.clone();
            assert_eq!(u, t);
            assert!(matches!(u.find(mix64(3), |&c| c == 3), Probe::Found(_)));
        }
    }

    #[test]
    fn take_and_extend_move_entries() {
        let hash_of = |c: &u64| mix64(*c);
        let mut t = LinearTable::new(3, 4, 0u64).unwrap();
        let mut u = t.clone();
        t.extend_new(1..=10, hash_of);
        assert_eq!((t.len(), t.cells(), t.max_len()), (10, 32, 16));
        let mut got = t.take_entries();
        assert!(t.is_empty() && t.entries().next().is_none());
        got.sort_unstable();
        assert_eq!(got, (1..=10).collect::<Vec<_>>());
        u.extend_new(got, hash_of);
        assert!(matches!(u.find(mix64(7), |&c| c == 7), Probe::Found(_)));
        assert!(matches!(u.find(mix64(11), |&c| c == 11), Probe::Vacant(_)));
        let (longest, mean) = u.probe_stats(hash_of);
        assert!(longest >= 1 && mean >= 0.0);
        u.clear();
        assert!(u.is_empty() && u.entries().next().is_none());
        let v = t.empty_like();
        assert_eq!(
            (v.cells(), v.max_len(), v.len()),
            (t.cells(), t.max_len(), 0)
        );
        for (load, max) in [
            (MaxLoad::ThreeEighths, 3),
            (MaxLoad::Half, 4),
            (MaxLoad::ThreeQuarters, 6),
            (MaxLoad::SevenEighths, 7),
        ] {
            let s = LinearTable::small(0u8, load);
            assert_eq!((s.cells(), s.max_len(), s.home(u64::MAX)), (8, max, 7));
        }
    }
}
