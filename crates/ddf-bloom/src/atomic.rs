//! The lock-free partitioned Bloom filter.

use crate::PartitionedBloom;
use crate::partitioned::positions;
use ddf_bits::AtomicBitArray;
use ddf_core::snapshot::{DecodeError, Decoder, Encoder, Snapshot};
use ddf_core::{Digest, ParamError, Verdict};
use std::fmt;

/// A lock-free [`PartitionedBloom`]: `observe`, `insert` and `contains`
/// take `&self` and run from any number of threads at once, setting bits
/// with atomic `fetch_or` (a bit already set is only read). Same
/// parameters and snapshot bytes as [`PartitionedBloom`] (`From` both ways).
///
/// **What holds under concurrency**: a Bloom filter never clears a bit, so
/// an item whose insertion happened before a `contains` or `observe` of it
/// (the same thread, or any synchronisation) is reported, always; the
/// false-positive rate is the single-threaded one for the same items. Two
/// `observe` calls of one item racing each other may both answer
/// `Unseen` (each reads the slices before the other sets them). An operation
/// writes only the words of its `k` bits, and only those not yet set.
///
/// ```
/// use ddf_bloom::{AtomicPartitionedBloom, Digest, Verdict};
///
/// let f = AtomicPartitionedBloom::with_items(100_000, 0.01)?;
/// std::thread::scope(|s| {
///     for t in 0..4u64 {
///         let f = &f;
///         s.spawn(move || (0..1_000).for_each(|i| f.insert(Digest::mixed(t << 32 | i))));
///     }
/// });
/// assert!(f.contains(Digest::mixed(3 << 32 | 999)));
/// assert_eq!(f.observe(Digest::mixed(1 << 32 | 5)), Verdict::Duplicate);
/// # Ok::<(), ddf_bloom::ParamError>(())
/// ```
pub struct AtomicPartitionedBloom {
    bits: AtomicBitArray,
    slices: u32,
    slice_bits: u64,
}

impl AtomicPartitionedBloom {
    /// As [`PartitionedBloom::new`]: `slices` (`k`, 1..=64) slices of
    /// `slice_bits` (`m ≥ 1`) bits.
    ///
    /// ```
    /// use ddf_bloom::AtomicPartitionedBloom;
    /// assert_eq!(AtomicPartitionedBloom::new(7, 14_428)?.slices(), 7);
    /// assert_eq!(AtomicPartitionedBloom::new(65, 100).unwrap_err().param(), "slices");
    /// # Ok::<(), ddf_bloom::ParamError>(())
    /// ```
    pub fn new(slices: u32, slice_bits: u64) -> Result<Self, ParamError> {
        PartitionedBloom::new(slices, slice_bits).map(Self::from)
    }

    /// As [`PartitionedBloom::with_items`]: `items` distinct items at rate `fpr`.
    ///
    /// ```
    /// use ddf_bloom::AtomicPartitionedBloom;
    /// let f = AtomicPartitionedBloom::with_items(10_000, 0.01)?;
    /// assert_eq!((f.slices(), f.slice_bits()), (7, 14_428));
    /// assert_eq!(AtomicPartitionedBloom::with_items(10_000, 0.0).unwrap_err().param(), "fpr");
    /// # Ok::<(), ddf_bloom::ParamError>(())
    /// ```
    pub fn with_items(items: u64, fpr: f64) -> Result<Self, ParamError> {
        PartitionedBloom::with_items(items, fpr).map(Self::from)
    }

    /// Whether every slice holds `digest`'s bit.
    #[inline]
    pub fn contains(&self, digest: Digest) -> bool {
        positions(self.slices, self.slice_bits, digest).all(|p| self.bits.get(p))
    }

    /// Tests and sets each slice's bit; `Duplicate` if all were set.
    ///
    /// Every slice's word is read before any is written
    /// ([`AtomicBitArray::get_mask`], then
    /// [`set_missing`](AtomicBitArray::set_missing) for the bits found
    /// clear): a `fetch_or` lets no later read start before it completes,
    /// so reading and writing slice by slice waited for the `k` cache
    /// misses one after another. The verdict is that of the reads, as
    /// `contains` would give it just before the insertion.
    #[inline]
    pub fn observe(&self, digest: Digest) -> Verdict {
        let (k, m) = (self.slices, self.slice_bits);
        let known = self.bits.get_mask(positions(k, m, digest));
        self.bits.set_missing(positions(k, m, digest), known);
        // `k ≤ 64` slices, so the mask of all of them is `k` low bits.
        Verdict::from_seen(known == u64::MAX >> (64 - k))
    }

    /// Records `digest`.
    #[inline]
    pub fn insert(&self, digest: Digest) {
        self.observe(digest);
    }

    /// The number of slices, `k`.
    pub fn slices(&self) -> u32 {
        self.slices
    }

    /// The bits per slice, `m`.
    pub fn slice_bits(&self) -> u64 {
        self.slice_bits
    }

    /// A copy as the single-threaded filter: exact when no operation runs
    /// meanwhile; otherwise it holds every item inserted before the call.
    #[must_use]
    pub fn to_partitioned(&self) -> PartitionedBloom {
        PartitionedBloom {
            bits: self.bits.to_bit_array(),
            slices: self.slices,
            slice_bits: self.slice_bits,
        }
    }

    /// The single-threaded filter with this state.
    #[must_use]
    pub fn into_inner(self) -> PartitionedBloom {
        self.to_partitioned()
    }
}

impl From<PartitionedBloom> for AtomicPartitionedBloom {
    fn from(f: PartitionedBloom) -> Self {
        AtomicPartitionedBloom {
            bits: AtomicBitArray::from_bit_array(&f.bits),
            slices: f.slices,
            slice_bits: f.slice_bits,
        }
    }
}

impl From<AtomicPartitionedBloom> for PartitionedBloom {
    fn from(f: AtomicPartitionedBloom) -> Self {
        f.into_inner()
    }
}

impl fmt::Debug for AtomicPartitionedBloom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AtomicPartitionedBloom")
            .field("slices", &self.slices)
            .field("slice_bits", &self.slice_bits)
            .finish_non_exhaustive()
    }
}

/// Through `&mut self`, for code written against the trait.
impl ddf_core::DuplicateFilter for AtomicPartitionedBloom {
    #[inline]
    fn contains(&self, digest: Digest) -> bool {
        AtomicPartitionedBloom::contains(self, digest)
    }

    #[inline]
    fn insert(&mut self, digest: Digest) {
        AtomicPartitionedBloom::insert(self, digest);
    }

    #[inline]
    fn observe(&mut self, digest: Digest) -> Verdict {
        AtomicPartitionedBloom::observe(self, digest)
    }

    fn memory_bits(&self) -> u64 {
        self.bits.len()
    }

    fn clear(&mut self) {
        self.bits.clear();
    }
}

/// The whole stream: a Bloom filter never forgets.
impl ddf_core::Windowed for AtomicPartitionedBloom {
    fn window(&self) -> ddf_core::Window {
        ddf_core::Window::Unbounded
    }
}

/// The bytes of [`PartitionedBloom`]: the same kind, so either type loads
/// the other's.
impl Snapshot for AtomicPartitionedBloom {
    const KIND: u16 = <PartitionedBloom as Snapshot>::KIND;
    const VERSION: u16 = <PartitionedBloom as Snapshot>::VERSION;
    const OLDEST_VERSION: u16 = <PartitionedBloom as Snapshot>::OLDEST_VERSION;

    fn encode_body(&self, out: &mut Encoder) {
        self.to_partitioned().encode_body(out);
    }

    fn decode_body(input: &mut Decoder<'_>, version: u16) -> Result<Self, DecodeError> {
        PartitionedBloom::decode_body(input, version).map(Self::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ddf_core::DuplicateFilter;

    #[test]
    fn threads_lose_no_item_and_copies_match() {
        let f = AtomicPartitionedBloom::with_items(40_000, 0.01).unwrap();
        std::thread::scope(|s| {
            for t in 0..8u64 {
                let f = &f;
                s.spawn(move || {
                    for i in 0..5_000 {
                        f.insert(Digest::mixed(t << 32 | i));
                        // Its own insertion happened before: always reported.
                        assert!(f.contains(Digest::mixed(t << 32 | i)));
                    }
                });
            }
        });
        let mut plain = PartitionedBloom::with_items(40_000, 0.01).unwrap();
        for t in 0..8u64 {
            for i in 0..5_000 {
                plain.insert(Digest::mixed(t << 32 | i));
            }
        }
        // Setting bits commutes: any order of insertions gives these bits.
        assert_eq!(f.to_bytes(), plain.to_bytes());
        let back = AtomicPartitionedBloom::from_bytes(&plain.to_bytes()).unwrap();
        assert_eq!(back.into_inner(), plain);
    }

    #[test]
    fn one_thread_gives_partitioned_verdicts() {
        let mut plain = PartitionedBloom::new(5, 3_000).unwrap();
        let mut atomic = AtomicPartitionedBloom::from(plain.clone());
        for i in 0..10_000u64 {
            let d = Digest::mixed(i % 4_000 * 7);
            assert_eq!(DuplicateFilter::observe(&mut atomic, d), plain.observe(d));
        }
        assert_eq!(atomic.into_inner(), plain);
    }
}
