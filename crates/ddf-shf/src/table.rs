//! The SHF's counting dictionary `D` (Algorithm 1): each stored hash and its
//! number of occurrences in the ring, in one open-addressing table.
//!
//! A cell packs a hash `x` (`h` bits) and its count `c` (`1..=w + 1`) as
//! the integer `x·2^b + c`, where `b` bits hold `w + 1`; 0 is an empty cell. A cell is
//! a `u64` when `h + b ≤ 64` and a `u128` otherwise, so one probe reads the
//! hash and its count from one cache line, and counting up or down is one
//! integer addition.
//!
//! The table is a [`ddf_bits::LinearTable`]: linear probing with
//! backward-shift deletion (no tombstones:
//! the SHF deletes on almost every insertion once its window is full, and
//! tombstones would lengthen every probe). The table has `2^k` cells and a
//! hash's home cell is its own top `k` bits (the digest's top bits, as the
//! hash is), so the home of an item is known from its digest alone, before
//! the probe, which is what the batch path prefetches; wrapping is a mask.
//!
//! Its size is fixed at construction: at most `n = min(w + 1, 2^h)`
//! distinct hashes are ever stored (the ring's `w` and the new one, counted
//! before the oldest leaves, the table's load bound), and `2^k` is the least power of two of at least
//! `2·(n − 1)` cells and 4, so the load stays about 1/2 and a probe always
//! ends at an empty cell.

use ddf_bits::{LinearTable, Probe, TableCell};
use ddf_core::ParamError;
use std::fmt::Debug;

/// An integer cell `x·2^b + c` of the table.
pub(crate) trait Cell: Copy + Eq + Debug + TableCell {
    /// The empty cell, 0.
    const EMPTY: Self;
    /// The cell of hash `key` with count 1.
    fn first(key: u64, shift: u32) -> Self;
    /// The stored hash.
    fn key(self, shift: u32) -> u64;
    /// Whether the count is exactly 1.
    fn is_single(self, shift: u32) -> bool;
    /// The count plus one (the count never reaches `2^b`).
    fn up(self) -> Self;
    /// The count minus one (only for counts of at least 2).
    fn down(self) -> Self;
}

macro_rules! int_cell {
    ($t:ty) => {
        impl Cell for $t {
            const EMPTY: Self = 0;
            #[inline(always)]
            fn first(key: u64, shift: u32) -> Self {
                (<$t>::from(key) << shift) | 1
            }
            #[inline(always)]
            fn key(self, shift: u32) -> u64 {
                // The hash fits in 64 bits by construction.
                (self >> shift) as u64
            }
            #[inline(always)]
            fn is_single(self, shift: u32) -> bool {
                self & ((1 << shift) - 1) == 1
            }
            #[inline(always)]
            fn up(self) -> Self {
                self + 1
            }
            #[inline(always)]
            fn down(self) -> Self {
                self - 1
            }
        }
    };
}
int_cell!(u64);
int_cell!(u128);

/// Bits that hold a count of `1..=w + 1`: the SHF counts the new hash
/// before the oldest leaves the ring, so `w + 1` occurrences are counted at
/// once.
fn count_bits(window: u64) -> u32 {
    64 - (window + 1).leading_zeros()
}

/// Cells of the table for `window` and `hash_bits`: the power of two of at
/// least `2·(n − 1)` (and 4) for the `n = min(w + 1, 2^h)` distinct hashes
/// it holds at once (the ring's and the one being inserted): load at most
/// about 1/2, so a deletion's backward shift walks about two cells (at 2/3
/// it walked five), and always below 1.
fn cells_for(window: u64, hash_bits: u32) -> u64 {
    let n = max_stored(window, hash_bits) as u64;
    // The `w + 1`-th hash is there only between counting the new hash and
    // uncounting the oldest, so sizing for `n − 1` keeps a power-of-two
    // window at `2·w` cells, not `4·w`; at least 4 cells keep one empty
    // for `n ≤ 3`. `w < 2^32`, so nothing overflows.
    (2 * (n - 1)).next_power_of_two().max(4)
}

/// The most distinct hashes stored at once, `n = min(w + 1, 2^h)`: the
/// ring's `w` and the new one, counted before the oldest leaves.
fn max_stored(window: u64, hash_bits: u32) -> usize {
    // `w < 2^32`, so this fits a `usize` on 64-bit targets (and the state
    // check refuses windows that do not on smaller ones).
    if hash_bits >= 64 {
        window as usize + 1
    } else {
        (window + 1).min(1 << hash_bits) as usize
    }
}

/// Whether the cells are `u64` (else `u128`).
pub(crate) fn is_narrow(window: u64, hash_bits: u32) -> bool {
    hash_bits + count_bits(window) <= 64
}

/// The table's size rule: its cells within the state limit (parameters
/// already checked by the ring's rule).
pub(crate) fn check(window: u64, hash_bits: u32) -> Result<(), ParamError> {
    let width = if is_narrow(window, hash_bits) {
        64
    } else {
        128
    };
    ddf_param::state_words(
        "window",
        ddf_param::checked_mul("window", cells_for(window, hash_bits), width)?,
    )?;
    Ok(())
}

/// The count table: a [`LinearTable`] of packed cells, with the cell
/// layout and the hash's alignment; see the module docs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Table<C> {
    cells: LinearTable<C>,
    /// `b`: where the hash starts in a cell.
    shift: u32,
    /// `64 − h`: aligns a hash to the top of a word, where the table takes
    /// the home from.
    align: u32,
}

impl<C: Cell> Table<C> {
    /// An empty table for `window` hashes of `hash_bits` bits (checked by
    /// [`check`], so the sizes are in range).
    pub(crate) fn new(window: u64, hash_bits: u32) -> Result<Self, ParamError> {
        let n = cells_for(window, hash_bits);
        Ok(Table {
            // The most hashes stored at once, `min(w + 1, 2^h)`, below the
            // cells by `cells_for`.
            cells: LinearTable::new(n.trailing_zeros(), max_stored(window, hash_bits), C::EMPTY)?,
            shift: count_bits(window),
            align: 64 - hash_bits,
        })
    }

    /// The hash the table homes `key` by: `key` at the top of a word.
    #[inline(always)]
    fn aligned(&self, key: u64) -> u64 {
        key << self.align
    }

    /// Where `key` is, or the empty cell that ends its probe.
    #[inline(always)]
    fn probe(&self, key: u64) -> Probe {
        let shift = self.shift;
        self.cells.find(self.aligned(key), |c| c.key(shift) == key)
    }

    /// Asks the cache for the line of `key`'s home cell.
    #[inline(always)]
    pub(crate) fn prefetch(&self, key: u64) {
        self.cells.prefetch(self.aligned(key));
    }

    /// Whether `key` is stored.
    #[inline]
    pub(crate) fn contains(&self, key: u64) -> bool {
        matches!(self.probe(key), Probe::Found(_))
    }

    /// Counts one more occurrence of `key`; returns whether it was stored
    /// before. One probe serves the lookup and the insertion.
    #[inline]
    pub(crate) fn add(&mut self, key: u64) -> bool {
        let (shift, align) = (self.shift, self.align);
        match self.probe(key) {
            Probe::Found(i) => {
                let c = self.cells.cell_mut(i);
                *c = c.up();
                true
            }
            Probe::Vacant(i) => {
                // Never doubles: at most `max_stored` hashes are counted.
                self.cells
                    .fill(i, C::first(key, shift), |c| c.key(shift) << align);
                false
            }
        }
    }

    /// Counts one occurrence of `key` fewer, deleting it at zero. A key not
    /// stored is left alone (the ring and the table agree, so it never is).
    #[inline]
    pub(crate) fn remove_one(&mut self, key: u64) {
        let (shift, align) = (self.shift, self.align);
        if let Probe::Found(i) = self.probe(key) {
            let c = self.cells.cell_mut(i);
            if c.is_single(shift) {
                // The hash is in the cell: rehoming a moved cell is a shift.
                self.cells.remove(i, |c| c.key(shift) << align);
            } else {
                *c = c.down();
            }
        }
    }

    pub(crate) fn clear(&mut self) {
        self.cells.clear();
    }

    /// Stored keys and their counts, in cell order (for tests).
    #[cfg(test)]
    pub(crate) fn entries(&self) -> Vec<(u64, u64)> {
        self.cells
            .entries()
            .map(|&c| {
                let mut n = 1;
                let mut d = c;
                while !d.is_single(self.shift) {
                    d = d.down();
                    n += 1;
                }
                (c.key(self.shift), n)
            })
            .collect()
    }

    /// Cells of the table (for tests).
    #[cfg(test)]
    pub(crate) fn cells(&self) -> usize {
        self.cells.cells()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    /// Adds and removes as the SHF does, against a `HashMap` model.
    fn replay<C: Cell>(window: u64, hash_bits: u32, ops: &[(bool, u64)]) {
        let mut t = Table::<C>::new(window, hash_bits).unwrap();
        let mut model: HashMap<u64, u64> = HashMap::new();
        let mask = if hash_bits == 64 {
            u64::MAX
        } else {
            (1 << hash_bits) - 1
        };
        for &(add, raw) in ops {
            let key = raw & mask;
            if add || !model.contains_key(&key) {
                // The SHF counts at most `w + 1` occurrences at once.
                if model.values().sum::<u64>() > window {
                    continue;
                }
                assert_eq!(t.add(key), model.contains_key(&key));
                *model.entry(key).or_insert(0) += 1;
            } else {
                t.remove_one(key);
                let e = model.get_mut(&key).unwrap();
                *e -= 1;
                if *e == 0 {
                    model.remove(&key);
                }
            }
            for k in model.keys() {
                assert!(t.contains(*k));
            }
        }
        let mut got = t.entries();
        got.sort_unstable();
        let mut want: Vec<(u64, u64)> = model.into_iter().collect();
        want.sort_unstable();
        assert_eq!(got, want);
    }

    proptest! {
        #[test]
        fn narrow_table_matches_a_map(ops in prop::collection::vec((any::<bool>(), 0u64..40), 0..400)) {
            replay::<u64>(24, 6, &ops);
        }

        #[test]
        fn wide_table_matches_a_map(ops in prop::collection::vec((any::<bool>(), any::<u64>()), 0..400)) {
            replay::<u128>(50, 64, &ops);
        }

        #[test]
        fn clustered_keys_survive_deletion(ops in prop::collection::vec((any::<bool>(), 0u64..8), 0..300)) {
            // Eight keys in a table of 16 cells, nine occurrences: long runs that wrap.
            replay::<u64>(8, 3, &ops);
        }
    }

    #[test]
    fn cell_layout() {
        // `2^20 + 1` occurrences need 21 bits.
        assert!(is_narrow(1 << 20, 43));
        assert!(!is_narrow(1 << 20, 44));
        assert!(is_narrow((1 << 20) - 2, 44));
        assert_eq!(cells_for(1000, 64), 2048);
        assert_eq!(cells_for(1000, 4), 32);
        // A window of one holds its hash and the new one at once.
        assert_eq!(cells_for(1, 64), 4);
        assert_eq!(cells_for(2, 64), 4);
        // The L2 benchmark's window: 2·w cells, not 4·w.
        assert_eq!(cells_for(1 << 14, 25), 1 << 15);
        assert_eq!(Table::<u64>::new(1 << 14, 25).unwrap().cells(), 1 << 15);
        assert_eq!(count_bits(1), 2);
        let c = u64::first(0b101, 11);
        assert_eq!((c.key(11), c.up().down()), (0b101, c));
        assert!(c.is_single(11) && !c.up().is_single(11));
    }
}
