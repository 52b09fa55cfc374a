//! Bits in atomic `u64` words, for filters whose insertions only set bits
//! and may run from many threads at once.

use crate::BitArray;
use ddf_param::{ParamError, state_words};
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

/// A 64-bit atomic word: the operations the lock-free filters use, written
/// as a trait so that their protocol code runs over `std`'s
/// [`AtomicU64`] in the library and over a model checker's word (such as
/// `loom`'s) in tests, unchanged.
pub trait AtomicWord: Send + Sync {
    /// A word holding `value`.
    fn new(value: u64) -> Self;
    /// [`AtomicU64::load`].
    fn load(&self, order: Ordering) -> u64;
    /// [`AtomicU64::store`].
    fn store(&self, value: u64, order: Ordering);
    /// [`AtomicU64::fetch_or`].
    fn fetch_or(&self, value: u64, order: Ordering) -> u64;
    /// [`AtomicU64::fetch_and`].
    fn fetch_and(&self, value: u64, order: Ordering) -> u64;
    /// [`AtomicU64::fetch_add`].
    fn fetch_add(&self, value: u64, order: Ordering) -> u64;
    /// [`AtomicU64::compare_exchange`].
    fn compare_exchange(
        &self,
        current: u64,
        new: u64,
        success: Ordering,
        failure: Ordering,
    ) -> Result<u64, u64>;
}

impl AtomicWord for AtomicU64 {
    #[inline(always)]
    fn new(value: u64) -> Self {
        AtomicU64::new(value)
    }
    #[inline(always)]
    fn load(&self, order: Ordering) -> u64 {
        AtomicU64::load(self, order)
    }
    #[inline(always)]
    fn store(&self, value: u64, order: Ordering) {
        AtomicU64::store(self, value, order);
    }
    #[inline(always)]
    fn fetch_or(&self, value: u64, order: Ordering) -> u64 {
        AtomicU64::fetch_or(self, value, order)
    }
    #[inline(always)]
    fn fetch_and(&self, value: u64, order: Ordering) -> u64 {
        AtomicU64::fetch_and(self, value, order)
    }
    #[inline(always)]
    fn fetch_add(&self, value: u64, order: Ordering) -> u64 {
        AtomicU64::fetch_add(self, value, order)
    }
    #[inline(always)]
    fn compare_exchange(
        &self,
        current: u64,
        new: u64,
        success: Ordering,
        failure: Ordering,
    ) -> Result<u64, u64> {
        AtomicU64::compare_exchange(self, current, new, success, failure)
    }
}

/// [`BitArray`]'s layout (bit `i` is bit `i % 64` of word `i / 64`) in
/// atomic words: bits are set with `fetch_or` through `&self`, so any
/// number of threads insert at once with no lock, and a copy of the words
/// ([`to_bit_array`](Self::to_bit_array)) is a `BitArray` with the same
/// snapshot bytes.
///
/// Every access here is `Relaxed`: a bit array orders nothing by itself.
/// The filter built on it says which of its own operations publish or
/// acquire (an APBF's generation word), and a word's single modification
/// order is all a set bit needs to stay set until a clear that comes after
/// it in that order.
///
/// ```
/// use ddf_bits::AtomicBitArray;
///
/// let bits: AtomicBitArray = AtomicBitArray::new(100)?;
/// std::thread::scope(|s| {
///     s.spawn(|| bits.set(3));
///     s.spawn(|| bits.set(70));
/// });
/// assert!(bits.get(3) && bits.get(70) && !bits.get(4));
/// assert_eq!(bits.to_bit_array().count_ones(), 2);
/// # Ok::<(), ddf_bits::ParamError>(())
/// ```
pub struct AtomicBitArray<W = AtomicU64> {
    /// `len.div_ceil(64)` words; bits past `len` stay zero.
    words: Box<[W]>,
    len: u64,
}

impl<W> fmt::Debug for AtomicBitArray<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AtomicBitArray")
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}

impl<W: AtomicWord> AtomicBitArray<W> {
    /// An all-zero array of `len` bits, advised for huge pages from
    /// [`HUGE_MIN_BYTES`](crate::pages::HUGE_MIN_BYTES) as
    /// [`BitArray::new_huge`] is.
    ///
    /// Fails (parameter `bits`) as [`BitArray::new`] does.
    pub fn new(len: u64) -> Result<Self, ParamError> {
        let data = state_words("bits", len)?;
        Ok(AtomicBitArray {
            words: crate::pages::vec_from_fn(data, || W::new(0)).into_boxed_slice(),
            len,
        })
    }

    /// The same bits as `bits`, in atomic words.
    #[must_use]
    pub fn from_bit_array(bits: &BitArray) -> Self {
        let words = bits.as_words();
        let mut next = words.iter();
        AtomicBitArray {
            words: crate::pages::vec_from_fn(words.len(), || {
                W::new(next.next().copied().unwrap_or(0))
            })
            .into_boxed_slice(),
            len: bits.len(),
        }
    }

    /// A copy of the bits, each word read once (`Relaxed`): with writers
    /// running, each word is some value it held during the copy; with none,
    /// the copy is exact.
    #[must_use]
    pub fn to_bit_array(&self) -> BitArray {
        let words = self
            .words
            .iter()
            .map(|w| w.load(Ordering::Relaxed))
            .collect();
        // The words hold no bit at or past `len` (every writer keeps them
        // zero) and their count is `len.div_ceil(64)`, so this cannot fail.
        BitArray::from_words(self.len, words).expect("an atomic bit array's words are valid")
    }

    /// The number of bits, `m`.
    #[inline]
    #[must_use]
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the array has no bits.
    #[inline]
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The data words (for filters that locate their bits themselves).
    #[inline]
    #[must_use]
    pub fn words(&self) -> &[W] {
        &self.words
    }

    /// Bit `i`.
    ///
    /// # Panics
    /// If `i >= len`.
    #[inline]
    #[must_use]
    pub fn get(&self, i: u64) -> bool {
        self.check_index(i);
        self.words[(i / 64) as usize].load(Ordering::Relaxed) >> (i % 64) & 1 == 1
    }

    /// Sets bit `i` and returns its old value. A bit found set is not
    /// written again: a load costs no exclusive cache line, where a
    /// `fetch_or` on a set bit would.
    ///
    /// # Panics
    /// If `i >= len`.
    #[inline]
    pub fn set(&self, i: u64) -> bool {
        self.check_index(i);
        set_bit(&self.words[(i / 64) as usize], (i % 64) as u32)
    }

    /// Bit `j` set when the `j`-th of `positions` is (at most 64). The
    /// words are read one after another with no write between them, so
    /// their cache misses overlap; with [`set_missing`](Self::set_missing)
    /// this splits [`set`](Self::set) over many bits into all the reads,
    /// then the writes.
    ///
    /// # Panics
    /// If a position is out of range or there are more than 64.
    #[inline]
    #[must_use]
    pub fn get_mask(&self, positions: impl IntoIterator<Item = u64>) -> u64 {
        let mut mask = 0;
        for (j, i) in positions.into_iter().enumerate() {
            assert!(j < 64, "at most 64 positions");
            mask |= u64::from(self.get(i)) << j;
        }
        mask
    }

    /// Sets the `j`-th of `positions` (at most 64) by a `fetch_or` for
    /// every `j` whose bit in `known` is clear. A bit `known` says is set
    /// is not written: as in [`set`](Self::set), a read that found it set
    /// (here an earlier [`get_mask`](Self::get_mask)) stands for the write.
    ///
    /// A `fetch_or` is a locked instruction on x86, which lets no later
    /// read start before it completes: reading every word first
    /// ([`get_mask`](Self::get_mask)) and then writing the clear bits
    /// waits for about one memory latency, where [`set`](Self::set) bit by
    /// bit waits for one per bit. The old values are not returned, so the
    /// write is a plain `lock or` (a `fetch_or` whose result is used
    /// compiles to a compare-exchange loop).
    ///
    /// # Panics
    /// If a position is out of range or there are more than 64.
    #[inline]
    pub fn set_missing(&self, positions: impl IntoIterator<Item = u64>, known: u64) {
        for (j, i) in positions.into_iter().enumerate() {
            assert!(j < 64, "at most 64 positions");
            if known >> j & 1 == 0 {
                self.check_index(i);
                // Relaxed: see the type's documentation.
                self.words[(i / 64) as usize].fetch_or(1 << (i % 64), Ordering::Relaxed);
            }
        }
    }

    /// Sets bits `start..start + len` to 0: whole words by a store, the
    /// partial words at either end by a `fetch_and`, so a bit set at the same
    /// time outside the range is never lost.
    ///
    /// # Panics
    /// If `start + len > self.len()`.
    pub fn clear_range(&self, start: u64, len: u64) {
        let end = match start.checked_add(len) {
            Some(end) if end <= self.len => end,
            _ => crate::out_of_range("bit range end", start.saturating_add(len), self.len, "bits"),
        };
        if len == 0 {
            return;
        }
        let (first, last) = ((start / 64) as usize, ((end - 1) / 64) as usize);
        let head = u64::MAX << (start % 64);
        let tail = u64::MAX >> (63 - (end - 1) % 64);
        // Relaxed: see the type's documentation; the caller publishes the
        // clear through its own word.
        if first == last {
            self.words[first].fetch_and(!(head & tail), Ordering::Relaxed);
            return;
        }
        let lo = if head == u64::MAX { first } else { first + 1 };
        let hi = if tail == u64::MAX { last + 1 } else { last };
        if lo != first {
            self.words[first].fetch_and(!head, Ordering::Relaxed);
        }
        for w in &self.words[lo..hi] {
            w.store(0, Ordering::Relaxed);
        }
        if hi != last + 1 {
            self.words[last].fetch_and(!tail, Ordering::Relaxed);
        }
    }

    /// Sets every bit to 0 (a store per word).
    pub fn clear(&self) {
        for w in self.words.iter() {
            w.store(0, Ordering::Relaxed);
        }
    }

    /// Prefetches the cache line holding bit `offset` for writing (a hint;
    /// out-of-range offsets are ignored).
    #[inline(always)]
    pub fn prefetch(&self, offset: u64) {
        crate::prefetch::prefetch_write(&self.words, (offset / 64) as usize);
    }

    #[inline(always)]
    fn check_index(&self, i: u64) {
        if i >= self.len {
            crate::out_of_range("bit index", i, self.len, "bits");
        }
    }
}

/// Sets bit `bit` of `word`, returning its old value: a `Relaxed` load
/// first, and the `fetch_or` only when the bit is clear (see
/// [`AtomicBitArray::set`]). Relaxed: the bit orders nothing else.
#[inline(always)]
pub fn set_bit<W: AtomicWord>(word: &W, bit: u32) -> bool {
    set_bits(word, 1u64 << bit)
}

/// Sets the bits of `mask` in `word` with one `fetch_or`, returning whether
/// all of them were set already: a `Relaxed` load first, and no write when
/// they are (see [`AtomicBitArray::set`]). Relaxed: the bits order nothing
/// else.
///
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
/// let w = AtomicU64::new(0b0001);
/// assert!(!ddf_bits::set_bits(&w, 0b0101));
/// assert!(ddf_bits::set_bits(&w, 0b0100));
/// assert_eq!(w.load(Ordering::Relaxed), 0b0101);
/// ```
#[inline(always)]
pub fn set_bits<W: AtomicWord>(word: &W, mask: u64) -> bool {
    if word.load(Ordering::Relaxed) & mask == mask {
        return true;
    }
    word.fetch_or(mask, Ordering::Relaxed) & mask == mask
}

impl<W: AtomicWord> From<&BitArray> for AtomicBitArray<W> {
    fn from(bits: &BitArray) -> Self {
        Self::from_bit_array(bits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_get_and_copy_match_a_bit_array() {
        let a = AtomicBitArray::<AtomicU64>::new(1000).unwrap();
        let mut b = BitArray::new(1000).unwrap();
        for i in (0..1000).step_by(7) {
            assert_eq!(a.set(i), b.test_and_set(i));
            assert!(a.set(i), "a bit set stays set");
        }
        assert_eq!(a.to_bit_array(), b);
        let back = AtomicBitArray::<AtomicU64>::from_bit_array(&b);
        assert_eq!(back.to_bit_array(), b);
    }

    #[test]
    fn masks_read_and_set_as_bit_by_bit() {
        let a = AtomicBitArray::<AtomicU64>::new(1000).unwrap();
        let mut b = BitArray::new(1000).unwrap();
        for i in (0..1000).step_by(3) {
            a.set(i);
            b.set(i);
        }
        // Two positions in one word, and one repeated.
        let positions = [0, 1, 2, 64, 65, 999, 998, 500, 500];
        let known = a.get_mask(positions);
        let expect: u64 = positions
            .iter()
            .enumerate()
            .map(|(j, &i)| u64::from(b.get(i)) << j)
            .sum();
        assert_eq!(known, expect);
        a.set_missing(positions, known);
        // Nothing known: every position is written.
        let c = AtomicBitArray::<AtomicU64>::from_bit_array(&b);
        c.set_missing(positions, 0);
        for i in positions {
            b.set(i);
        }
        assert_eq!(a.to_bit_array(), b);
        assert_eq!(c.to_bit_array(), b);
        assert_eq!(a.get_mask(positions), (1 << positions.len()) - 1);
        // A bit `known` calls set is not written.
        let d = AtomicBitArray::<AtomicU64>::new(100).unwrap();
        d.set_missing([5, 6], 0b10);
        assert!(d.get(5) && !d.get(6));
    }

    #[test]
    #[should_panic(expected = "at most 64 positions")]
    fn more_than_64_positions_panic() {
        let a = AtomicBitArray::<AtomicU64>::new(100).unwrap();
        let _ = a.get_mask(0..65);
    }

    #[test]
    fn clear_range_matches_a_bit_array_at_every_edge() {
        for (start, len) in [
            (0, 0),
            (0, 64),
            (3, 60),
            (3, 200),
            (64, 128),
            (63, 2),
            (10, 190),
        ] {
            let a = AtomicBitArray::<AtomicU64>::new(200).unwrap();
            let mut b = BitArray::new(200).unwrap();
            for i in 0..200 {
                a.set(i);
                b.set(i);
            }
            if start + len > 200 {
                continue;
            }
            a.clear_range(start, len);
            b.clear_range(start, len);
            assert_eq!(a.to_bit_array(), b, "{start}+{len}");
        }
    }

    #[test]
    fn threads_lose_no_bit() {
        let a = AtomicBitArray::<AtomicU64>::new(4096).unwrap();
        std::thread::scope(|s| {
            for t in 0..4u64 {
                let a = &a;
                s.spawn(move || {
                    for i in (t..4096).step_by(4) {
                        a.set(i);
                    }
                });
            }
        });
        assert_eq!(a.to_bit_array().count_ones(), 4096);
    }

    #[test]
    #[should_panic(expected = "out of range")]
    fn index_out_of_range_panics() {
        let a = AtomicBitArray::<AtomicU64>::new(10).unwrap();
        let _ = a.get(10);
    }

    #[test]
    fn size_is_checked() {
        let err = AtomicBitArray::<AtomicU64>::new(u64::MAX).unwrap_err();
        assert_eq!(err.param(), "bits");
    }
}
