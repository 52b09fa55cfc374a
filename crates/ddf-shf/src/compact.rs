//! The Compact Short Hash Filter: the ring of hashes alone, scanned on lookup.

use crate::ring::HashRing;
use ddf_core::snapshot::{self, DecodeError, Decoder, Encoder, Snapshot};
use ddf_core::{Digest, DuplicateFilter, ParamError, Window, Windowed};

/// The Compact Short Hash Filter (CSHF) of *Approaching Optimal Duplicate
/// Detection in a Sliding Window*, §3.2: the [`Shf`](crate::Shf) without its
/// dictionary. Half the memory per hash bit, so twice the hash bits for the
/// same budget (`h = ⌊M/w⌋`), at the price of an O(w) lookup.
///
/// The lookup compares the sought hash with every stored hash 64 bits at a
/// time ([`ddf_bits::FieldScan`]). No false negatives within the window; the
/// false-positive probability is `1 − (1 − 2^(−h))^w` (Theorem 3).
/// [`CompactShf::near_exact`] is the linear-time filter of Theorem 2.
///
/// **Its cost grows with the window.** An unseen item's lookup reads the
/// whole ring, `⌈w/⌊64/h⌋⌉` words (one read per `⌊64/h⌋` hashes), so an
/// `observe` costs O(w/⌊64/h⌋) where the [`Shf`](crate::Shf)'s is O(1).
/// Measured at a rate of 10⁻³ (`h` = 18 at `w` = 256 to 26 at 65,536;
/// `growth` in `benches/shf.rs`), each 4× window took 3.2–3.9× the time:
/// 0.36, 1.3, 4.2, 17 and 60 µs per operation at `w` = 2^8, 2^10, 2^12,
/// 2^14 and 2^16, SHF 66–101 ns in the same run (2 cores at load average
/// 6–7, so read the ratios: 3.5× SHF at 2^8, 14× at 2^10, 910× at 2^16).
/// Use it for windows of a few hundred items, where half the SHF's memory
/// is worth the scan; [`sizing`](CompactShf::sizing) reports the scan
/// (`scanned_words`), and the planner prices it and ranks the CSHF after a
/// cheaper filter of about its memory.
///
/// # Examples
///
/// ```
/// use ddf_shf::{CompactShf, Deduper, Verdict};
///
/// let mut seen = Deduper::new(CompactShf::with_memory(100_000, 2_000)?);
/// assert_eq!(seen.observe("tx-1"), Verdict::Unseen);
/// assert_eq!(seen.observe("tx-1"), Verdict::Duplicate);
/// # Ok::<(), ddf_shf::ParamError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompactShf {
    ring: HashRing,
}

impl CompactShf {
    /// A CSHF over the last `window` insertions (`w`, 1..=2^32 − 1) with
    /// hashes of `hash_bits` bits (`h`, 1..=64).
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_shf::{CompactShf, Digest, DuplicateFilter, Verdict};
    ///
    /// let mut f = CompactShf::new(1_000, 20)?;
    /// assert_eq!(f.memory_bits(), 20_000);
    /// assert_eq!(f.observe(Digest::mixed(4)), Verdict::Unseen);
    /// assert_eq!(f.observe(Digest::mixed(4)), Verdict::Duplicate);
    /// assert_eq!(CompactShf::new(1_000, 65).unwrap_err().param(), "hash_bits");
    /// # Ok::<(), ddf_shf::ParamError>(())
    /// ```
    pub fn new(window: u64, hash_bits: u32) -> Result<Self, ParamError> {
        Ok(CompactShf {
            ring: HashRing::new(window, hash_bits)?,
        })
    }

    /// The CSHF for `memory_bits` (`M`) and `window` (`w`): `h = ⌊M/w⌋`, at
    /// most 64. Fails unless `M ≥ w`.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_shf::CompactShf;
    ///
    /// assert_eq!(CompactShf::with_memory(100_000, 2_000)?.hash_bits(), 50);
    /// assert!(CompactShf::with_memory(100, 2_000).is_err());
    /// # Ok::<(), ddf_shf::ParamError>(())
    /// ```
    pub fn with_memory(memory_bits: u64, window: u64) -> Result<Self, ParamError> {
        ddf_param::ensure_window(window, u64::MAX)?;
        let h = memory_bits / window;
        if h == 0 {
            return Err(ParamError::new(
                "memory_bits",
                memory_bits,
                format!("at least {window} bits for a window of {window} (a 1-bit hash)"),
            ));
        }
        Self::new(window, h.min(64) as u32)
    }

    /// The near-exact linear-time filter of Theorem 2 for `window`:
    /// `h = 2·⌈log₂ w⌉`, false-positive probability about `1/w`.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_shf::CompactShf;
    ///
    /// // h = 2·⌈log₂ 1000⌉ = 20.
    /// assert_eq!(CompactShf::near_exact(1_000)?.hash_bits(), 20);
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
}

impl DuplicateFilter for CompactShf {
    #[inline]
    fn contains(&self, digest: Digest) -> bool {
        self.ring.contains(self.ring.hash_of(digest))
    }

    #[inline]
    fn insert(&mut self, digest: Digest) {
        let hash = self.ring.hash_of(digest);
        self.ring.push(hash);
    }

    /// `w·h`: the ring.
    fn memory_bits(&self) -> u64 {
        self.ring.window() * u64::from(self.hash_bits())
    }

    fn clear(&mut self) {
        self.ring.clear();
    }
}

impl Windowed for CompactShf {
    fn window(&self) -> Window {
        Window::Count(self.ring.window())
    }
}

/// Body: window, hash width, ring length and head, ring words.
/// Refused: the window is the last `w` insertions of one stream.
impl ddf_core::Merge for CompactShf {
    fn merge(&mut self, _other: &Self) -> Result<(), ddf_core::MergeError> {
        Err(ddf_core::MergeError::CountWindow {
            family: "compact SHF",
        })
    }
}

impl Snapshot for CompactShf {
    const KIND: u16 = snapshot::kind::COMPACT_SHF;

    fn encode_body(&self, out: &mut Encoder) {
        self.ring.encode(out);
    }

    fn decode_body(input: &mut Decoder<'_>, _version: u16) -> Result<Self, DecodeError> {
        Ok(CompactShf {
            ring: HashRing::decode(input)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizing_and_errors() {
        assert_eq!(
            CompactShf::with_memory(100_000, 6_000).unwrap().hash_bits(),
            16
        );
        assert_eq!(
            CompactShf::with_memory(999, 1_000).unwrap_err().param(),
            "memory_bits"
        );
        assert_eq!(CompactShf::near_exact(1 << 20).unwrap().hash_bits(), 40);
        assert_eq!(CompactShf::near_exact(1).unwrap().hash_bits(), 1);
    }
}
