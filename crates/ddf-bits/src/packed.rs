//! An array of fixed-width cells packed back to back across `u64` words.

use crate::bit_array::{BitArray, low_mask};
use ddf_param::{ParamError, checked_mul, ensure_range};

/// The widest cell [`PackedArray`] and [`CellRows`](crate::CellRows) store, in bits.
pub const MAX_CELL_BITS: u32 = 32;

/// `len` cells of `width` bits each (`cell_bits`, 1..=32), packed back to back
/// in a [`BitArray`]: cell `i` occupies bits `i·width .. (i+1)·width`, so a
/// cell may straddle two words and no bit is wasted.
///
/// This is the storage of fingerprint tables: [`memory_bits`](Self::memory_bits)
/// is `len · width`, exactly as the papers count state. A cell is read or
/// written with one unaligned two-word access, whatever the width.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PackedArray {
    bits: BitArray,
    len: u64,
    width: u32,
    mask: u64,
}

impl PackedArray {
    /// `len` cells of `cell_bits` bits, all 0.
    ///
    /// Fails (parameter `cell_bits`) unless `cell_bits` is in `1..=32`, and
    /// (parameter `len`) if `len · cell_bits` overflows or exceeds
    /// [`MAX_STATE_BITS`](ddf_param::MAX_STATE_BITS).
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_bits::PackedArray;
    ///
    /// // 1000 cells of 3 bits: exactly 3000 bits of state, cells straddling words.
    /// let mut cells = PackedArray::new(1000, 3)?;
    /// cells.set(21, 5);
    /// assert_eq!(cells.get(21), 5);
    /// assert_eq!(PackedArray::new(1000, 33).unwrap_err().param(), "cell_bits");
    /// # Ok::<(), ddf_bits::ParamError>(())
    /// ```
    pub fn new(len: u64, cell_bits: u32) -> Result<Self, ParamError> {
        Self::with_params("len", len, cell_bits)
    }

    /// As [`new`](Self::new), reporting a bad size against `param`.
    pub(crate) fn with_params(
        param: &'static str,
        len: u64,
        cell_bits: u32,
    ) -> Result<Self, ParamError> {
        let width = ensure_range("cell_bits", cell_bits, 1..=MAX_CELL_BITS)?;
        let total = checked_mul(param, len, u64::from(width))?;
        Ok(PackedArray {
            bits: BitArray::zeroed(param, total)?,
            len,
            width,
            mask: low_mask(width),
        })
    }

    /// Rebuilds an array from the words [`as_words`](Self::as_words) returned,
    /// for snapshots; fails as [`new`](Self::new) and
    /// [`BitArray::from_words`] do.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_bits::PackedArray;
    ///
    /// let mut cells = PackedArray::new(10, 7)?;
    /// cells.set(3, 100);
    /// let again = PackedArray::from_words(10, 7, cells.as_words().to_vec())?;
    /// assert_eq!(again.get(3), 100);
    /// # Ok::<(), ddf_bits::ParamError>(())
    /// ```
    pub fn from_words(len: u64, cell_bits: u32, words: Vec<u64>) -> Result<Self, ParamError> {
        Self::restore("len", len, cell_bits, words)
    }

    /// As [`from_words`](Self::from_words), reporting a bad size against `param`.
    pub(crate) fn restore(
        param: &'static str,
        len: u64,
        cell_bits: u32,
        words: Vec<u64>,
    ) -> Result<Self, ParamError> {
        let width = ensure_range("cell_bits", cell_bits, 1..=MAX_CELL_BITS)?;
        let total = checked_mul(param, len, u64::from(width))?;
        let bits = BitArray::restore(param, total, words)?;
        Ok(PackedArray {
            bits,
            len,
            width,
            mask: low_mask(width),
        })
    }

    /// The number of cells.
    #[inline]
    #[must_use]
    pub const fn len(&self) -> u64 {
        self.len
    }

    /// Whether the array holds no cells.
    #[inline]
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The cell width in bits (`cell_bits`).
    #[inline]
    #[must_use]
    pub const fn width(&self) -> u32 {
        self.width
    }

    /// The largest value a cell holds, `2^width − 1`.
    #[inline]
    #[must_use]
    pub const fn max_value(&self) -> u32 {
        self.mask as u32
    }

    /// The state in bits as the papers count it: `len · width`.
    #[inline]
    #[must_use]
    pub const fn memory_bits(&self) -> u64 {
        self.bits.len()
    }

    /// Cell `i`.
    ///
    /// # Panics
    /// If `i >= len`.
    #[inline]
    #[must_use]
    pub fn get(&self, i: u64) -> u32 {
        self.check_index(i);
        self.bits.read_masked(i * u64::from(self.width), self.mask) as u32
    }

    /// Stores `value` in cell `i`. Only the low `width` bits of `value` are
    /// kept (the value is masked, in every build), so a too-wide value never
    /// spills into the neighbouring cells.
    ///
    /// # Panics
    /// If `i >= len`.
    #[inline]
    pub fn set(&mut self, i: u64, value: u32) {
        self.check_index(i);
        self.bits
            .write_masked(i * u64::from(self.width), self.mask, u64::from(value));
    }

    /// Stores `value` (masked as in [`set`](Self::set)) in cell `i` and
    /// returns the old value, with one access.
    ///
    /// # Panics
    /// If `i >= len`.
    #[inline]
    pub fn replace(&mut self, i: u64, value: u32) -> u32 {
        self.check_index(i);
        self.bits
            .update_masked(i * u64::from(self.width), self.mask, |_| u64::from(value))
            as u32
    }

    /// Subtracts 1 from every non-zero cell among `count` consecutive cells
    /// starting at `start`, wrapping from the last cell to cell 0: the decay
    /// step of Stable Bloom filters, which decrement a run of cells from a
    /// random start.
    ///
    /// Widths that divide 64 are handled a word at a time (SWAR: every lane
    /// of a word tested for zero and decremented at once); other widths cell
    /// by cell. `count` is capped at [`len`](Self::len).
    ///
    /// # Panics
    /// If `start >= len` while `count > 0`.
    pub fn saturating_decrement_run(&mut self, start: u64, count: u64) {
        let count = count.min(self.len);
        if count == 0 {
            return;
        }
        self.check_index(start);
        let first_end = start.saturating_add(count).min(self.len);
        self.decrement_range(start, first_end);
        let wrapped = count - (first_end - start);
        self.decrement_range(0, wrapped);
    }

    /// Decrements the non-zero cells of `start..end` (`end <= len`).
    fn decrement_range(&mut self, start: u64, end: u64) {
        if start >= end {
            return;
        }
        let width = u64::from(self.width);
        if 64 % width != 0 {
            for i in start..end {
                self.bits
                    .update_masked(i * width, self.mask, |v| v.saturating_sub(1));
            }
            return;
        }
        // Lanes tile the words: `high` has the top bit of every lane, `low`
        // the other bits, `ones` the bottom bit.
        let lanes = 64 / width;
        let ones = u64::MAX / self.mask;
        let high = ones << (width - 1);
        let low = !high;
        let words = self.bits.data_words_mut();
        let (first, last) = (start / lanes, (end - 1) / lanes);
        for w in first..=last {
            let from = if w == first { start % lanes } else { 0 };
            let to = if w == last {
                (end - 1) % lanes + 1
            } else {
                lanes
            };
            // Bit 0 of each lane in from..to.
            let lane_mask = lane_range_mask(from * width, to * width) & ones;
            let x = words[w as usize];
            // A lane's low bits plus all-ones low bits carry into its top bit
            // exactly when they are non-zero; no carry leaves the lane.
            let non_zero = (((x & low).wrapping_add(low)) | x) & high;
            words[w as usize] = x - ((non_zero >> (width - 1)) & lane_mask);
        }
    }

    /// Replaces every cell `v` by `max(v − 2^(w−1), 0)`, `w` the width: cells
    /// with their top bit set lose it, the others become 0. The sweep of
    /// block-decaying Bloom filters, which count down by half their range
    /// at once.
    ///
    /// Word-parallel for any width: with `tops` the set top bits and
    /// `starts` the first bits of their cells (`tops >> (w − 1)` over the
    /// whole array), the multi-word difference `tops − starts` is exactly the
    /// bits below each set top bit within its cell; the new state is the old
    /// one masked by it.
    pub fn saturating_sub_half(&mut self) {
        let width = u64::from(self.width);
        if width == 1 {
            self.clear();
            return;
        }
        // Top-bit patterns repeat every `width / gcd(width, 64)` words.
        let period = (width / gcd(width, 64)) as usize;
        let top_mask: Vec<u64> = (0..period as u64)
            .map(|w| {
                let mut m = 0u64;
                let mut t = (64 * w).div_ceil(width) * width + width - 1;
                // The first top bit at or after bit 64w, then every `width` bits.
                if t >= 64 * w + width {
                    t -= width;
                }
                while t < 64 * (w + 1) {
                    if t >= 64 * w {
                        m |= 1 << (t - 64 * w);
                    }
                    t += width;
                }
                m
            })
            .collect();
        let shift = (width - 1) as u32;
        let words = self.bits.data_words_mut();
        let tops_at =
            |words: &[u64], w: usize| words.get(w).map_or(0, |x| x & top_mask[w % period]);
        let mut borrow = 0u64;
        let mut tops = tops_at(words, 0);
        for w in 0..words.len() {
            let next_tops = tops_at(words, w + 1);
            // Bit t of the array moves to t − (w − 1): from this word or the next.
            let starts = (tops >> shift) | (next_tops << (64 - shift));
            let (d1, b1) = tops.overflowing_sub(starts);
            let (d2, b2) = d1.overflowing_sub(borrow);
            borrow = u64::from(b1 | b2);
            words[w] &= d2;
            tops = next_tops;
        }
    }

    /// Sets every cell to 0.
    pub fn clear(&mut self) {
        self.bits.clear();
    }

    /// The cells in order.
    #[must_use]
    pub fn iter(&self) -> Iter<'_> {
        self.range_iter(0, self.len)
    }

    /// Cells `start..end`; the caller has checked `start <= end <= len`.
    pub(crate) fn range_iter(&self, start: u64, end: u64) -> Iter<'_> {
        let width = u64::from(self.width);
        Iter {
            bits: &self.bits,
            next: start * width,
            end: end * width,
            width: self.width,
        }
    }

    /// The underlying bits.
    #[inline]
    #[must_use]
    pub const fn as_bits(&self) -> &BitArray {
        &self.bits
    }

    /// Mutable access to the underlying bits, for structures that keep their
    /// own invariants on top of the packed layout.
    #[inline]
    pub(crate) fn bits_mut(&mut self) -> &mut BitArray {
        &mut self.bits
    }

    /// The data words; [`from_words`](Self::from_words) takes them back.
    #[inline]
    #[must_use]
    pub fn as_words(&self) -> &[u64] {
        self.bits.as_words()
    }

    #[inline]
    fn check_index(&self, i: u64) {
        if i >= self.len {
            crate::out_of_range("cell index", i, self.len, "cells");
        }
    }
}

impl<'a> IntoIterator for &'a PackedArray {
    type Item = u32;
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

/// The greatest common divisor.
fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Bits `from..to` of a word set (`from < to <= 64`).
#[inline]
fn lane_range_mask(from: u64, to: u64) -> u64 {
    let upper = if to == 64 { u64::MAX } else { (1 << to) - 1 };
    upper & !((1u64 << from) - 1)
}

/// An iterator over the cells of a [`PackedArray`] or of one row of
/// [`CellRows`](crate::CellRows), in order.
#[derive(Debug, Clone)]
pub struct Iter<'a> {
    bits: &'a BitArray,
    /// Bit offset of the next cell.
    next: u64,
    /// Bit offset just past the last cell.
    end: u64,
    width: u32,
}

impl Iterator for Iter<'_> {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        if self.next >= self.end {
            return None;
        }
        let value = self.bits.read_masked(self.next, low_mask(self.width)) as u32;
        self.next += u64::from(self.width);
        Some(value)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = (self.end - self.next) / u64::from(self.width);
        // More cells than `usize` can count only happens on 32-bit targets.
        usize::try_from(n).map_or((usize::MAX, None), |n| (n, Some(n)))
    }
}

impl std::iter::FusedIterator for Iter<'_> {}

#[cfg(test)]
mod tests {
    use super::*;
    use ddf_param::MAX_STATE_BITS;

    #[test]
    fn width_errors_name_cell_bits() {
        for bad in [0, 33, u32::MAX] {
            let err = PackedArray::new(10, bad).unwrap_err();
            assert_eq!(err.param(), "cell_bits");
            assert_eq!(err.expected(), "1..=32");
        }
        assert!(PackedArray::new(10, 1).is_ok());
        assert!(PackedArray::new(10, 32).is_ok());
    }

    #[test]
    fn size_errors_name_len() {
        assert_eq!(PackedArray::new(u64::MAX, 2).unwrap_err().param(), "len");
        assert_eq!(
            PackedArray::new(MAX_STATE_BITS / 8 + 1, 8)
                .unwrap_err()
                .param(),
            "len"
        );
        let empty = PackedArray::new(0, 8).unwrap();
        assert!(empty.is_empty() && empty.iter().next().is_none());
    }

    #[test]
    fn cells_straddle_words() {
        let mut a = PackedArray::new(40, 13).unwrap();
        assert_eq!(
            (a.len(), a.width(), a.memory_bits(), a.max_value()),
            (40, 13, 520, 8191)
        );
        // Cell 4 covers bits 52..65: the last 12 bits of word 0 and bit 0 of word 1.
        a.set(4, 0x1ABC);
        assert_eq!(a.get(4), 0x1ABC);
        assert_eq!(a.as_words()[..2], [0xABC << 52, 1]);
        a.set(5, u32::MAX);
        assert_eq!((a.get(4), a.get(5), a.get(6)), (0x1ABC, 8191, 0));
        assert_eq!(a.replace(4, 7), 0x1ABC);
        assert_eq!(a.iter().take(6).collect::<Vec<_>>(), [0, 0, 0, 0, 7, 8191]);
        assert_eq!(a.iter().size_hint(), (40, Some(40)));
        assert_eq!((&a).into_iter().count(), 40);
        let b = PackedArray::from_words(40, 13, a.as_words().to_vec()).unwrap();
        assert_eq!(a, b);
        a.clear();
        assert!(a.iter().all(|v| v == 0));
    }

    #[test]
    fn decrement_runs_match_a_cell_loop() {
        let mut rng = ddf_hash_free_rng(7);
        for width in [1u32, 2, 3, 4, 8, 11, 16, 32] {
            for len in [1u64, 5, 31, 32, 33, 100, 257] {
                let mut a = PackedArray::new(len, width).unwrap();
                for i in 0..len {
                    // Many zeros and many ones, where the edge cases are.
                    let v = match rng() % 4 {
                        0 => 0,
                        1 => 1,
                        _ => rng() as u32,
                    };
                    a.set(i, v);
                }
                for _ in 0..20 {
                    let start = rng() % len;
                    let count = rng() % (len + 3);
                    let mut expected: Vec<u32> = a.iter().collect();
                    for j in 0..count.min(len) {
                        let i = ((start + j) % len) as usize;
                        expected[i] = expected[i].saturating_sub(1);
                    }
                    a.saturating_decrement_run(start, count);
                    assert_eq!(
                        a.iter().collect::<Vec<_>>(),
                        expected,
                        "width {width} len {len}"
                    );
                    assert_eq!(
                        PackedArray::from_words(len, width, a.as_words().to_vec()).as_ref(),
                        Ok(&a),
                        "padding bits stay zero"
                    );
                }
            }
        }
    }

    #[test]
    fn half_sweeps_match_a_cell_loop() {
        let mut rng = ddf_hash_free_rng(11);
        for width in 1u32..=32 {
            for len in [1u64, 3, 64, 65, 100, 333] {
                let mut a = PackedArray::new(len, width).unwrap();
                for i in 0..len {
                    a.set(i, rng() as u32);
                }
                let half = 1u32 << (width - 1);
                let expected: Vec<u32> = a.iter().map(|v| v.saturating_sub(half)).collect();
                a.saturating_sub_half();
                assert_eq!(
                    a.iter().collect::<Vec<_>>(),
                    expected,
                    "width {width} len {len}"
                );
                assert!(PackedArray::from_words(len, width, a.as_words().to_vec()).is_ok());
            }
        }
    }

    /// A tiny xorshift, so this crate's tests need no generator dependency.
    fn ddf_hash_free_rng(seed: u64) -> impl FnMut() -> u64 {
        let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        }
    }

    #[test]
    fn from_words_rejects() {
        assert_eq!(
            PackedArray::from_words(10, 0, vec![0]).unwrap_err().param(),
            "cell_bits"
        );
        assert_eq!(
            PackedArray::from_words(10, 8, vec![0]).unwrap_err().param(),
            "words"
        );
        assert_eq!(
            PackedArray::from_words(10, 8, vec![0, 1 << 16])
                .unwrap_err()
                .param(),
            "words"
        );
        assert!(PackedArray::from_words(10, 8, vec![u64::MAX, 0xFFFF]).is_ok());
    }
}
