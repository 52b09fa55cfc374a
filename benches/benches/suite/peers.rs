//! The peer crates behind `DuplicateFilter`, fed the same digests as ddf's filters.

use ddf_core::{Digest, DuplicateFilter, Verdict};
use ddf_hash::mix64;
use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::{BuildHasher, Hasher};

/// Hands a digest that is already a uniform 64-bit hash through unchanged:
/// a peer that hashes its items then costs one hash, ours, like our filters.
/// Anything beyond a single `u64` (a peer hashing a fingerprint's bytes)
/// is mixed, so derived hashes stay uniform.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct PassThrough;

#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct PassThroughHasher {
    state: u64,
    writes: u32,
}

impl Hasher for PassThroughHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.state
    }

    #[inline]
    fn write_u64(&mut self, x: u64) {
        self.state = if self.writes == 0 {
            x
        } else {
            mix64(self.state ^ x)
        };
        self.writes += 1;
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(mix64(u64::from_le_bytes(word) ^ chunk.len() as u64));
        }
    }
}

impl BuildHasher for PassThrough {
    type Hasher = PassThroughHasher;

    #[inline]
    fn build_hasher(&self) -> PassThroughHasher {
        PassThroughHasher::default()
    }
}

/// `fastbloom::BloomFilter` (blocked, 512-bit blocks) at `bits` bits and `hashes` probes.
#[derive(Debug, Clone)]
pub(crate) struct FastBloom(fastbloom::BloomFilter<PassThrough>);

impl FastBloom {
    pub(crate) fn new(bits: u64, hashes: u32) -> Self {
        FastBloom(
            fastbloom::BloomFilter::with_num_bits(bits as usize)
                .hasher(PassThrough)
                .hashes(hashes),
        )
    }
}

impl DuplicateFilter for FastBloom {
    fn contains(&self, d: Digest) -> bool {
        self.0.contains_hash(d.get())
    }
    fn insert(&mut self, d: Digest) {
        self.0.insert_hash(d.get());
    }
    #[inline]
    fn observe(&mut self, d: Digest) -> Verdict {
        Verdict::from_seen(self.0.insert_hash(d.get()))
    }
    fn memory_bits(&self) -> u64 {
        self.0.num_bits() as u64
    }
    fn clear(&mut self) {
        self.0.clear();
    }
}

/// `sbbf_rs_safe::Filter`: Parquet's split-block Bloom filter (256-bit blocks, 8 probes).
#[derive(Debug)]
pub(crate) struct Sbbf {
    filter: sbbf_rs_safe::Filter,
    bits: u64,
}

impl Sbbf {
    pub(crate) fn new(bits_per_key: usize, keys: usize) -> Self {
        let filter = sbbf_rs_safe::Filter::new(bits_per_key, keys);
        let bits = 8 * filter.as_bytes().len() as u64;
        Sbbf { filter, bits }
    }
}

impl DuplicateFilter for Sbbf {
    fn contains(&self, d: Digest) -> bool {
        self.filter.contains_hash(d.get())
    }
    fn insert(&mut self, d: Digest) {
        self.filter.insert_hash(d.get());
    }
    #[inline]
    fn observe(&mut self, d: Digest) -> Verdict {
        Verdict::from_seen(self.filter.insert_hash(d.get()))
    }
    fn memory_bits(&self) -> u64 {
        self.bits
    }
    fn clear(&mut self) {
        self.filter.reset();
    }
}

/// `cuckoofilter::CuckooFilter` (4 one-byte fingerprints per bucket, 500 relocations).
pub(crate) struct Cuckoo {
    filter: cuckoofilter::CuckooFilter<PassThroughHasher>,
    capacity: usize,
}

impl std::fmt::Debug for Cuckoo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cuckoo")
            .field("capacity", &self.capacity)
            .finish_non_exhaustive()
    }
}

impl Cuckoo {
    pub(crate) fn new(capacity: usize) -> Self {
        Cuckoo {
            filter: cuckoofilter::CuckooFilter::with_capacity(capacity),
            capacity,
        }
    }
}

impl DuplicateFilter for Cuckoo {
    fn contains(&self, d: Digest) -> bool {
        self.filter.contains(&d.get())
    }
    fn insert(&mut self, d: Digest) {
        // A full table drops the item, as the streaming cuckoo does.
        let _ = self.filter.add(&d.get());
    }
    #[inline]
    fn observe(&mut self, d: Digest) -> Verdict {
        match self.filter.test_and_add(&d.get()) {
            Ok(added) => Verdict::from_seen(!added),
            Err(_) => Verdict::Unseen,
        }
    }
    fn memory_bits(&self) -> u64 {
        8 * self.filter.memory_usage() as u64
    }
    fn clear(&mut self) {
        *self = Cuckoo::new(self.capacity);
    }
}

/// `qfilter::Filter`, a rank-select quotient filter, fed digests as fingerprints.
#[derive(Debug, Clone)]
pub(crate) struct QFilter(qfilter::Filter);

impl QFilter {
    /// The largest filter at rate `fp` whose memory is at most `bits`, and its capacity.
    pub(crate) fn with_memory(bits: u64, fp: f64) -> (Self, u64) {
        let fits =
            |n: u64| qfilter::Filter::new(n, fp).is_ok_and(|f| 8 * f.memory_usage() as u64 <= bits);
        let mut n = 64;
        while fits(2 * n) {
            n *= 2;
        }
        // Binary search between n and 2n.
        let (mut lo, mut hi) = (n, 2 * n);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if fits(mid) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let f = qfilter::Filter::new(lo, fp).expect("fits");
        let capacity = f.capacity();
        (QFilter(f), capacity)
    }
}

impl DuplicateFilter for QFilter {
    fn contains(&self, d: Digest) -> bool {
        self.0.contains_fingerprint(d.get())
    }
    fn insert(&mut self, d: Digest) {
        let _ = self.0.insert_fingerprint(false, d.get());
    }
    #[inline]
    fn observe(&mut self, d: Digest) -> Verdict {
        match self.0.insert_fingerprint(false, d.get()) {
            Ok(inserted) => Verdict::from_seen(!inserted),
            Err(_) => Verdict::from_seen(self.0.contains_fingerprint(d.get())),
        }
    }
    fn memory_bits(&self) -> u64 {
        8 * self.0.memory_usage() as u64
    }
    fn clear(&mut self) {
        self.0.clear();
    }
}

/// The `qht` crate's QHT (the QHT authors' Rust code). It hashes its items
/// itself, with std's `DefaultHasher`, so our digest is its item.
pub(crate) struct QhtCrate {
    filter: qht::QuotientHashTable,
    bits: u64,
}

impl std::fmt::Debug for QhtCrate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QhtCrate")
            .field("bits", &self.bits)
            .finish_non_exhaustive()
    }
}

impl QhtCrate {
    pub(crate) fn new(bits: u64, buckets: usize, fingerprint_bits: usize) -> Self {
        QhtCrate {
            filter: qht::QuotientHashTable::new(bits as usize, buckets, fingerprint_bits),
            bits,
        }
    }
}

impl DuplicateFilter for QhtCrate {
    fn contains(&self, d: Digest) -> bool {
        use qht::Filter;
        self.filter.lookup(d.get())
    }
    fn insert(&mut self, d: Digest) {
        use qht::Filter;
        self.filter.insert(d.get());
    }
    #[inline]
    fn observe(&mut self, d: Digest) -> Verdict {
        use qht::Filter;
        Verdict::from_seen(self.filter.insert(d.get()))
    }
    fn memory_bits(&self) -> u64 {
        self.bits
    }
    fn clear(&mut self) {
        // The crate has no clear; nothing here calls it.
    }
}

/// `std::collections::HashSet` of digests.
#[derive(Debug, Clone, Default)]
pub(crate) struct StdSet(HashSet<u64, PassThrough>);

impl DuplicateFilter for StdSet {
    fn contains(&self, d: Digest) -> bool {
        self.0.contains(&d.get())
    }
    fn insert(&mut self, d: Digest) {
        self.0.insert(d.get());
    }
    #[inline]
    fn observe(&mut self, d: Digest) -> Verdict {
        Verdict::from_seen(!self.0.insert(d.get()))
    }
    fn memory_bits(&self) -> u64 {
        64 * self.0.capacity() as u64
    }
    fn clear(&mut self) {
        self.0.clear();
    }
}

/// The obvious exact window: a `VecDeque` of the last `w` digests and a
/// `HashMap` counting them.
#[derive(Debug, Clone)]
pub(crate) struct NaiveWindow {
    fifo: VecDeque<u64>,
    counts: HashMap<u64, u32, PassThrough>,
    window: usize,
}

impl NaiveWindow {
    pub(crate) fn new(window: usize) -> Self {
        NaiveWindow {
            fifo: VecDeque::with_capacity(window + 1),
            counts: HashMap::with_capacity_and_hasher(window + 1, PassThrough),
            window,
        }
    }
}

impl DuplicateFilter for NaiveWindow {
    fn contains(&self, d: Digest) -> bool {
        self.counts.contains_key(&d.get())
    }
    fn insert(&mut self, d: Digest) {
        self.fifo.push_back(d.get());
        *self.counts.entry(d.get()).or_insert(0) += 1;
        if self.fifo.len() > self.window
            && let Some(old) = self.fifo.pop_front()
            && let Some(c) = self.counts.get_mut(&old)
        {
            *c -= 1;
            if *c == 0 {
                self.counts.remove(&old);
            }
        }
    }
    fn memory_bits(&self) -> u64 {
        // Digest plus count per entry, twice for the FIFO's copy.
        (64 + 32 + 64) * self.window as u64
    }
    fn clear(&mut self) {
        self.fifo.clear();
        self.counts.clear();
    }
}
