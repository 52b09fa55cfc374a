//! Rows of `k` packed cells with SWAR search, the table layout of QHT-style filters.

use crate::bit_array::{BitArray, low_mask};
use crate::packed::{Iter, MAX_CELL_BITS, PackedArray};
use crate::swar::Lanes;
use ddf_param::{ParamError, checked_mul, ensure_positive, ensure_range};

mod probe;
pub use probe::{RowProbe, RowSearch, RowWrite};

/// `rows` rows of `k` cells (`cells_per_row`, the QHT paper's `k`) of
/// `width` bits (`cell_bits`, 1..=32) each, stored row-major and contiguous
/// in a [`PackedArray`]. A cell holding 0 is empty.
///
/// Cell `j` of row `r` is cell `r·k + j` of the packed array. Row operations
/// work on up to 64 bits at a time: [`find`](Self::find) compares every cell
/// of a 64-bit chunk with the sought value in a few word operations (SWAR,
/// "SIMD within a register"), and [`push_front`](Self::push_front) shifts a
/// row that fits in 64 bits with one read and one write.
///
/// Row and cell indices out of range panic, as slice indices do; construction
/// never panics. Values are truncated to `width` bits when stored, and a value
/// wider than `width` bits is never [found](Self::find).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CellRows {
    cells: PackedArray,
    rows: u64,
    k: usize,
    /// `k · width`, the bit distance between consecutive rows.
    row_bits: u64,
    /// Whether `row_bits` divides 64, so that no row straddles two words:
    /// row operations then read and write a single word.
    in_word: bool,
    width: u32,
    /// Cells per full 64-bit chunk: `64 / width`.
    lanes: usize,
    /// Chunks of `lanes` cells that come before the last chunk of a row; 0
    /// when the row fits in one word (`k · width ≤ 64`).
    full_chunks: usize,
    /// Lane constants of a full chunk.
    chunk: Lanes,
    /// Lane constants of the last (possibly partial) chunk of a row.
    last: Lanes,
    /// `floor(2^16 / width) + 1`: `(bit · recip) >> 16 = bit / width` for
    /// every bit position below 64, without a division.
    lane_recip: u32,
}

/// What every row of a [`CellRows`] must satisfy; see [`CellRows::check_rows`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RowRules {
    /// No non-zero value appears twice in a row.
    pub distinct: bool,
    /// Occupied cells come first: cells are filled in order and never emptied.
    pub filled_in_order: bool,
}

/// A row that breaks the [`RowRules`] it was checked against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowViolation {
    /// The row.
    pub row: u64,
    /// What is wrong with it.
    pub reason: &'static str,
}

impl std::fmt::Display for RowViolation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "row {} holds {}", self.row, self.reason)
    }
}

impl std::error::Error for RowViolation {}

impl CellRows {
    /// The largest `cells_per_row` accepted.
    ///
    /// A lookup scans its whole row, so rows are meant to be short (the QHT
    /// paper evaluates `k` from 1 to 16); 4096 cells of 32 bits is already a
    /// 16 KiB row, and a larger `k` is almost surely a mix-up with `rows`.
    pub const MAX_BUCKETS_PER_ROW: usize = 4096;

    /// `rows` rows of `cells_per_row` empty cells of `cell_bits` bits.
    ///
    /// Fails with a [`ParamError`] naming the parameter unless `rows ≥ 1`,
    /// `cells_per_row` is in `1..=4096` ([`MAX_BUCKETS_PER_ROW`](Self::MAX_BUCKETS_PER_ROW)),
    /// `cell_bits` is in `1..=32`, and the state `rows · k · width` is at most
    /// [`MAX_STATE_BITS`](ddf_param::MAX_STATE_BITS) (reported against `rows`).
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_bits::CellRows;
    ///
    /// let mut rows = CellRows::new(16, 4, 8)?;
    /// assert_eq!(rows.first_empty(3), Some(0));
    /// rows.push_front(3, 0x2A);
    /// assert_eq!(rows.find(3, 0x2A), Some(0));
    /// assert_eq!(CellRows::new(0, 4, 8).unwrap_err().param(), "rows");
    /// # Ok::<(), ddf_bits::ParamError>(())
    /// ```
    pub fn new(rows: u64, cells_per_row: usize, cell_bits: u32) -> Result<Self, ParamError> {
        let (cells, k) = Self::check(rows, cells_per_row, cell_bits)?;
        Ok(Self::build(
            PackedArray::with_params("rows", cells, cell_bits)?,
            rows,
            k,
        ))
    }

    /// The number of rows of `cells_per_row` cells of `cell_bits` bits that
    /// fit in `memory_bits` bits: `floor(M / (k·width))`, the sizing rule of
    /// fingerprint tables built from a memory budget (QHT paper, Algorithm 1
    /// SETUP; cuckoo filters likewise).
    ///
    /// Fails with a [`ParamError`] naming `cells_per_row` or `cell_bits`
    /// when they are out of range (as in [`new`](Self::new)), or naming
    /// `memory_bits` when not even one row fits.
    pub fn rows_for_memory(
        memory_bits: u64,
        cells_per_row: usize,
        cell_bits: u32,
    ) -> Result<u64, ParamError> {
        let k = ensure_range(
            "cells_per_row",
            cells_per_row,
            1..=Self::MAX_BUCKETS_PER_ROW,
        )?;
        let width = ensure_range("cell_bits", cell_bits, 1..=MAX_CELL_BITS)?;
        let per_row = k as u64 * u64::from(width);
        match memory_bits / per_row {
            0 => Err(ParamError::new(
                "memory_bits",
                memory_bits,
                format!("at least one row of {per_row} bits"),
            )),
            rows => Ok(rows),
        }
    }

    /// Rebuilds rows from the words [`as_words`](Self::as_words) returned, for
    /// snapshots; fails as [`new`](Self::new) and [`BitArray::from_words`] do.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_bits::CellRows;
    ///
    /// let mut rows = CellRows::new(16, 4, 8)?;
    /// rows.push_front(5, 9);
    /// let again = CellRows::from_words(16, 4, 8, rows.as_words().to_vec())?;
    /// assert_eq!(again.find(5, 9), Some(0));
    /// # Ok::<(), ddf_bits::ParamError>(())
    /// ```
    pub fn from_words(
        rows: u64,
        cells_per_row: usize,
        cell_bits: u32,
        words: Vec<u64>,
    ) -> Result<Self, ParamError> {
        let (cells, k) = Self::check(rows, cells_per_row, cell_bits)?;
        Ok(Self::build(
            PackedArray::restore("rows", cells, cell_bits, words)?,
            rows,
            k,
        ))
    }

    /// Validates the parameters; returns the total cell count and `k`.
    fn check(rows: u64, cells_per_row: usize, cell_bits: u32) -> Result<(u64, usize), ParamError> {
        let rows = ensure_positive("rows", rows)?;
        let k = ensure_range(
            "cells_per_row",
            cells_per_row,
            1..=Self::MAX_BUCKETS_PER_ROW,
        )?;
        ensure_range("cell_bits", cell_bits, 1..=MAX_CELL_BITS)?;
        Ok((checked_mul("rows", rows, k as u64)?, k))
    }

    fn build(cells: PackedArray, rows: u64, k: usize) -> Self {
        let width = cells.width();
        let lanes = (64 / width) as usize;
        let full_chunks = (k - 1) / lanes;
        let last_lanes = k - full_chunks * lanes;
        CellRows {
            cells,
            rows,
            k,
            row_bits: k as u64 * u64::from(width),
            in_word: (k as u64 * u64::from(width)).is_power_of_two()
                && k as u64 * u64::from(width) <= 64,
            width,
            lanes,
            full_chunks,
            chunk: Lanes::new(lanes, width),
            last: Lanes::new(last_lanes, width),
            lane_recip: (1 << 16) / width + 1,
        }
    }

    /// The number of rows.
    #[inline]
    #[must_use]
    pub const fn rows(&self) -> u64 {
        self.rows
    }

    /// The cells per row, the QHT paper's `k`.
    #[inline]
    #[must_use]
    pub const fn cells_per_row(&self) -> usize {
        self.k
    }

    /// The cell width in bits.
    #[inline]
    #[must_use]
    pub const fn cell_bits(&self) -> u32 {
        self.width
    }

    /// The state in bits as the papers count it: `rows · k · width`.
    #[inline]
    #[must_use]
    pub const fn memory_bits(&self) -> u64 {
        self.cells.memory_bits()
    }

    /// Cell `j` of row `r`.
    ///
    /// # Panics
    /// If `r >= rows` or `j >= k`.
    #[inline]
    #[must_use]
    pub fn get(&self, r: u64, j: usize) -> u32 {
        let offset = self.cell_offset(r, j);
        self.bits().read_masked(offset, self.cell_mask()) as u32
    }

    /// Stores `value` (truncated to `width` bits) in cell `j` of row `r`.
    ///
    /// # Panics
    /// If `r >= rows` or `j >= k`.
    #[inline]
    pub fn set(&mut self, r: u64, j: usize, value: u32) {
        let offset = self.cell_offset(r, j);
        let mask = self.cell_mask();
        self.cells
            .bits_mut()
            .write_masked(offset, mask, u64::from(value));
    }

    /// Stores `value` (truncated to `width` bits) in cell `j` of row `r` and
    /// returns the value it replaces: random-eviction insertion.
    ///
    /// # Panics
    /// If `r >= rows` or `j >= k`.
    #[inline]
    pub fn replace(&mut self, r: u64, j: usize, value: u32) -> u32 {
        let offset = self.cell_offset(r, j);
        let mask = self.cell_mask();
        self.cells
            .bits_mut()
            .update_masked(offset, mask, |_| u64::from(value)) as u32
    }

    /// The first cell of row `r` that equals `value`, if any. `find(r, 0)`
    /// is the first empty cell. A value wider than `width` bits is never found.
    ///
    /// # Panics
    /// If `r >= rows`.
    #[inline]
    #[must_use]
    pub fn find(&self, r: u64, value: u32) -> Option<usize> {
        let value = u64::from(value);
        if value > self.cell_mask() {
            // Still check the row index, as every row operation does.
            self.check_row(r);
            return None;
        }
        self.find_lanes(r, value, self.cell_mask())
    }

    /// The first cell `j` of row `r` whose bits under `mask` equal those of
    /// `value`: `get(r, j) & mask == value & mask`. Bits of `value` and `mask`
    /// above `width` are ignored; a zero `mask` matches cell 0.
    ///
    /// This searches one field of cells that pack several fields, such as a
    /// fingerprint next to an age tag, with the same SWAR scan as
    /// [`find`](Self::find).
    ///
    /// # Panics
    /// If `r >= rows`.
    #[inline]
    #[must_use]
    pub fn find_masked(&self, r: u64, value: u32, mask: u32) -> Option<usize> {
        let mask = u64::from(mask) & self.cell_mask();
        self.find_lanes(r, u64::from(value) & mask, mask)
    }

    /// The first cell of row `r` equal to `value` under `mask` (both at most
    /// `width` bits, `value` within `mask`).
    #[inline]
    fn find_lanes(&self, r: u64, value: u64, mask: u64) -> Option<usize> {
        let offset = self.row_offset(r);
        if self.full_chunks == 0 {
            self.find_in_chunk(offset, value, mask, &self.last, 0)
        } else {
            self.find_long(offset, value, mask)
        }
    }

    /// The first cell equal to `value` under `mask` in the chunk at `offset`
    /// with lanes `lanes`; the cell index is `base` plus the lane.
    #[inline]
    fn find_in_chunk(
        &self,
        offset: u64,
        value: u64,
        mask: u64,
        lanes: &Lanes,
        base: usize,
    ) -> Option<usize> {
        // XOR with the value in every lane turns matching cells into zero
        // lanes once the bits outside `mask` are cleared. The read is masked
        // to the chunk, and so are the broadcasts (`x · lows` has no carries
        // between lanes for `x` of at most `width` bits), so lanes past the
        // chunk's end are never flagged.
        let y = (self.bits().read_masked(offset, lanes.mask) ^ (value * lanes.lows))
            & (mask * lanes.lows);
        let hits = lanes.zero_lanes(y);
        (hits != 0).then(|| base + self.lowest_lane(hits))
    }

    /// [`find_lanes`](Self::find_lanes) in rows longer than 64 bits, chunk by
    /// chunk. Out of line so that the one-chunk path inlines small.
    #[inline(never)]
    fn find_long(&self, mut offset: u64, value: u64, mask: u64) -> Option<usize> {
        let mut base = 0;
        for _ in 0..self.full_chunks {
            if let Some(j) = self.find_in_chunk(offset, value, mask, &self.chunk, base) {
                return Some(j);
            }
            offset += u64::from(self.chunk.bits);
            base += self.lanes;
        }
        self.find_in_chunk(offset, value, mask, &self.last, base)
    }

    /// Prefetches the cache line where row `r` starts, for a batch
    /// operation that will read or write the row soon; see
    /// [`prefetch`](crate::prefetch). A row out of range is ignored (it is a
    /// hint, never an access).
    #[inline(always)]
    pub fn prefetch_row(&self, r: u64) {
        self.bits().prefetch(r.wrapping_mul(self.row_bits));
    }

    /// The first empty (zero) cell of row `r`, if any.
    ///
    /// # Panics
    /// If `r >= rows`.
    #[inline]
    #[must_use]
    pub fn first_empty(&self, r: u64) -> Option<usize> {
        self.find(r, 0)
    }

    /// Inserts `value` (truncated to `width` bits) at cell 0 of row `r`, the
    /// newest position, shifting every cell one place toward cell `k − 1`,
    /// and returns the old cell `k − 1`: FIFO insertion, where the returned
    /// value is the evicted one (0 if that cell was empty).
    ///
    /// # Panics
    /// If `r >= rows`.
    #[inline]
    pub fn push_front(&mut self, r: u64, value: u32) -> u32 {
        let offset = self.row_offset(r);
        let value = u64::from(value) & self.cell_mask();
        if self.full_chunks == 0 {
            // The whole row in one read-shift-write.
            self.shift_chunk(offset, self.last, value) as u32
        } else {
            self.push_front_long(offset, value)
        }
    }

    /// Shifts the chunk at `offset` with lanes `lanes` up by one cell, `carry`
    /// entering its cell 0; returns the cell shifted out of its top.
    #[inline]
    fn shift_chunk(&mut self, offset: u64, lanes: Lanes, carry: u64) -> u64 {
        let width = self.width;
        let bits = self.cells.bits_mut();
        let old = bits.update_masked(offset, lanes.mask, |x| (x << width) | carry);
        old >> (lanes.bits - width)
    }

    /// [`push_front`](Self::push_front) in rows longer than 64 bits: each
    /// chunk's top cell carries into the next chunk.
    #[inline(never)]
    fn push_front_long(&mut self, mut offset: u64, value: u64) -> u32 {
        let mut carry = value;
        for _ in 0..self.full_chunks {
            carry = self.shift_chunk(offset, self.chunk, carry);
            offset += u64::from(self.chunk.bits);
        }
        self.shift_chunk(offset, self.last, carry) as u32
    }

    /// The number of non-empty cells in row `r`.
    ///
    /// # Panics
    /// If `r >= rows`.
    #[inline]
    #[must_use]
    pub fn count_occupied(&self, r: u64) -> usize {
        let mut offset = self.row_offset(r);
        let bits = self.bits();
        let mut count = 0;
        for _ in 0..self.full_chunks {
            count += self
                .chunk
                .nonzero_lanes(bits.read_masked(offset, self.chunk.mask))
                .count_ones();
            offset += u64::from(self.chunk.bits);
        }
        count += self
            .last
            .nonzero_lanes(bits.read_masked(offset, self.last.mask))
            .count_ones();
        count as usize
    }

    /// The cells of row `r`, from cell 0 to cell `k − 1`.
    ///
    /// # Panics
    /// If `r >= rows`.
    #[must_use]
    pub fn row_iter(&self, r: u64) -> Iter<'_> {
        self.check_row(r);
        let k = self.k as u64;
        self.cells.range_iter(r * k, (r + 1) * k)
    }

    /// The largest row, in bits, that [`read_row`](Self::read_row) and
    /// [`write_row`](Self::write_row) move in one piece.
    pub const MAX_WHOLE_ROW_BITS: u64 = 128;

    /// All of row `r` as one integer: cell `j` in bits `j·width ..
    /// (j+1)·width`. For rows of at most 128 bits (`k · width ≤ 128`), so
    /// that a structure with short rows (cuckoo-style buckets) can inspect
    /// every cell with register operations after two word reads.
    ///
    /// # Panics
    /// If `r >= rows` or the row is longer than 128 bits.
    // Always inlined: it is two masked loads, and a call costs as much.
    #[inline(always)]
    #[must_use]
    pub fn read_row(&self, r: u64) -> u128 {
        let offset = self.row_offset(r);
        let (low, high) = self.whole_row_split();
        let bits = self.bits();
        let lo = u128::from(bits.read_masked(offset, low_mask(low)));
        if high == 0 {
            lo
        } else {
            lo | u128::from(bits.read_masked(offset + 64, low_mask(high))) << 64
        }
    }

    /// Overwrites row `r` with `row` (as [`read_row`](Self::read_row) lays
    /// it out); bits beyond the row are ignored.
    ///
    /// # Panics
    /// If `r >= rows` or the row is longer than 128 bits.
    #[inline]
    pub fn write_row(&mut self, r: u64, row: u128) {
        let offset = self.row_offset(r);
        let (low, high) = self.whole_row_split();
        let bits = self.cells.bits_mut();
        bits.write_masked(offset, low_mask(low), row as u64);
        if high != 0 {
            bits.write_masked(offset + 64, low_mask(high), (row >> 64) as u64);
        }
    }

    /// Row `r` of a table whose rows fit one word (`k · width ≤ 64`), laid
    /// out as [`read_row`](Self::read_row) does: one row check and one
    /// two-word load, for hot paths that take a short row into a register.
    ///
    /// # Panics
    /// If `r >= rows` or the rows are longer than 64 bits.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_bits::CellRows;
    ///
    /// let mut rows = CellRows::new(8, 4, 14)?;
    /// rows.set(5, 1, 0x2A);
    /// assert_eq!(rows.read_row_word(5), 0x2A << 14);
    /// rows.write_row_word(5, 7 << 42);
    /// assert_eq!((rows.get(5, 1), rows.get(5, 3)), (0, 7));
    /// # Ok::<(), ddf_bits::ParamError>(())
    /// ```
    // Always inlined: it is two loads and a shift, and a call costs as much.
    #[inline(always)]
    #[must_use]
    pub fn read_row_word(&self, r: u64) -> u64 {
        let offset = self.row_word_offset(r);
        self.bits().read_masked(offset, self.last.mask)
    }

    /// Overwrites row `r` with `row` (as [`read_row_word`](Self::read_row_word)
    /// lays it out) in a table whose rows fit one word; bits beyond the row
    /// are ignored. Only the bits that change are written (one read and one
    /// write of the two words under the row).
    ///
    /// # Panics
    /// If `r >= rows` or the rows are longer than 64 bits.
    #[inline(always)]
    pub fn write_row_word(&mut self, r: u64, row: u64) {
        let offset = self.row_word_offset(r);
        let mask = self.last.mask;
        self.cells.bits_mut().write_masked(offset, mask, row);
    }

    /// The first bit of row `r` in a table of one-word rows.
    #[inline(always)]
    fn row_word_offset(&self, r: u64) -> u64 {
        if self.full_chunks != 0 {
            row_too_long_for_word(self.row_bits);
        }
        self.row_offset(r)
    }

    /// A row of at most 128 bits as its low word's bits and the rest.
    #[inline]
    fn whole_row_split(&self) -> (u32, u32) {
        if self.row_bits > Self::MAX_WHOLE_ROW_BITS {
            row_too_long(self.row_bits);
        }
        let bits = self.row_bits as u32;
        (bits.min(64), bits.saturating_sub(64))
    }

    /// Checks every row against `rules` and every non-zero cell with `valid`,
    /// so that a table decoded from untrusted bytes is one its filter's
    /// operations could have produced. Returns the first violation found.
    pub fn check_rows(
        &self,
        rules: RowRules,
        valid: impl Fn(u32) -> bool,
    ) -> Result<(), RowViolation> {
        let mut seen: Vec<u32> = Vec::with_capacity(self.k);
        for r in 0..self.rows {
            seen.clear();
            let mut gap = false;
            for v in self.row_iter(r) {
                if v == 0 {
                    gap = true;
                    continue;
                }
                let fault = if gap && rules.filled_in_order {
                    Some("an occupied cell after an empty one")
                } else if !valid(v) {
                    Some("a value no item maps to")
                } else {
                    None
                };
                if let Some(reason) = fault {
                    return Err(RowViolation { row: r, reason });
                }
                seen.push(v);
            }
            if rules.distinct {
                seen.sort_unstable();
                if seen.windows(2).any(|w| w[0] == w[1]) {
                    return Err(RowViolation {
                        row: r,
                        reason: "a value twice",
                    });
                }
            }
        }
        Ok(())
    }

    /// Empties every cell.
    pub fn clear(&mut self) {
        self.cells.clear();
    }

    /// All cells as one packed array, row after row.
    #[inline]
    #[must_use]
    pub const fn as_packed(&self) -> &PackedArray {
        &self.cells
    }

    /// The data words; [`from_words`](Self::from_words) takes them back.
    #[inline]
    #[must_use]
    pub fn as_words(&self) -> &[u64] {
        self.cells.as_words()
    }

    #[inline]
    fn bits(&self) -> &BitArray {
        self.cells.as_bits()
    }

    /// The mask of one cell's bits.
    #[inline]
    fn cell_mask(&self) -> u64 {
        u64::from(self.cells.max_value())
    }

    /// The lane of the lowest flag in `hits` (non-zero).
    #[inline]
    fn lowest_lane(&self, hits: u64) -> usize {
        ((hits.trailing_zeros() * self.lane_recip) >> 16) as usize
    }

    #[inline]
    fn check_row(&self, r: u64) {
        if r >= self.rows {
            crate::out_of_range("row", r, self.rows, "rows");
        }
    }

    #[inline]
    fn row_offset(&self, r: u64) -> u64 {
        self.check_row(r);
        r * self.row_bits
    }

    #[inline]
    fn cell_offset(&self, r: u64, j: usize) -> u64 {
        if j >= self.k {
            crate::out_of_range("cell", j as u64, self.k as u64, "cells per row");
        }
        self.row_offset(r) + j as u64 * u64::from(self.width)
    }
}

/// Panics for a whole-row access to a row longer than 128 bits; out of line
/// and cold like the crate's other index panics.
#[cold]
#[inline(never)]
fn row_too_long(bits: u64) -> ! {
    panic!("a row of {bits} bits is longer than the 128 bits a whole-row access moves")
}

/// Panics for a one-word row access to a row longer than 64 bits.
#[cold]
#[inline(never)]
fn row_too_long_for_word(bits: u64) -> ! {
    panic!("a row of {bits} bits is longer than the 64 bits a one-word row access moves")
}

#[cfg(test)]
mod tests {
    use super::*;
    use ddf_param::MAX_STATE_BITS;

    #[test]
    fn parameter_errors() {
        let param = |r: Result<CellRows, ParamError>| r.unwrap_err().param();
        assert_eq!(param(CellRows::new(0, 4, 8)), "rows");
        assert_eq!(param(CellRows::new(10, 0, 8)), "cells_per_row");
        assert_eq!(param(CellRows::new(10, 4097, 8)), "cells_per_row");
        assert_eq!(param(CellRows::new(10, 4, 0)), "cell_bits");
        assert_eq!(param(CellRows::new(10, 4, 33)), "cell_bits");
        // rows · k overflows 64 bits.
        assert_eq!(param(CellRows::new(u64::MAX, 2, 8)), "rows");
        // rows · k fits but rows · k · width overflows.
        assert_eq!(param(CellRows::new(u64::MAX / 4096, 4096, 32)), "rows");
        // Fits in 64 bits but exceeds the state ceiling.
        assert_eq!(param(CellRows::new(MAX_STATE_BITS / 32 + 1, 4, 8)), "rows");
        let err = CellRows::new(10, 4, 33).unwrap_err();
        assert_eq!(err.to_string(), "invalid cell_bits = 33: expected 1..=32");
        assert!(CellRows::new(1, 4096, 32).is_ok());
    }

    #[test]
    fn lane_reciprocal_divides_exactly() {
        for width in 1..=MAX_CELL_BITS {
            let recip = (1 << 16) / width + 1;
            for bit in 0..64 {
                assert_eq!((bit * recip) >> 16, bit / width, "width {width}, bit {bit}");
            }
        }
    }

    #[test]
    fn one_word_rows() {
        let mut t = CellRows::new(3, 4, 8).unwrap();
        assert_eq!(t.memory_bits(), 96);
        assert_eq!(t.first_empty(1), Some(0));
        assert_eq!(t.push_front(1, 0xAA), 0);
        assert_eq!(t.push_front(1, 0xBB), 0);
        assert_eq!(t.row_iter(1).collect::<Vec<_>>(), [0xBB, 0xAA, 0, 0]);
        assert_eq!(
            (t.find(1, 0xAA), t.find(1, 0xCC), t.first_empty(1)),
            (Some(1), None, Some(2))
        );
        assert_eq!(t.find(1, 0x1AA), None, "too wide to be stored");
        t.set(1, 3, 0xDD);
        assert_eq!(t.push_front(1, 0xEE), 0xDD);
        assert_eq!(t.row_iter(1).collect::<Vec<_>>(), [0xEE, 0xBB, 0xAA, 0]);
        assert_eq!(t.count_occupied(1), 3);
        assert_eq!(t.replace(1, 0, 0x11), 0xEE);
        assert_eq!((t.count_occupied(0), t.count_occupied(2)), (0, 0));
        assert_eq!(
            t.row_iter(0)
                .chain(t.row_iter(2))
                .filter(|&v| v != 0)
                .count(),
            0
        );
        t.clear();
        assert_eq!(t.count_occupied(1), 0);
    }

    #[test]
    fn multi_chunk_rows() {
        // 16 cells of 6 bits: chunks of 10 cells (60 bits), then 6 cells.
        let mut t = CellRows::new(2, 16, 6).unwrap();
        for v in 1..=16 {
            assert_eq!(t.push_front(1, v), 0);
        }
        assert_eq!(
            t.row_iter(1).collect::<Vec<_>>(),
            (1..=16).rev().collect::<Vec<_>>()
        );
        assert_eq!(t.push_front(1, 17), 1);
        assert_eq!(
            (t.find(1, 2), t.find(1, 17), t.find(1, 12)),
            (Some(15), Some(0), Some(5))
        );
        assert_eq!(
            (t.first_empty(1), t.count_occupied(1), t.count_occupied(0)),
            (None, 16, 0)
        );
        t.set(1, 12, 0);
        assert_eq!(t.first_empty(1), Some(12));
        let u = CellRows::from_words(2, 16, 6, t.as_words().to_vec()).unwrap();
        assert_eq!(t, u);
        assert_eq!(
            CellRows::from_words(2, 16, 6, vec![]).unwrap_err().param(),
            "words"
        );
    }

    #[test]
    fn width_one_and_single_cell_rows() {
        let mut t = CellRows::new(5, 70, 1).unwrap();
        t.set(2, 0, 1);
        t.set(2, 1, 1);
        t.set(2, 64, 1);
        assert_eq!(
            (t.first_empty(2), t.find(2, 1), t.count_occupied(2)),
            (Some(2), Some(0), 3)
        );
        assert_eq!(t.push_front(2, 1), 0);
        assert_eq!((t.find(2, 0), t.get(2, 65)), (Some(3), 1));
        let mut t = CellRows::new(4, 1, 3).unwrap();
        assert_eq!(
            (t.push_front(3, 5), t.push_front(3, 6), t.get(3, 0)),
            (0, 5, 6)
        );
        assert_eq!(
            (t.find(3, 6), t.find(3, 5), t.first_empty(3)),
            (Some(0), None, None)
        );
    }

    #[test]
    fn whole_rows_read_and_write() {
        // 4 cells of 20 bits: 80-bit rows straddling words.
        let mut t = CellRows::new(3, 4, 20).unwrap();
        t.set(1, 0, 0xABCDE);
        t.set(1, 3, 0x12345);
        let row = t.read_row(1);
        assert_eq!(row, 0xABCDE | 0x12345 << 60);
        t.write_row(2, row | 0x777 << 20);
        assert_eq!(
            t.row_iter(2).collect::<Vec<_>>(),
            [0xABCDE, 0x777, 0, 0x12345]
        );
        assert_eq!((t.read_row(0), t.read_row(1)), (0, row));
        // Bits beyond the row are ignored.
        t.write_row(0, u128::MAX);
        assert_eq!(t.row_iter(0).collect::<Vec<_>>(), [0xFFFFF; 4]);
        assert_eq!(t.read_row(1), row);
        // Rows within one word.
        let mut t = CellRows::new(2, 4, 8).unwrap();
        t.write_row(1, 0x0403_0201);
        assert_eq!(
            (t.read_row(1), t.get(1, 2), t.read_row(0)),
            (0x0403_0201, 3, 0)
        );
    }

    #[test]
    #[should_panic(expected = "longer than the 64 bits")]
    fn one_word_row_access_needs_one_word_rows() {
        // 4 cells of 17 bits: 68-bit rows.
        let t = CellRows::new(2, 4, 17).unwrap();
        let _ = t.read_row_word(0);
    }

    #[test]
    #[should_panic(expected = "longer than the 128 bits")]
    fn whole_row_access_needs_short_rows() {
        let t = CellRows::new(2, 5, 26).unwrap();
        let _ = t.read_row(0);
    }

    #[test]
    fn find_masked_matches_one_field() {
        // Cells of 12 bits: an 8-bit field on top of a 4-bit tag.
        let mut t = CellRows::new(2, 8, 12).unwrap();
        t.set(1, 2, 0xAB3);
        t.set(1, 6, 0xAB7);
        t.set(1, 7, 0xCD3);
        let field = 0xFF0;
        assert_eq!(t.find_masked(1, 0xAB0, field), Some(2));
        assert_eq!(t.find_masked(1, 0xCD0, field), Some(7));
        assert_eq!(t.find_masked(1, 0xEE0, field), None);
        assert_eq!(t.find_masked(1, 0x007, 0x00F), Some(6));
        // Bits of the value outside the mask are ignored.
        assert_eq!(t.find_masked(1, 0xCDF, field), Some(7));
        // A zero mask matches the first cell.
        assert_eq!(t.find_masked(0, 0x123, 0), Some(0));
        // Rows of several chunks: 8 cells of 12 bits span two chunks.
        t.set(1, 2, 0);
        assert_eq!(t.find_masked(1, 0xAB0, field), Some(6));
    }

    #[test]
    fn budgets_and_row_checks() {
        assert_eq!(CellRows::rows_for_memory(65_536, 1, 3), Ok(21_845));
        assert_eq!(CellRows::rows_for_memory(65_536, 16, 6), Ok(682));
        let param = |r: Result<u64, ParamError>| r.unwrap_err().param();
        assert_eq!(param(CellRows::rows_for_memory(11, 4, 3)), "memory_bits");
        assert_eq!(param(CellRows::rows_for_memory(99, 0, 3)), "cells_per_row");
        assert_eq!(param(CellRows::rows_for_memory(99, 1, 33)), "cell_bits");

        let strict = RowRules {
            distinct: true,
            filled_in_order: true,
        };
        let mut t = CellRows::new(2, 3, 4).unwrap();
        t.set(0, 0, 3);
        t.set(0, 1, 4);
        assert!(t.check_rows(strict, |_| true).is_ok());
        let bad = t.check_rows(strict, |v| v != 4).unwrap_err();
        assert_eq!(bad.to_string(), "row 0 holds a value no item maps to");
        t.set(1, 1, 2);
        assert_eq!(t.check_rows(strict, |_| true).unwrap_err().row, 1);
        t.set(1, 0, 2);
        assert!(t.check_rows(strict, |_| true).is_err());
        assert!(t.check_rows(RowRules::default(), |_| true).is_ok());
    }

    #[test]
    #[should_panic(expected = "out of range")]
    fn row_out_of_range_panics() {
        let t = CellRows::new(3, 4, 8).unwrap();
        let _ = t.find(3, 1);
    }
}
