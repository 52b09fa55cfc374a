//! One read of a row for a lookup followed by an insertion.
//!
//! A quotient filter's `observe` asks two things of the same row: does it
//! hold the fingerprint, and where is its first empty cell. Asked one after
//! the other ([`CellRows::find`], then [`CellRows::first_empty`]) they read
//! the row twice; [`CellRows::probe`] reads a row of one word once and
//! answers both from the same register.

use super::CellRows;
use crate::bit_array::{field, flip};
use crate::swar::Lanes;

/// What [`CellRows::probe`] found in a row: the first cell equal to the
/// sought value and the first empty cell, each if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RowProbe {
    /// The first cell equal to the sought value.
    pub found: Option<usize>,
    /// The first cell holding 0.
    pub empty: Option<usize>,
}

impl CellRows {
    /// [`find`](Self::find)`(r, value)` and [`first_empty`](Self::first_empty)`(r)`
    /// together. A row of at most 64 bits (`k · width ≤ 64`) is read once and
    /// both answers are taken from that one word; longer rows are searched
    /// twice, chunk by chunk.
    ///
    /// # Panics
    /// If `r >= rows`.
    // Always inlined: the caller keeps both answers in registers.
    #[inline(always)]
    #[must_use]
    pub fn probe(&self, r: u64, value: u32) -> RowProbe {
        if self.full_chunks != 0 {
            return RowProbe {
                found: self.find(r, value),
                empty: self.first_empty(r),
            };
        }
        let lanes = &self.last;
        let cells = self.bits().read_masked(self.row_offset(r), lanes.mask);
        let value = u64::from(value);
        // The broadcast of a value wider than a cell would spill into the
        // next lane; such a value is never found (as with `find`).
        let fits = value <= self.cell_mask();
        let found = lanes.zero_lanes(cells ^ value.wrapping_mul(lanes.lows))
            & u64::from(fits).wrapping_neg();
        let empty = lanes.zero_lanes(cells);
        RowProbe {
            found: (found != 0).then(|| self.lowest_lane(found)),
            empty: (empty != 0).then(|| self.lowest_lane(empty)),
        }
    }
}

/// A lookup of one value in one row, prepared once by
/// [`CellRows::search`] for several tables of the same shape (the
/// subfilters of a queue, which all derive the same row and value from an
/// item): [`CellRows::holds`] then costs each table one read and a few word
/// operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RowSearch {
    row: u64,
    value: u32,
    /// The row's first bit.
    offset: u64,
    /// The value in every lane of a one-word row.
    pattern: u64,
    /// All ones if the value fits a cell, else 0 (it is never found).
    fits: u64,
}

/// What [`CellRows::probe_then`] writes into the row it probed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RowWrite {
    /// Nothing: the row stays as it is.
    Keep,
    /// The value into cell `j` (which must be below `k`).
    Cell(usize),
    /// The value at cell 0, every cell moving one place toward cell `k − 1`
    /// and the last one falling out ([`CellRows::push_front`]).
    PushFront,
}

impl CellRows {
    /// Whether `other` has the same rows, cells per row and cell width, so
    /// that a [`RowSearch`] prepared by one serves the other.
    #[inline]
    #[must_use]
    pub fn same_shape(&self, other: &CellRows) -> bool {
        self.rows == other.rows && self.k == other.k && self.width == other.width
    }

    /// Prepares the lookup of `value` in row `r` for [`holds`](Self::holds)
    /// on this table or any of the [same shape](Self::same_shape).
    ///
    /// # Panics
    /// If `r >= rows`.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_bits::CellRows;
    ///
    /// let (mut a, b) = (CellRows::new(8, 4, 8)?, CellRows::new(8, 4, 8)?);
    /// a.set(3, 2, 42);
    /// let s = a.search(3, 42);
    /// assert!(a.holds(&s));
    /// assert!(!b.holds(&s));
    /// # Ok::<(), ddf_bits::ParamError>(())
    /// ```
    #[inline(always)]
    #[must_use]
    pub fn search(&self, r: u64, value: u32) -> RowSearch {
        let v = u64::from(value);
        RowSearch {
            row: r,
            value,
            offset: self.row_offset(r),
            pattern: v.wrapping_mul(self.last.lows),
            fits: u64::from(v <= self.cell_mask()).wrapping_neg(),
        }
    }

    /// Whether the row of `search` holds its value in this table:
    /// [`find`](Self::find)`(r, value).is_some()`. A search prepared by a
    /// table of another shape answers for an unspecified row, or panics.
    #[inline(always)]
    #[must_use]
    pub fn holds(&self, search: &RowSearch) -> bool {
        if self.full_chunks != 0 {
            return self.find(search.row, search.value).is_some();
        }
        let lanes = &self.last;
        let cells = self.bits().read_masked(search.offset, lanes.mask);
        lanes.zero_lanes(cells ^ search.pattern) & search.fits != 0
    }

    /// [`probe`](Self::probe) row `r` for `value`, then write `value` where
    /// `decide` says, given the probe: a lookup and its insertion with one
    /// read and at most one write of the words under a row of at most 64
    /// bits, and no second index computation. Longer rows take
    /// [`probe`](Self::probe) and then [`set`](Self::set) or
    /// [`push_front`](Self::push_front). Returns the probe.
    ///
    /// # Panics
    /// If `r >= rows`, or if `decide` returns a cell `j >= k`.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_bits::{CellRows, RowWrite};
    ///
    /// let mut rows = CellRows::new(8, 4, 8)?;
    /// // Store 7 in the first empty cell unless it is there already.
    /// let first_empty = |p: ddf_bits::RowProbe| match (p.found, p.empty) {
    ///     (None, Some(j)) => RowWrite::Cell(j),
    ///     _ => RowWrite::Keep,
    /// };
    /// assert_eq!(rows.probe_then(5, 7, first_empty).found, None);
    /// assert_eq!(rows.probe_then(5, 7, first_empty).found, Some(0));
    /// assert_eq!(rows.count_occupied(5), 1);
    /// # Ok::<(), ddf_bits::ParamError>(())
    /// ```
    // Always inlined: `decide` is the caller's insertion rule, and the row
    // word stays in a register from the read to the write.
    #[inline(always)]
    pub fn probe_then(
        &mut self,
        r: u64,
        value: u32,
        decide: impl FnOnce(RowProbe) -> RowWrite,
    ) -> RowProbe {
        if self.full_chunks != 0 {
            let probe = self.probe(r, value);
            match decide(probe) {
                RowWrite::Keep => {}
                RowWrite::Cell(j) => self.set(r, j, value),
                RowWrite::PushFront => {
                    self.push_front(r, value);
                }
            }
            return probe;
        }
        let offset = self.row_offset(r);
        let rule = OneWordRow {
            lanes: self.last,
            width: self.width,
            cell_mask: self.cell_mask(),
            recip: self.lane_recip,
            k: self.k,
            value: u64::from(value),
        };
        // Read, decide and write with the row in a register and the words
        // under it borrowed once (one bounds check). A row whose length
        // divides 64 never straddles two words: one load and one store.
        let mask = rule.lanes.mask;
        let bits = self.cells.bits_mut();
        if self.in_word {
            let (word, sh) = bits.word_at_mut(offset);
            let cells = (*word >> sh) & mask;
            let (probe, write) = rule.step(cells, decide);
            if let Some(new) = write {
                *word ^= ((new ^ cells) & mask) << sh;
            }
            probe
        } else {
            let (lo, hi, sh) = bits.words_at_mut(offset);
            let cells = field(*lo, *hi, sh) & mask;
            let (probe, write) = rule.step(cells, decide);
            if let Some(new) = write {
                flip(lo, hi, sh, (new ^ cells) & mask);
            }
            probe
        }
    }
}

/// What [`CellRows::probe_then`] needs of a row of at most 64 bits, copied
/// out of the table so that the step runs on registers.
#[derive(Clone, Copy)]
struct OneWordRow {
    lanes: Lanes,
    width: u32,
    cell_mask: u64,
    recip: u32,
    k: usize,
    /// The sought value (stored truncated to `cell_mask`).
    value: u64,
}

impl OneWordRow {
    /// Probes the row `cells` and returns the probe with the row `decide`
    /// asks for, if it asks for a write.
    #[inline(always)]
    fn step(
        self,
        cells: u64,
        decide: impl FnOnce(RowProbe) -> RowWrite,
    ) -> (RowProbe, Option<u64>) {
        let (lanes, value) = (self.lanes, self.value);
        let fits = value <= self.cell_mask;
        let found = lanes.zero_lanes(cells ^ value.wrapping_mul(lanes.lows))
            & u64::from(fits).wrapping_neg();
        let empty = lanes.zero_lanes(cells);
        let lane = |hits: u64| ((hits.trailing_zeros() * self.recip) >> 16) as usize;
        let probe = RowProbe {
            found: (found != 0).then(|| lane(found)),
            empty: (empty != 0).then(|| lane(empty)),
        };
        let value = value & self.cell_mask;
        let write = match decide(probe) {
            RowWrite::Keep => None,
            RowWrite::Cell(j) => {
                if j >= self.k {
                    crate::out_of_range("cell", j as u64, self.k as u64, "cells per row");
                }
                let shift = j as u32 * self.width;
                Some((cells & !(self.cell_mask << shift)) | value << shift)
            }
            RowWrite::PushFront => Some((cells << self.width) | value),
        };
        (probe, write)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The rows of `probe_then_is_probe_then_write`: 5 rows of `k` cells of
    /// `width` bits with `cells` scattered over them.
    fn filled(k: usize, width: u32, cells: &[u32], value: u32) -> CellRows {
        let mut rows = CellRows::new(5, k, width).unwrap();
        for (i, &c) in cells.iter().enumerate() {
            let v = if c % 3 == 0 {
                0
            } else if c % 5 == 0 {
                value
            } else {
                c
            };
            rows.set((i / k) as u64 % 5, i % k, v);
        }
        rows
    }

    proptest! {
        /// `probe_then` answers as `probe` and leaves the table as the
        /// separate write would, whether the row lies in one word (its
        /// length divides 64), straddles two, or spans several chunks; the
        /// rows around it are untouched.
        #[test]
        fn probe_then_is_probe_then_write(
            k in 1usize..20,
            width in 1u32..=32,
            cells in proptest::collection::vec(any::<u32>(), 0..100),
            value in any::<u32>(),
            r in 0u64..5,
            rule in 0u8..3,
            pick in any::<usize>(),
        ) {
            let mut fused = filled(k, width, &cells, value);
            let mut split = fused.clone();
            let decide = |p: RowProbe| match rule {
                0 => RowWrite::Keep,
                1 => RowWrite::Cell(p.empty.unwrap_or(pick % k)),
                _ => RowWrite::PushFront,
            };
            let probe = fused.probe_then(r, value, decide);
            prop_assert_eq!(probe, split.probe(r, value));
            match decide(probe) {
                RowWrite::Keep => {}
                RowWrite::Cell(j) => split.set(r, j, value),
                RowWrite::PushFront => {
                    split.push_front(r, value);
                }
            }
            prop_assert_eq!(fused.as_words(), split.as_words());
        }

        /// The probe answers exactly as `find` and `first_empty`, for rows of
        /// one word and longer.
        #[test]
        fn probe_is_find_and_first_empty(
            k in 1usize..20,
            width in 1u32..=32,
            cells in proptest::collection::vec(any::<u32>(), 0..60),
            value in any::<u32>(),
        ) {
            let mut rows = CellRows::new(3, k, width).unwrap();
            for (i, &c) in cells.iter().enumerate() {
                let j = i % k;
                let r = (i / k) as u64 % 3;
                // Sparse: a third of the cells stay empty, and some match.
                let v = if c % 3 == 0 { 0 } else if c % 5 == 0 { value } else { c };
                rows.set(r, j, v);
            }
            for r in 0..3 {
                for v in [value, value & rows.cell_mask() as u32, 0] {
                    let p = rows.probe(r, v);
                    prop_assert_eq!(p.found, rows.find(r, v));
                    prop_assert_eq!(p.empty, rows.first_empty(r));
                }
            }
        }
    }
}
