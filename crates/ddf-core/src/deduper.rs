//! `Deduper`: the typed front that owns the hasher and takes items.

use crate::filter::{DuplicateFilter, TimedFilter, Verdict};
use crate::snapshot::{self, DecodeError, Snapshot};
use ddf_hash::{Digest, KeyedSipHasher, PortableHasher};
use std::hash::{BuildHasher, Hash};

/// Items per block when a batch of items is hashed before the filter sees it.
///
/// A prefetching filter starts each block with nothing in flight, so the
/// first item of a block waits out a whole memory latency; 256 items spread
/// that stall thinner than 64 did (QHT at 64 MiB: about 4× over one by one
/// against 3.5×), and 2 KiB of digests still sit in L1.
const HASH_BLOCK: usize = 256;

/// Digests per block when the items are known to be few: a server's
/// one-item command then zeroes 128 bytes instead of 2 KiB.
const SHORT_BLOCK: usize = 16;

/// A filter together with the hasher that turns items into digests.
///
/// This is the front door for most users: build a filter, wrap it, and
/// observe items of any `Hash` type. The default hasher is
/// [`KeyedSipHasher`] with a random key.
///
/// ```
/// use ddf_core::{Deduper, DuplicateFilter, Digest, Verdict};
///
/// // A toy filter for the example: remembers digests exactly.
/// #[derive(Debug, Default)]
/// struct Set(std::collections::HashSet<Digest>);
/// impl DuplicateFilter for Set {
///     fn contains(&self, d: Digest) -> bool { self.0.contains(&d) }
///     fn insert(&mut self, d: Digest) { self.0.insert(d); }
///     fn memory_bits(&self) -> u64 { 64 * self.0.len() as u64 }
///     fn clear(&mut self) { self.0.clear() }
/// }
///
/// let mut seen = Deduper::new(Set::default());
/// assert_eq!(seen.observe("click-17"), Verdict::Unseen);
/// assert_eq!(seen.observe("click-17"), Verdict::Duplicate);
/// assert!(seen.contains("click-17"));
/// ```
#[derive(Debug, Clone)]
pub struct Deduper<F, S = KeyedSipHasher> {
    filter: F,
    hasher: S,
}

impl<F: DuplicateFilter> Deduper<F> {
    /// Wraps `filter` with a [`KeyedSipHasher`] under a fresh random key.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_core::{Deduper, Digest, DuplicateFilter, Verdict};
    ///
    /// /// A filter that remembers one digest, enough for the example.
    /// #[derive(Debug, Default)]
    /// struct Last(Option<Digest>);
    /// impl DuplicateFilter for Last {
    ///     fn contains(&self, d: Digest) -> bool { self.0 == Some(d) }
    ///     fn insert(&mut self, d: Digest) { self.0 = Some(d) }
    ///     fn memory_bits(&self) -> u64 { 65 }
    ///     fn clear(&mut self) { self.0 = None }
    /// }
    ///
    /// let mut seen = Deduper::new(Last::default());
    /// assert_eq!(seen.observe("x"), Verdict::Unseen);
    /// assert_eq!(seen.observe("x"), Verdict::Duplicate);
    /// ```
    pub fn new(filter: F) -> Self {
        Deduper {
            filter,
            hasher: KeyedSipHasher::new(),
        }
    }

    /// Wraps `filter` with a [`KeyedSipHasher`] whose key is derived from
    /// `seed`: runs that must replay exactly (tests, experiments). A key an
    /// adversary can guess lets them aim items at chosen cells; use
    /// [`new`](Self::new) in production.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_core::{Deduper, Digest, DuplicateFilter};
    ///
    /// #[derive(Debug, Default)]
    /// struct Last(Option<Digest>);
    /// impl DuplicateFilter for Last {
    ///     fn contains(&self, d: Digest) -> bool { self.0 == Some(d) }
    ///     fn insert(&mut self, d: Digest) { self.0 = Some(d) }
    ///     fn memory_bits(&self) -> u64 { 65 }
    ///     fn clear(&mut self) { self.0 = None }
    /// }
    ///
    /// // The same seed gives the same digests: runs replay.
    /// let (a, b) = (Deduper::with_seed(Last::default(), 3), Deduper::with_seed(Last::default(), 3));
    /// assert_eq!(a.digest("x"), b.digest("x"));
    /// ```
    pub fn with_seed(filter: F, seed: u64) -> Self {
        Deduper {
            filter,
            hasher: KeyedSipHasher::with_seed(seed),
        }
    }
}

impl<F: DuplicateFilter, S: BuildHasher> Deduper<F, S> {
    /// Wraps `filter` with the given hasher.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_core::{Deduper, Digest, DuplicateFilter, Verdict};
    /// use std::collections::hash_map::RandomState;
    ///
    /// #[derive(Debug, Default)]
    /// struct Last(Option<Digest>);
    /// impl DuplicateFilter for Last {
    ///     fn contains(&self, d: Digest) -> bool { self.0 == Some(d) }
    ///     fn insert(&mut self, d: Digest) { self.0 = Some(d) }
    ///     fn memory_bits(&self) -> u64 { 65 }
    ///     fn clear(&mut self) { self.0 = None }
    /// }
    ///
    /// // Any `BuildHasher` will do (snapshots need a `PortableHasher`).
    /// let mut seen = Deduper::with_hasher(Last::default(), RandomState::new());
    /// assert_eq!(seen.observe(&17u64), Verdict::Unseen);
    /// assert_eq!(seen.observe(&17u64), Verdict::Duplicate);
    /// ```
    pub fn with_hasher(filter: F, hasher: S) -> Self {
        Deduper { filter, hasher }
    }

    /// The digest the filter sees for `item`.
    #[inline]
    pub fn digest<T: Hash + ?Sized>(&self, item: &T) -> Digest {
        ddf_hash::digest(&self.hasher, item)
    }

    /// Detect, then insert, `item`.
    #[inline]
    pub fn observe<T: Hash + ?Sized>(&mut self, item: &T) -> Verdict {
        let d = self.digest(item);
        self.filter.observe(d)
    }

    /// Whether `item` is reported as seen. No side effects.
    #[inline]
    pub fn contains<T: Hash + ?Sized>(&self, item: &T) -> bool {
        self.filter.contains(self.digest(item))
    }

    /// Records `item` as seen.
    #[inline]
    pub fn insert<T: Hash + ?Sized>(&mut self, item: &T) {
        let d = self.digest(item);
        self.filter.insert(d);
    }

    /// Observes `items` in order, appending one verdict per item to
    /// `verdicts`. Items are hashed in blocks and each block goes through the
    /// filter's [`observe_batch`](DuplicateFilter::observe_batch), so filters
    /// that prefetch get to do so.
    pub fn observe_many<'a, T, I>(&mut self, items: I, verdicts: &mut Vec<Verdict>)
    where
        T: Hash + ?Sized + 'a,
        I: IntoIterator<Item = &'a T>,
    {
        self.in_blocks(items, |f, block| f.observe_batch(block, verdicts));
    }

    /// Hashes `items` in blocks of [`HASH_BLOCK`] and hands each block, in
    /// order, to `feed` with the filter.
    ///
    /// When the iterator promises fewer than [`SHORT_BLOCK`] items (its
    /// `size_hint`), a block of that size is zeroed instead of the full one.
    /// It never fills, so the blocks fed are those of the full path; a hint
    /// that lies only makes them shorter.
    fn in_blocks<'a, T, I>(&mut self, items: I, feed: impl FnMut(&mut F, &[Digest]))
    where
        T: Hash + ?Sized + 'a,
        I: IntoIterator<Item = &'a T>,
    {
        let items = items.into_iter();
        if items.size_hint().1.is_some_and(|n| n < SHORT_BLOCK) {
            self.hash_in_blocks::<SHORT_BLOCK, T, _>(items, feed);
        } else {
            self.hash_in_blocks::<HASH_BLOCK, T, _>(items, feed);
        }
    }

    /// [`in_blocks`](Self::in_blocks) with blocks of `N` digests.
    fn hash_in_blocks<'a, const N: usize, T, I>(
        &mut self,
        items: I,
        mut feed: impl FnMut(&mut F, &[Digest]),
    ) where
        T: Hash + ?Sized + 'a,
        I: Iterator<Item = &'a T>,
    {
        let mut block = [Digest::default(); N];
        let mut filled = 0;
        for item in items {
            block[filled] = self.digest(item);
            filled += 1;
            if filled == N {
                feed(&mut self.filter, &block);
                filled = 0;
            }
        }
        feed(&mut self.filter, &block[..filled]);
    }

    /// The filter.
    pub fn filter(&self) -> &F {
        &self.filter
    }

    /// The filter, mutably (to insert digests directly, or `clear` it).
    pub fn filter_mut(&mut self) -> &mut F {
        &mut self.filter
    }

    /// The hasher.
    pub fn hasher(&self) -> &S {
        &self.hasher
    }

    /// Splits into filter and hasher.
    pub fn into_parts(self) -> (F, S) {
        (self.filter, self.hasher)
    }
}

impl<F: crate::Merge, S: PortableHasher> Deduper<F, S> {
    /// Merges `other`'s filter into this one ([`Merge`](crate::Merge)): the
    /// hasher keys must be equal (else equal items would have different
    /// digests), then the filters' own rule decides.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_core::{Deduper, Digest, DuplicateFilter, KeyedSipHasher, Merge, MergeError};
    ///
    /// // A toy filter for the example: a set that merges by union.
    /// #[derive(Debug, Default, Clone)]
    /// struct Set(std::collections::BTreeSet<Digest>);
    /// impl DuplicateFilter for Set {
    ///     fn contains(&self, d: Digest) -> bool { self.0.contains(&d) }
    ///     fn insert(&mut self, d: Digest) { self.0.insert(d); }
    ///     fn memory_bits(&self) -> u64 { 64 * self.0.len() as u64 }
    ///     fn clear(&mut self) { self.0.clear() }
    /// }
    /// impl Merge for Set {
    ///     fn merge(&mut self, other: &Self) -> Result<(), MergeError> {
    ///         self.0.extend(&other.0);
    ///         Ok(())
    ///     }
    /// }
    ///
    /// let key = KeyedSipHasher::with_seed(7);
    /// let mut a = Deduper::with_hasher(Set::default(), key.clone());
    /// let mut b = Deduper::with_hasher(Set::default(), key);
    /// b.insert("x");
    /// assert_eq!(a.merge(&b), Ok(()));
    /// assert!(a.contains("x"));
    /// let other_key = Deduper::with_hasher(Set::default(), KeyedSipHasher::with_seed(8));
    /// assert_eq!(a.merge(&other_key), Err(MergeError::HashKey));
    /// ```
    pub fn merge(&mut self, other: &Self) -> Result<(), crate::MergeError> {
        if self.hasher.key_bytes() != other.hasher.key_bytes() {
            return Err(crate::MergeError::HashKey);
        }
        self.filter.merge(&other.filter)
    }
}

impl<F: TimedFilter, S: BuildHasher> Deduper<F, S> {
    /// Detect, then insert, `item` at time `now` (caller's unit, non-decreasing).
    #[inline]
    pub fn observe_at<T: Hash + ?Sized>(&mut self, item: &T, now: u64) -> Verdict {
        let d = self.digest(item);
        self.filter.observe_at(d, now)
    }

    /// Whether `item` is reported as seen at time `now`. No side effects.
    #[inline]
    pub fn contains_at<T: Hash + ?Sized>(&self, item: &T, now: u64) -> bool {
        self.filter.contains_at(self.digest(item), now)
    }

    /// Records `item` as seen at time `now`.
    #[inline]
    pub fn insert_at<T: Hash + ?Sized>(&mut self, item: &T, now: u64) {
        let d = self.digest(item);
        self.filter.insert_at(d, now);
    }

    /// Observes `items` in order at the one time `now`, appending one verdict
    /// per item to `verdicts`: items are hashed in blocks and each block goes
    /// through the filter's [`observe_batch_at`](TimedFilter::observe_batch_at).
    pub fn observe_many_at<'a, T, I>(&mut self, items: I, now: u64, verdicts: &mut Vec<Verdict>)
    where
        T: Hash + ?Sized + 'a,
        I: IntoIterator<Item = &'a T>,
    {
        self.in_blocks(items, |f, block| f.observe_batch_at(block, now, verdicts));
    }
}

impl<F: Snapshot, S: PortableHasher> Deduper<F, S> {
    /// A snapshot of filter and hasher key. The key is in the clear: keep
    /// the bytes as secret as the key (see [`snapshot`]).
    pub fn to_bytes(&self) -> Vec<u8> {
        snapshot::seal_with_hasher(&self.filter, &self.hasher)
    }

    /// Restores a `Deduper` from [`to_bytes`](Self::to_bytes) output.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_core::{DecodeError, Deduper, Digest, DuplicateFilter, Snapshot, Verdict};
    /// # use ddf_core::snapshot::{self, Decoder, Encoder};
    /// # #[derive(Debug, Default)]
    /// # struct Last(Option<Digest>);
    /// # impl DuplicateFilter for Last {
    /// #     fn contains(&self, d: Digest) -> bool { self.0 == Some(d) }
    /// #     fn insert(&mut self, d: Digest) { self.0 = Some(d) }
    /// #     fn memory_bits(&self) -> u64 { 65 }
    /// #     fn clear(&mut self) { self.0 = None }
    /// # }
    /// # impl Snapshot for Last {
    /// #     const KIND: u16 = snapshot::kind::TEST;
    /// #     fn encode_body(&self, out: &mut Encoder) {
    /// #         out.put_bool(self.0.is_some());
    /// #         out.put_u64(self.0.map_or(0, Digest::get));
    /// #     }
    /// #     fn decode_body(input: &mut Decoder<'_>, _version: u16) -> Result<Self, DecodeError> {
    /// #         let some = input.bool("present")?;
    /// #         let d = Digest::new(input.u64("digest")?);
    /// #         Ok(Last(some.then_some(d)))
    /// #     }
    /// # }
    /// // `Last` is a toy filter that remembers one digest (hidden above).
    /// let mut seen = Deduper::with_seed(Last::default(), 1);
    /// seen.observe("x");
    /// let bytes = seen.to_bytes();
    /// let mut again = Deduper::<Last>::from_bytes(&bytes)?;
    /// assert_eq!(again.observe("x"), Verdict::Duplicate); // same key, same state
    /// assert!(Deduper::<Last>::from_bytes(&bytes[..bytes.len() - 1]).is_err());
    /// # Ok::<(), DecodeError>(())
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        let (filter, hasher) = snapshot::open_with_hasher::<F, S>(bytes)?;
        Ok(Deduper { filter, hasher })
    }

    /// Writes the snapshot to `writer`.
    pub fn write_to<W: std::io::Write>(&self, mut writer: W) -> std::io::Result<()> {
        writer.write_all(&self.to_bytes())
    }

    /// Reads one snapshot from `reader`, leaving later bytes unread.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_core::{DecodeError, Deduper, Digest, DuplicateFilter, Snapshot, Verdict};
    /// # use ddf_core::snapshot::{self, Decoder, Encoder};
    /// # #[derive(Debug, Default)]
    /// # struct Last(Option<Digest>);
    /// # impl DuplicateFilter for Last {
    /// #     fn contains(&self, d: Digest) -> bool { self.0 == Some(d) }
    /// #     fn insert(&mut self, d: Digest) { self.0 = Some(d) }
    /// #     fn memory_bits(&self) -> u64 { 65 }
    /// #     fn clear(&mut self) { self.0 = None }
    /// # }
    /// # impl Snapshot for Last {
    /// #     const KIND: u16 = snapshot::kind::TEST;
    /// #     fn encode_body(&self, out: &mut Encoder) {
    /// #         out.put_bool(self.0.is_some());
    /// #         out.put_u64(self.0.map_or(0, Digest::get));
    /// #     }
    /// #     fn decode_body(input: &mut Decoder<'_>, _version: u16) -> Result<Self, DecodeError> {
    /// #         let some = input.bool("present")?;
    /// #         let d = Digest::new(input.u64("digest")?);
    /// #         Ok(Last(some.then_some(d)))
    /// #     }
    /// # }
    /// // Two snapshots in one stream, read one after the other.
    /// let mut file = Vec::new();
    /// Deduper::with_seed(Last::default(), 1).write_to(&mut file).unwrap();
    /// Deduper::with_seed(Last::default(), 2).write_to(&mut file).unwrap();
    /// let mut reader = file.as_slice();
    /// let first = Deduper::<Last>::read_from(&mut reader)?;
    /// let second = Deduper::<Last>::read_from(&mut reader)?;
    /// assert_ne!(first.digest("x"), second.digest("x"));
    /// assert!(reader.is_empty());
    /// # Ok::<(), DecodeError>(())
    /// ```
    pub fn read_from<R: std::io::Read>(reader: R) -> Result<Self, DecodeError> {
        Self::from_bytes(&snapshot::read_sealed(reader)?)
    }
}

/// A `Deduper` serializes as its snapshot bytes, hasher key included: keep
/// the output as secret as the key.
#[cfg(feature = "serde")]
impl<F: Snapshot, S: PortableHasher> serde::Serialize for Deduper<F, S> {
    fn serialize<Z: serde::Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
        serializer.serialize_bytes(&self.to_bytes())
    }
}

/// Deserializes through [`Deduper::from_bytes`], the validating decoder.
#[cfg(feature = "serde")]
impl<'de, F: Snapshot, S: PortableHasher> serde::Deserialize<'de> for Deduper<F, S> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let bytes = snapshot::serde_bytes::deserialize_bytes(deserializer)?;
        Deduper::from_bytes(&bytes).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// Remembers each digest with its time, and the length of every batch
    /// it is fed.
    #[derive(Debug, Default, Clone)]
    struct Log {
        seen: HashMap<Digest, u64>,
        batches: Vec<usize>,
    }

    impl DuplicateFilter for Log {
        fn contains(&self, d: Digest) -> bool {
            self.seen.contains_key(&d)
        }
        fn insert(&mut self, d: Digest) {
            self.seen.insert(d, 0);
        }
        fn observe_batch(&mut self, digests: &[Digest], verdicts: &mut Vec<Verdict>) {
            self.batches.push(digests.len());
            verdicts.extend(digests.iter().map(|&d| self.observe(d)));
        }
        fn memory_bits(&self) -> u64 {
            64 * self.seen.len() as u64
        }
        fn clear(&mut self) {
            self.seen.clear();
        }
    }

    impl TimedFilter for Log {
        fn contains_at(&self, d: Digest, _now: u64) -> bool {
            self.seen.contains_key(&d)
        }
        fn insert_at(&mut self, d: Digest, now: u64) {
            self.seen.insert(d, now);
        }
        fn observe_batch_at(&mut self, digests: &[Digest], now: u64, out: &mut Vec<Verdict>) {
            self.batches.push(digests.len());
            out.extend(digests.iter().map(|&d| self.observe_at(d, now)));
        }
        fn clock_regressions(&self) -> u64 {
            0
        }
        fn generations_closed_early(&self) -> u64 {
            0
        }
    }

    /// The batch lengths `n` items must be fed in: whole blocks of
    /// [`HASH_BLOCK`], then the rest (possibly empty).
    fn expected_batches(n: usize) -> Vec<usize> {
        let mut b = vec![HASH_BLOCK; n / HASH_BLOCK];
        b.push(n % HASH_BLOCK);
        b
    }

    #[test]
    fn many_items_answer_as_one_by_one_at_every_block_edge() {
        let lengths = [0, 1, 2, 15, 16, 17, 255, 256, 257, 272, 513, 700];
        for n in lengths {
            // Repeats within and across blocks: item i is i mod 300.
            let items: Vec<u64> = (0..n as u64).map(|i| i % 300).collect();
            let mut one = Deduper::with_seed(Log::default(), 3);
            let singles: Vec<Verdict> = items.iter().map(|i| one.observe(i)).collect();
            let mut many = Deduper::with_seed(Log::default(), 3);
            let mut verdicts = Vec::new();
            many.observe_many(items.iter(), &mut verdicts);
            assert_eq!(verdicts, singles, "n = {n}");
            assert_eq!(many.filter().batches, expected_batches(n), "n = {n}");

            let mut timed = Deduper::with_seed(Log::default(), 3);
            let mut at = Vec::new();
            timed.observe_many_at(items.iter(), 9, &mut at);
            assert_eq!(at, singles, "n = {n}");
            assert_eq!(timed.filter().batches, expected_batches(n), "n = {n}");
            assert!(timed.filter().seen.values().all(|&t| t == 9));

            // No size hint: the full block from the start, the same batches.
            let mut rest = items.iter();
            let mut unhinted = Deduper::with_seed(Log::default(), 3);
            let mut v = Vec::new();
            unhinted.observe_many(std::iter::from_fn(|| rest.next()), &mut v);
            assert_eq!(v, singles, "n = {n}");
            assert_eq!(unhinted.filter().batches, expected_batches(n), "n = {n}");
        }
    }
}
