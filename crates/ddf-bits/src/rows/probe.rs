//! One read of a row for a lookup followed by an insertion.
//!
//! A quotient filter's `observe` asks two things of the same row: does it
//! hold the fingerprint, and where is its first empty cell. Asked one after
//! the other ([`CellRows::find`], then [`CellRows::first_empty`]) they read
//! the row twice; [`CellRows::probe`] reads a row of one word once and
//! answers both from the same register.

use super::CellRows;

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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
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
