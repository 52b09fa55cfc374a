//! The Short Hash Filter: a ring of the last `w` hashes plus a counting dictionary.

use crate::ring::{HashRing, WordRing};
use crate::table::{self, Table};
use ddf_core::batch::{self, Prefetch};
use ddf_core::snapshot::{self, DecodeError, Decoder, Encoder, Snapshot};
use ddf_core::{Digest, DuplicateFilter, ParamError, Verdict, Window, Windowed};

/// The Short Hash Filter (SHF) of *Approaching Optimal Duplicate Detection
/// in a Sliding Window*, §3.2, Algorithm 1: the exact windowed filter of
/// Theorem 1 with each item replaced by an `h`-bit hash of it.
///
/// A ring keeps the hashes of the last `w` insertions and a dictionary counts
/// each hash's occurrences in the ring, so lookup and insertion are O(1).
/// No false negatives within the window; a false positive needs a hash
/// collision with one of the `w` stored hashes, probability
/// `1 − (1 − 2^(−h))^w` (Theorem 3).
///
/// Sizing, in the paper's symbols: window `w`, hash width `h`
/// (`hash_bits`), memory `M = 2·w·h + w·log₂ w` (ring, dictionary keys,
/// counters, as Algorithm 1 counts them).
///
/// The dictionary is an open-addressing table of fixed size (see the
/// `table` module): a hash and its counter share one cell, `observe` finds
/// and counts the new hash with one probe, and the batch path prefetches the
/// cells of the new and the evicted hash ahead of time.
///
/// # Examples
///
/// ```
/// use ddf_shf::{Deduper, Shf, Verdict};
///
/// let mut seen = Deduper::new(Shf::with_memory(100_000, 2_000)?);
/// assert_eq!(seen.observe("tx-1"), Verdict::Unseen);
/// assert_eq!(seen.observe("tx-1"), Verdict::Duplicate);
/// # Ok::<(), ddf_shf::ParamError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Shf {
    ring: WordRing,
    counts: Counts,
}

/// The dictionary, with cells as narrow as the hash and counter allow.
#[derive(Debug, Clone)]
enum Counts {
    /// `h + ⌈log₂(w + 1)⌉ ≤ 64`.
    Narrow(Table<u64>),
    Wide(Table<u128>),
}

/// Runs `$body` with `$t` bound to the dictionary's table, whichever width.
macro_rules! with_table {
    ($counts:expr, $t:ident => $body:expr) => {
        match $counts {
            Counts::Narrow($t) => $body,
            Counts::Wide($t) => $body,
        }
    };
}

impl Counts {
    fn new(window: u64, hash_bits: u32) -> Result<Self, ParamError> {
        Ok(if table::is_narrow(window, hash_bits) {
            Counts::Narrow(Table::new(window, hash_bits)?)
        } else {
            Counts::Wide(Table::new(window, hash_bits)?)
        })
    }
}

impl Shf {
    /// An SHF over the last `window` insertions (`w`, 1..=2^32 − 1) with
    /// hashes of `hash_bits` bits (`h`, 1..=64).
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_shf::{Digest, DuplicateFilter, Shf, Verdict};
    ///
    /// let mut f = Shf::new(1_000, 20)?;
    /// assert_eq!(f.observe(Digest::mixed(4)), Verdict::Unseen);
    /// assert_eq!(f.observe(Digest::mixed(4)), Verdict::Duplicate);
    /// assert_eq!(Shf::new(0, 20).unwrap_err().param(), "window");
    /// # Ok::<(), ddf_shf::ParamError>(())
    /// ```
    pub fn new(window: u64, hash_bits: u32) -> Result<Self, ParamError> {
        let ring = WordRing::new(window, hash_bits)?;
        table::check(window, hash_bits)?;
        Ok(Shf {
            ring,
            counts: Counts::new(window, hash_bits)?,
        })
    }

    /// The SHF of Algorithm 1 for `memory_bits` (`M`) and `window` (`w`):
    /// `h = ⌊M/(2w) − ½·log₂ w⌋`, at most 64 (wider hashes would not lower the
    /// error measurably; [`memory_bits`](DuplicateFilter::memory_bits) then
    /// reports less than `M`). Fails unless `h ≥ 1`.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_shf::Shf;
    ///
    /// assert_eq!(Shf::with_memory(100_000, 2_000)?.hash_bits(), 19);
    /// assert!(Shf::with_memory(1_000, 2_000).is_err());
    /// # Ok::<(), ddf_shf::ParamError>(())
    /// ```
    pub fn with_memory(memory_bits: u64, window: u64) -> Result<Self, ParamError> {
        ddf_param::ensure_window(window, u64::MAX)?;
        let h = ddf_theory::shf::shf_hash_bits(memory_bits as f64, window as f64).floor();
        if h < 1.0 {
            let need = (2.0 * window as f64 + window as f64 * (window as f64).log2()).ceil();
            return Err(ParamError::new(
                "memory_bits",
                memory_bits,
                format!("at least {need} bits for a window of {window} (a 1-bit hash)"),
            ));
        }
        Self::new(window, h.min(64.0) as u32)
    }

    /// The near-exact SHF of Theorem 2 for `window`: `h = 2·⌈log₂ w⌉`, so
    /// the false-positive probability is about `1/w`.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_shf::Shf;
    ///
    /// assert_eq!(Shf::near_exact(1_000)?.hash_bits(), 20);
    /// # Ok::<(), ddf_shf::ParamError>(())
    /// ```
    pub fn near_exact(window: u64) -> Result<Self, ParamError> {
        ddf_param::ensure_window(window, u64::MAX)?;
        Self::new(window, crate::near_exact_bits(window))
    }

    /// The hash width `h` in bits.
    pub fn hash_bits(&self) -> u32 {
        self.ring.hash_bits()
    }

    /// Algorithm 1's insertion: count `hash`, push it onto the ring and
    /// uncount the hash it overwrites; returns whether `hash` was stored.
    #[inline]
    fn add(&mut self, hash: u64) -> bool {
        with_table!(&mut self.counts, t => {
            let seen = t.add(hash);
            if let Some(old) = self.ring.push(hash) {
                t.remove_one(old);
            }
            seen
        })
    }

    /// Hints the cells the insertion `ahead` operations from now touches:
    /// the new hash's home and, once the ring is full, the home of the hash
    /// it will overwrite (still in the ring now, unless the window is
    /// shorter than the look-ahead; a wrong hint only wastes a fetch).
    #[inline(always)]
    fn prefetch_insert(&self, digest: Digest, ahead: usize) {
        let hash = self.ring.hash_of(digest);
        let old = self.ring.oldest_after(ahead);
        with_table!(&self.counts, t => {
            t.prefetch(hash);
            if let Some(old) = old {
                t.prefetch(old);
            }
        });
    }
}

/// The cache line of the new hash's home cell.
impl Prefetch for Shf {
    /// At most two lines per item (the new and the evicted hash's cells).
    const LOOKAHEAD: usize = 8;
    /// A table that fits the core's caches gains nothing from hints, and
    /// computing them (a ring read per item) costs a tenth of an operation.
    const MIN_PREFETCH_BITS: u64 = 1 << 24;

    #[inline]
    fn prefetch(&self, digest: Digest) {
        let hash = self.ring.hash_of(digest);
        with_table!(&self.counts, t => t.prefetch(hash));
    }
}

impl DuplicateFilter for Shf {
    #[inline]
    fn contains(&self, digest: Digest) -> bool {
        let hash = self.ring.hash_of(digest);
        with_table!(&self.counts, t => t.contains(hash))
    }

    #[inline]
    fn insert(&mut self, digest: Digest) {
        let hash = self.ring.hash_of(digest);
        self.add(hash);
    }

    /// One dictionary probe for detect and insert together.
    #[inline]
    fn observe(&mut self, digest: Digest) -> Verdict {
        let hash = self.ring.hash_of(digest);
        Verdict::from_seen(self.add(hash))
    }

    /// Prefetches [`LOOKAHEAD`](Prefetch::LOOKAHEAD) items ahead: each
    /// item's home cell and the evicted hash's, then observes in order.
    fn observe_batch(&mut self, digests: &[Digest], verdicts: &mut Vec<Verdict>) {
        verdicts.reserve(digests.len());
        if self.memory_bits() < Self::MIN_PREFETCH_BITS {
            verdicts.extend(digests.iter().map(|&d| self.observe(d)));
            return;
        }
        let ahead = Self::LOOKAHEAD.min(digests.len());
        for (j, &d) in digests[..ahead].iter().enumerate() {
            self.prefetch_insert(d, j);
        }
        for (i, &d) in digests.iter().enumerate() {
            if let Some(&next) = digests.get(i + ahead) {
                self.prefetch_insert(next, ahead);
            }
            verdicts.push(self.observe(d));
        }
    }

    fn contains_batch(&self, digests: &[Digest], answers: &mut Vec<bool>) {
        batch::contains_batch(self, digests, answers);
    }

    /// `2·w·h + ⌈w·log₂ w⌉`: ring and dictionary keys of `h` bits each and
    /// counters of `log₂ w` bits, as Algorithm 1 sizes them.
    fn memory_bits(&self) -> u64 {
        let w = self.ring.window();
        ddf_theory::shf::shf_memory_bits(f64::from(self.hash_bits()), w as f64).ceil() as u64
    }

    fn clear(&mut self) {
        self.ring.clear();
        with_table!(&mut self.counts, t => t.clear());
    }
}

impl Windowed for Shf {
    fn window(&self) -> Window {
        Window::Count(self.ring.window())
    }
}

/// Body: window, hash width, ring length and head, ring words; the
/// dictionary is rebuilt from the ring.
/// Refused: the SHF's window is the last `w` insertions of one stream.
impl ddf_core::Merge for Shf {
    fn merge(&mut self, _other: &Self) -> Result<(), ddf_core::MergeError> {
        Err(ddf_core::MergeError::CountWindow { family: "SHF" })
    }
}

impl Snapshot for Shf {
    const KIND: u16 = snapshot::kind::SHF;

    fn encode_body(&self, out: &mut Encoder) {
        self.ring.encode_packed(out);
    }

    fn decode_body(input: &mut Decoder<'_>, _version: u16) -> Result<Self, DecodeError> {
        let ring = WordRing::from_packed(&HashRing::decode(input)?)?;
        table::check(ring.window(), ring.hash_bits())?;
        let mut counts = Counts::new(ring.window(), ring.hash_bits())?;
        for hash in ring.hashes() {
            with_table!(&mut counts, t => t.add(hash));
        }
        Ok(Shf { ring, counts })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizing_follows_algorithm_1() {
        // M = 10^5, w = 1000: h = floor(50 − ½·log2 1000) = floor(45.02) = 45.
        let f = Shf::with_memory(100_000, 1000).unwrap();
        assert_eq!(f.hash_bits(), 45);
        assert!(f.memory_bits() <= 100_000);
        assert_eq!(Shf::near_exact(1000).unwrap().hash_bits(), 20);
        assert_eq!(
            Shf::with_memory(100_000, 10_000).unwrap_err().param(),
            "memory_bits"
        );
        assert_eq!(Shf::new(0, 8).unwrap_err().param(), "window");
        assert_eq!(Shf::new(10, 0).unwrap_err().param(), "hash_bits");
        assert_eq!(Shf::new(10, 65).unwrap_err().param(), "hash_bits");
        assert_eq!(Shf::with_memory(u64::MAX, 4).unwrap().hash_bits(), 64);
    }

    /// Found by the parameter test: with `w = 1` the new hash is counted
    /// while the old one is still in the table, two keys in a table sized
    /// for one, and a probe never ended.
    #[test]
    fn the_table_holds_the_new_hash_beside_a_full_ring() {
        for h in [1, 2, 31, 64] {
            let mut f = Shf::new(1, h).unwrap();
            let d = |i: u64| Digest::mixed(i % 3);
            for i in 0..64 {
                let same = d(i).top_bits(h) == d(i + 2).top_bits(h);
                f.observe(d(i));
                assert_eq!(f.observe(d(i)), Verdict::Duplicate);
                assert_eq!(f.contains(d(i + 2)), same);
            }
        }
    }

    #[test]
    fn window_is_exact_for_distinct_hashes() {
        let mut f = Shf::new(3, 64).unwrap();
        let d = |i: u64| Digest::mixed(i);
        assert_eq!(f.observe(d(1)), Verdict::Unseen);
        for i in 2..=4 {
            f.observe(d(i));
        }
        assert_eq!(f.observe(d(1)), Verdict::Unseen);
        assert_eq!(f.observe(d(3)), Verdict::Duplicate);
    }
}

#[cfg(test)]
mod decode_tests {
    use super::*;
    use ddf_core::snapshot::seal;

    /// Found by the `shf` fuzz target: a body declaring a 2^32-item ring of
    /// 64-bit hashes made the decoder allocate 32 GiB before it looked for
    /// the ring's words. It must fail on the missing words instead.
    #[test]
    fn huge_declared_ring_is_rejected_without_allocating() {
        let mut body = Encoder::new();
        body.put_u64(u64::from(u32::MAX));
        body.put_u32(64);
        body.put_u64(0);
        body.put_u64(0);
        body.put_u64(0); // zero ring words follow
        let bytes = seal(Shf::KIND, Shf::VERSION, 0, &[], &body.into_bytes());
        assert!(matches!(
            Shf::from_bytes(&bytes),
            Err(DecodeError::Invalid { field: "ring", .. })
        ));
    }
}
