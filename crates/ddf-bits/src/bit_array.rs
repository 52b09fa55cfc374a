//! A fixed-length array of bits in `u64` words, with arbitrary-offset field access.

use ddf_param::{ParamError, state_words};

/// The low `len` bits set, for `len` in `1..=64`.
#[inline]
pub(crate) const fn low_mask(len: u32) -> u64 {
    u64::MAX >> (64 - len)
}

/// `len` bits (the papers' `m`) stored least-significant-bit first in `u64`
/// words: bit `i` is bit `i % 64` of word `i / 64`, the layout of
/// `bitvec::BitVec<u64, Lsb0>`.
///
/// Besides single bits it reads and writes fields of up to 64 bits at any
/// offset ([`read_bits`](Self::read_bits), [`write_bits`](Self::write_bits)),
/// which [`PackedArray`](crate::PackedArray) and
/// [`CellRows`](crate::CellRows) build on. One zero padding word follows the
/// data so that a field access always reads the two words under it as one
/// `u128` window, with no branch on whether the field straddles a word
/// boundary. The padding is not part of [`len`](Self::len),
/// [`memory_bits`](Self::memory_bits) or [`as_words`](Self::as_words).
///
/// Indices out of range panic, as slice indices do: they are programming
/// errors, not user input. Construction never panics.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct BitArray {
    /// `len.div_ceil(64)` data words, then one padding word that stays zero.
    words: Vec<u64>,
    len: u64,
}

/// A clone spanning at least [`HUGE_MIN_BYTES`](crate::pages::HUGE_MIN_BYTES)
/// is advised for huge pages ([`pages::copied_vec`](crate::pages::copied_vec)):
/// the copy of a large filter is probed as the original is.
impl Clone for BitArray {
    fn clone(&self) -> Self {
        BitArray {
            words: crate::pages::copied_vec(&self.words),
            len: self.len,
        }
    }
}

impl BitArray {
    /// An all-zero array of `len` bits.
    ///
    /// Fails (parameter `bits`) if `len` exceeds
    /// [`MAX_STATE_BITS`](ddf_param::MAX_STATE_BITS) or is not addressable.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_bits::BitArray;
    ///
    /// let mut bits = BitArray::new(100)?;
    /// bits.set(42);
    /// assert!(bits.get(42) && !bits.get(41));
    /// assert_eq!(bits.count_ones(), 1);
    /// # Ok::<(), ddf_bits::ParamError>(())
    /// ```
    pub fn new(len: u64) -> Result<Self, ParamError> {
        Self::zeroed("bits", len)
    }

    /// As [`new`](Self::new), with the words in transparent huge pages when
    /// they span at least [`HUGE_MIN_BYTES`](crate::pages::HUGE_MIN_BYTES)
    /// (see [`pages`](crate::pages)), for large arrays probed at random.
    /// The memory is written, so resident, at once; contents and behaviour
    /// are those of [`new`](Self::new). A clone of an array that large is
    /// advised for huge pages too, however the original was made.
    pub fn new_huge(len: u64) -> Result<Self, ParamError> {
        let total = Self::total_words("bits", len)?;
        Ok(BitArray {
            words: crate::pages::filled_vec(total, 0),
            len,
        })
    }

    /// Data words plus the padding word for `len` bits.
    fn total_words(param: &'static str, len: u64) -> Result<usize, ParamError> {
        let data = state_words(param, len)?;
        data.checked_add(1).ok_or_else(|| {
            ParamError::new(
                param,
                format!("{len} bits"),
                "a state addressable on this platform",
            )
        })
    }

    /// As [`new`](Self::new), reporting a bad size against `param`, so that
    /// the structures built on top name their own parameter.
    pub(crate) fn zeroed(param: &'static str, len: u64) -> Result<Self, ParamError> {
        let total = Self::total_words(param, len)?;
        Ok(BitArray {
            words: vec![0; total],
            len,
        })
    }

    /// Rebuilds an array of `len` bits from the words [`as_words`](Self::as_words)
    /// returned, for snapshots.
    ///
    /// Fails (parameter `bits`) on a bad `len` as [`new`](Self::new) does, and
    /// (parameter `words`) unless there are exactly `len.div_ceil(64)` words
    /// and no bit at or beyond `len` is set.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_bits::BitArray;
    ///
    /// let mut bits = BitArray::new(100)?;
    /// bits.set(99);
    /// let again = BitArray::from_words(100, bits.as_words().to_vec())?;
    /// assert!(again.get(99));
    /// // A bit beyond the length is corrupt input.
    /// assert_eq!(BitArray::from_words(10, vec![1 << 20]).unwrap_err().param(), "words");
    /// # Ok::<(), ddf_bits::ParamError>(())
    /// ```
    pub fn from_words(len: u64, words: Vec<u64>) -> Result<Self, ParamError> {
        Self::restore("bits", len, words)
    }

    /// As [`from_words`](Self::from_words), reporting a bad size against `param`.
    pub(crate) fn restore(
        param: &'static str,
        len: u64,
        mut words: Vec<u64>,
    ) -> Result<Self, ParamError> {
        let data = state_words(param, len)?;
        if words.len() != data {
            return Err(ParamError::new(
                "words",
                format!("{} words", words.len()),
                format!("exactly {data} words for {len} bits"),
            ));
        }
        // Bits past `len` in the last word must be zero, as the padding is,
        // so that counts and comparisons never see them.
        let tail = (len % 64) as u32;
        let last = words.last().copied().unwrap_or(0);
        if tail != 0 && last & !low_mask(tail) != 0 {
            return Err(ParamError::new(
                "words",
                format!("last word {last:#018x}"),
                format!("no bit set at or beyond bit {len}"),
            ));
        }
        words.push(0);
        Ok(BitArray { words, len })
    }

    /// The number of bits, `m`.
    #[inline]
    #[must_use]
    pub const fn len(&self) -> u64 {
        self.len
    }

    /// Whether the array holds no bits at all.
    #[inline]
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The state in bits as the papers count it: [`len`](Self::len).
    #[inline]
    #[must_use]
    pub const fn memory_bits(&self) -> u64 {
        self.len
    }

    /// The data words ([`as_words`](Self::as_words)) of an array of
    /// `fields·width` bits after `write_bits(i·width, width, v)` for the
    /// `i`-th of `values` (the first `fields` of them, each cut to `width`
    /// bits, `width` clamped to 1..=64), without building the array: for
    /// encoding fields kept elsewhere in the packed layout. Infallible, so
    /// the caller vouches that `fields` values fit in memory (they do when it
    /// already holds them).
    ///
    /// ```
    /// use ddf_bits::BitArray;
    /// let mut bits = BitArray::new(3 * 20)?;
    /// for (i, v) in [5u64, 1 << 19, 77].into_iter().enumerate() {
    ///     bits.write_bits(i as u64 * 20, 20, v);
    /// }
    /// assert_eq!(BitArray::packed_words(3, 20, [5, 1 << 19, 77]), bits.as_words());
    /// # Ok::<(), ddf_bits::ParamError>(())
    /// ```
    #[must_use]
    pub fn packed_words(
        fields: usize,
        width: u32,
        values: impl IntoIterator<Item = u64>,
    ) -> Vec<u64> {
        let width = width.clamp(1, 64);
        let bits = fields as u128 * u128::from(width);
        // At most `fields + 1` words, since `width ≤ 64`.
        let mut words = vec![0u64; bits.div_ceil(64) as usize];
        let mask = low_mask(width);
        for (i, v) in values.into_iter().take(fields).enumerate() {
            let at = i as u128 * u128::from(width);
            let (w, sh) = ((at / 64) as usize, (at % 64) as u32);
            let v = v & mask;
            words[w] |= v << sh;
            if sh + width > 64 {
                words[w + 1] |= v >> (64 - sh);
            }
        }
        words
    }

    /// The data words, least significant bit first, without the padding word.
    #[inline]
    #[must_use]
    pub fn as_words(&self) -> &[u64] {
        &self.words[..self.words.len() - 1]
    }

    /// The data words, without the padding word; [`from_words`](Self::from_words)
    /// takes them back.
    #[must_use]
    pub fn into_words(mut self) -> Vec<u64> {
        self.words.pop();
        self.words
    }

    /// Bit `i`.
    ///
    /// # Panics
    /// If `i >= len`.
    #[inline]
    #[must_use]
    pub fn get(&self, i: u64) -> bool {
        self.check_index(i);
        let (w, b) = split_index(i);
        self.words[w] >> b & 1 == 1
    }

    /// Sets bit `i` to 1.
    ///
    /// # Panics
    /// If `i >= len`.
    #[inline]
    pub fn set(&mut self, i: u64) {
        self.check_index(i);
        let (w, b) = split_index(i);
        self.words[w] |= 1 << b;
    }

    /// Sets bit `i` to 0.
    ///
    /// # Panics
    /// If `i >= len`.
    #[inline]
    pub fn unset(&mut self, i: u64) {
        self.check_index(i);
        let (w, b) = split_index(i);
        self.words[w] &= !(1 << b);
    }

    /// Sets bit `i` to 1 and returns its old value: the Bloom-filter insert
    /// that also tells whether the bit was already set.
    ///
    /// # Panics
    /// If `i >= len`.
    #[inline]
    pub fn test_and_set(&mut self, i: u64) -> bool {
        self.check_index(i);
        let (w, b) = split_index(i);
        let old = self.words[w] >> b & 1 == 1;
        self.words[w] |= 1 << b;
        old
    }

    /// The number of bits set to 1.
    #[must_use]
    pub fn count_ones(&self) -> u64 {
        // The padding word is zero, so it adds nothing.
        self.words.iter().map(|w| u64::from(w.count_ones())).sum()
    }

    /// Sets every bit to 0.
    pub fn clear(&mut self) {
        self.words.fill(0);
    }

    /// Runs `f` on the data words (bit `i` is bit `i % 64` of word
    /// `i / 64`), then clears any bit past [`len`](Self::len) that `f` set,
    /// so the array stays valid whatever `f` writes.
    ///
    /// For loops that locate their bits themselves and know them in range
    /// (an APBF slice's position is below its slice's end): a word access
    /// is one bounds check, where [`set`](Self::set) and
    /// [`test_and_set`](Self::test_and_set) check the bit index too.
    ///
    /// ```
    /// let mut bits = ddf_bits::BitArray::new(70)?;
    /// bits.with_words_mut(|w| { w[0] |= 1 << 5; w[1] = u64::MAX });
    /// assert!(bits.get(5) && bits.get(69));
    /// assert_eq!(bits.count_ones(), 1 + 6);
    /// # Ok::<(), ddf_bits::ParamError>(())
    /// ```
    #[inline]
    pub fn with_words_mut<R>(&mut self, f: impl FnOnce(&mut [u64]) -> R) -> R {
        let data = self.words.len() - 1;
        let result = f(&mut self.words[..data]);
        let tail = (self.len % 64) as u32;
        if tail != 0 {
            // `len` is not a multiple of 64, so there is a last data word.
            self.words[data - 1] &= low_mask(tail);
        }
        result
    }

    /// Sets every bit that is set in `other` (the union of two Bloom
    /// filters of one shape, a merge): one OR per word.
    ///
    /// # Panics
    /// If the lengths differ (callers check shapes first).
    ///
    /// ```
    /// let mut a = ddf_bits::BitArray::new(70)?;
    /// let mut b = ddf_bits::BitArray::new(70)?;
    /// a.set(3);
    /// b.set(69);
    /// a.union_with(&b);
    /// assert!(a.get(3) && a.get(69) && a.count_ones() == 2);
    /// # Ok::<(), ddf_bits::ParamError>(())
    /// ```
    pub fn union_with(&mut self, other: &BitArray) {
        assert_eq!(
            self.len, other.len,
            "union of bit arrays of different lengths"
        );
        for (w, o) in self.words.iter_mut().zip(&other.words) {
            *w |= o;
        }
    }

    /// Sets bits `start..start + len` to 0: the words wholly inside by one
    /// fill, the partial words at either end under a mask. Emptying an
    /// APBF slice this way costs about a tenth of an instruction per word,
    /// against some forty for 64-bit [`write_bits`](Self::write_bits) calls.
    ///
    /// # Panics
    /// If `start + len > self.len()`.
    pub fn clear_range(&mut self, start: u64, len: u64) {
        let end = match start.checked_add(len) {
            Some(end) if end <= self.len => end,
            _ => crate::out_of_range("bit range end", start.saturating_add(len), self.len, "bits"),
        };
        if len == 0 {
            return;
        }
        let (first, last) = (split_index(start).0, split_index(end - 1).0);
        // Bits from `start` up in the first word; up to `end − 1` in the last.
        let head = u64::MAX << (start % 64);
        let tail = u64::MAX >> (63 - (end - 1) % 64);
        let words = &mut self.words[first..=last];
        match words {
            [only] => *only &= !(head & tail),
            [lo, middle @ .., hi] => {
                *lo &= !head;
                middle.fill(0);
                *hi &= !tail;
            }
            [] => {}
        }
    }

    /// The `len` bits starting at bit `offset`, as an integer whose bit 0 is
    /// bit `offset` (the `bitvec` `load_le` order). `len` may be 0 (gives 0).
    ///
    /// # Panics
    /// If `len > 64` or `offset + len > self.len()`.
    #[inline]
    #[must_use]
    pub fn read_bits(&self, offset: u64, len: u32) -> u64 {
        self.check_field(offset, len);
        if len == 0 {
            return 0;
        }
        self.read_masked(offset, low_mask(len))
    }

    /// Writes the low `len` bits of `value` at bit `offset` (bit 0 of `value`
    /// goes to bit `offset`); higher bits of `value` are ignored. `len` may be
    /// 0 (writes nothing).
    ///
    /// # Panics
    /// If `len > 64` or `offset + len > self.len()`.
    #[inline]
    pub fn write_bits(&mut self, offset: u64, len: u32, value: u64) {
        self.check_field(offset, len);
        if len == 0 {
            return;
        }
        self.write_masked(offset, low_mask(len), value);
    }

    /// The field at `offset` under `mask` (the low `len ≥ 1` bits set).
    /// The caller has checked that the field lies within `len`.
    #[inline]
    pub(crate) fn read_masked(&self, offset: u64, mask: u64) -> u64 {
        let (w, sh) = split_index(offset);
        // The field starts in word `w < data words`, so `w + 1` is at most
        // the padding word: always in bounds.
        let window = (u128::from(self.words[w + 1]) << 64) | u128::from(self.words[w]);
        (window >> sh) as u64 & mask
    }

    /// Writes `value & mask` over the field at `offset` under `mask`.
    /// The caller has checked that the field lies within `len`.
    #[inline]
    pub(crate) fn write_masked(&mut self, offset: u64, mask: u64, value: u64) {
        self.update_masked(offset, mask, |_| value);
    }

    /// Replaces the field at `offset` under `mask` by `f(old)` (masked) with a
    /// single read and write of the two words under it; returns `old`.
    /// The caller has checked that the field lies within `len`.
    #[inline]
    pub(crate) fn update_masked(
        &mut self,
        offset: u64,
        mask: u64,
        f: impl FnOnce(u64) -> u64,
    ) -> u64 {
        let (w, sh) = split_index(offset);
        let Some([lo, hi]) = self.words.get_mut(w..w + 2) else {
            crate::out_of_range("word", w as u64 + 1, self.words.len() as u64, "words");
        };
        let old = field(*lo, *hi, sh) & mask;
        flip(lo, hi, sh, (f(old) ^ old) & mask);
        old
    }

    /// The word holding bit `offset` and the bit's place in it, for a
    /// read-modify-write of a field that lies within that word (`offset % 64`
    /// plus the field's length at most 64): one bounds check for both.
    #[inline(always)]
    pub(crate) fn word_at_mut(&mut self, offset: u64) -> (&mut u64, u32) {
        let (w, sh) = split_index(offset);
        (&mut self.words[w], sh)
    }

    /// The two words under a field starting at bit `offset` (the second may
    /// be the padding word) and the field's shift, for a read-modify-write
    /// as [`update_masked`](Self::update_masked) does: [`field`] reads
    /// the field and [`flip`] writes a change.
    #[inline(always)]
    pub(crate) fn words_at_mut(&mut self, offset: u64) -> (&mut u64, &mut u64, u32) {
        let (w, sh) = split_index(offset);
        let len = self.words.len() as u64;
        let Some([lo, hi]) = self.words.get_mut(w..w + 2) else {
            crate::out_of_range("word", w as u64 + 1, len, "words");
        };
        (lo, hi, sh)
    }

    /// Prefetches the cache line holding bit `offset` (a hint for a batch
    /// operation; see [`prefetch`](crate::prefetch)). Out-of-range offsets
    /// are ignored.
    #[inline(always)]
    pub fn prefetch(&self, offset: u64) {
        crate::prefetch::prefetch_write(&self.words, (offset / 64) as usize);
    }

    /// The data words, mutable, for word-parallel updates that keep the
    /// bits past `len` at zero.
    #[inline]
    pub(crate) fn data_words_mut(&mut self) -> &mut [u64] {
        let n = self.words.len() - 1;
        &mut self.words[..n]
    }

    #[inline]
    fn check_index(&self, i: u64) {
        if i >= self.len {
            crate::out_of_range("bit index", i, self.len, "bits");
        }
    }

    #[inline]
    fn check_field(&self, offset: u64, len: u32) {
        if len > 64 || offset > self.len || u64::from(len) > self.len - offset {
            field_out_of_range(offset, len, self.len);
        }
    }
}

/// Panics for a bad field, out of line for the same reason as `out_of_range` in the crate root.
#[cold]
#[inline(never)]
fn field_out_of_range(offset: u64, len: u32, bound: u64) -> ! {
    panic!("field of {len} bits at {offset} out of range for {bound} bits (at most 64 bits)")
}

/// The 64 bits starting at bit `sh` of the two words `lo`, `hi`.
#[inline(always)]
pub(crate) fn field(lo: u64, hi: u64, sh: u32) -> u64 {
    ((u128::from(hi) << 64 | u128::from(lo)) >> sh) as u64
}

/// XORs `delta` shifted left by `sh` (below 64) into the 128 bits `hi:lo`:
/// the bits that change when a field at `sh` is rewritten. Cheaper than
/// masking the field out of a 128-bit window and or-ing the new value in,
/// and it writes the same words. Fields end within `len`, so `delta` never
/// reaches the padding word.
#[inline(always)]
pub(crate) fn flip(lo: &mut u64, hi: &mut u64, sh: u32, delta: u64) {
    *lo ^= delta << sh;
    // `delta >> (64 − sh)` without a shift by 64 when `sh` is 0.
    *hi ^= (delta >> 1) >> (63 - sh);
}

/// Word index and bit within the word of bit `i`.
#[inline]
fn split_index(i: u64) -> (usize, u32) {
    // `i` is below `len`, whose word count `state_words` proved fits `usize`.
    ((i >> 6) as usize, (i & 63) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ddf_param::MAX_STATE_BITS;

    #[test]
    fn sizes_and_errors() {
        let a = BitArray::new(0).unwrap();
        assert!(a.is_empty());
        assert_eq!(a.as_words(), &[] as &[u64]);
        let a = BitArray::new(130).unwrap();
        assert_eq!(
            (a.len(), a.memory_bits(), a.as_words().len()),
            (130, 130, 3)
        );
        let err = BitArray::new(MAX_STATE_BITS + 1).unwrap_err();
        assert_eq!(err.param(), "bits");
        assert_eq!(BitArray::new(u64::MAX).unwrap_err().param(), "bits");
    }

    #[test]
    fn single_bits() {
        let mut a = BitArray::new(100).unwrap();
        assert!(!a.test_and_set(64));
        assert!(a.test_and_set(64));
        a.set(99);
        a.set(0);
        assert!(a.get(0) && a.get(64) && a.get(99) && !a.get(1));
        assert_eq!(a.count_ones(), 3);
        a.unset(64);
        assert!(!a.get(64));
        assert_eq!(a.as_words(), &[1, 1 << 35]);
        a.clear();
        assert_eq!(a.count_ones(), 0);
    }

    #[test]
    fn fields_straddle_words_and_keep_padding_zero() {
        let mut a = BitArray::new(128).unwrap();
        a.write_bits(60, 8, 0xFFAB);
        assert_eq!(a.read_bits(60, 8), 0xAB);
        assert_eq!(a.as_words(), &[0xB << 60, 0xA]);
        a.write_bits(64, 64, u64::MAX);
        a.write_bits(0, 64, 0x0123_4567_89AB_CDEF);
        assert_eq!(a.read_bits(0, 64), 0x0123_4567_89AB_CDEF);
        assert_eq!(a.read_bits(64, 64), u64::MAX);
        assert_eq!(a.read_bits(128, 0), 0);
        a.write_bits(128, 0, 1);
        assert_eq!(a.words[2], 0, "padding word");
        assert_eq!(a.count_ones(), 64 + 32);
    }

    #[test]
    #[should_panic(expected = "out of range")]
    fn field_past_end_panics() {
        let a = BitArray::new(100).unwrap();
        let _ = a.read_bits(90, 11);
    }

    #[test]
    #[should_panic(expected = "out of range")]
    fn cleared_range_past_end_panics() {
        let mut a = BitArray::new(100).unwrap();
        a.clear_range(90, 11);
    }

    #[test]
    fn cleared_range_keeps_the_padding_word() {
        let mut a = BitArray::new(130).unwrap();
        for i in 0..130 {
            a.set(i);
        }
        a.clear_range(3, 0);
        a.clear_range(130, 0);
        assert_eq!(a.count_ones(), 130);
        a.clear_range(5, 120);
        assert_eq!(a.count_ones(), 10);
        assert_eq!(
            (a.words[0], a.words[1], a.words[2]),
            (0b11111, 0b111 << 61, 0b11)
        );
        assert_eq!(a.words[3], 0, "padding word");
    }

    #[test]
    #[should_panic(expected = "out of range")]
    fn index_in_padding_panics() {
        let a = BitArray::new(100).unwrap();
        let _ = a.get(100);
    }

    /// A clone large enough to be advised for huge pages is still an equal,
    /// independent copy.
    #[test]
    fn large_clones_are_equal_and_independent() {
        let len = (crate::pages::HUGE_MIN_BYTES as u64) * 8 + 130;
        let mut a = BitArray::new(len).unwrap();
        for i in [0, 64, 1 << 20, len - 1] {
            a.set(i);
        }
        let mut b = a.clone();
        assert_eq!(a, b);
        b.unset(64);
        assert!(a.get(64) && !b.get(64));
        assert_eq!(b.count_ones(), 3);
    }

    #[test]
    fn from_words_round_trip_and_rejects() {
        let mut a = BitArray::new(70).unwrap();
        a.set(3);
        a.set(69);
        let b = BitArray::from_words(70, a.as_words().to_vec()).unwrap();
        assert_eq!(a, b);
        assert_eq!(BitArray::from_words(70, a.clone().into_words()), Ok(a));
        let err = BitArray::from_words(70, vec![0]).unwrap_err();
        assert_eq!(err.param(), "words");
        let err = BitArray::from_words(70, vec![0, 1 << 6]).unwrap_err();
        assert_eq!(err.param(), "words");
        assert!(BitArray::from_words(128, vec![u64::MAX, u64::MAX]).is_ok());
        assert!(BitArray::from_words(0, vec![]).is_ok());
        assert_eq!(
            BitArray::from_words(MAX_STATE_BITS + 1, vec![])
                .unwrap_err()
                .param(),
            "bits"
        );
    }
}
