//! The 64-bit digest of an item and the index and probe derivations on it.

use crate::mix::mix64;
use ddf_param::ParamError;

/// The 64-bit hash of one item, from which a filter derives everything it needs.
///
/// Filters never see items, only digests: an item is hashed once (by a keyed
/// [`KeyedSipHasher`](crate::KeyedSipHasher) by default) and the digest is
/// split into a row or block index, a fingerprint, or a sequence of Bloom
/// probes. Callers that already hold a well-mixed 64-bit hash wrap it with
/// [`Digest::new`]; for raw identifiers that are not uniformly distributed
/// (counters, timestamps) use [`Digest::mixed`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[repr(transparent)]
pub struct Digest(u64);

impl std::fmt::Debug for Digest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Digest({:#018x})", self.0)
    }
}

impl Digest {
    /// Wraps a 64-bit hash the caller already computed. It must be close to
    /// uniform over all 64 bits, as a good hash function's output is.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_hash::Digest;
    ///
    /// let d = Digest::new(0x0123_4567_89ab_cdef);
    /// assert_eq!(d.get(), 0x0123_4567_89ab_cdef);
    /// ```
    #[inline]
    #[must_use]
    pub const fn new(hash: u64) -> Self {
        Digest(hash)
    }

    /// Wraps a raw 64-bit value after a bijective mix, so that sequential or
    /// structured identifiers behave like uniform hashes. Distinct values stay
    /// distinct. Not keyed: an adversary who chooses the values chooses the digests.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_hash::Digest;
    ///
    /// // Sequential ids become spread-out digests, still distinct.
    /// assert_ne!(Digest::mixed(1), Digest::mixed(2));
    /// assert_ne!(Digest::mixed(1).get(), 1);
    /// ```
    #[inline]
    #[must_use]
    pub const fn mixed(value: u64) -> Self {
        Digest(mix64(value))
    }

    /// The 64 bits.
    #[inline]
    #[must_use]
    pub const fn get(self) -> u64 {
        self.0
    }

    /// Maps the digest to `0..n` by multiply-shift range reduction
    /// (`floor(h · n / 2^64)`): one multiplication, no division, and uniform up
    /// to a bias of `n / 2^64`. Returns 0 when `n` is 0.
    #[inline]
    #[must_use]
    pub const fn reduce(self, n: u64) -> u64 {
        ((self.0 as u128 * n as u128) >> 64) as u64
    }

    /// Splits the digest into an index in `0..n` (as [`reduce`](Self::reduce))
    /// and the rest: the low 64 bits of `h · n`, which given the index are
    /// still close to uniform.
    ///
    /// This is the quotienting step of quotient filters and QHT: the index
    /// picks the row and the rest feeds the fingerprint, so the two are
    /// independent for any `n`, not only for powers of two. The bias is about
    /// `n · 2^s / 2^64` for an `s`-bit fingerprint taken from the rest's top bits.
    #[inline]
    #[must_use]
    pub const fn split(self, n: u64) -> (u64, Digest) {
        let product = self.0 as u128 * n as u128;
        ((product >> 64) as u64, Digest(product as u64))
    }

    /// Checks that [`split`](Self::split)`(n)` leaves enough of the digest
    /// for a `rest_bits`-bit value taken from the rest: the index uses about
    /// `⌈log₂ n⌉` bits, so `⌈log₂ n⌉ + rest_bits ≤ 64` is needed, or values
    /// taken from the rest's top bits would repeat structurally rather than
    /// by chance. Fails with a [`ParamError`] against `param` (the parameter
    /// that sets `n`, such as `rows`).
    ///
    /// ```
    /// use ddf_hash::Digest;
    /// assert!(Digest::check_split("rows", 1 << 32, 32).is_ok());
    /// assert_eq!(Digest::check_split("rows", (1 << 32) + 1, 32).unwrap_err().param(), "rows");
    /// ```
    pub fn check_split(param: &'static str, n: u64, rest_bits: u32) -> Result<(), ParamError> {
        let index_bits = if n <= 1 {
            0
        } else {
            64 - (n - 1).leading_zeros()
        };
        if index_bits + rest_bits > 64 {
            return Err(ParamError::new(
                param,
                n,
                format!(
                    "at most 2^{} with {rest_bits} bits left for the fingerprint",
                    64u32.saturating_sub(rest_bits)
                ),
            ));
        }
        Ok(())
    }

    /// The top `bits` bits of the digest, `bits` in `0..=64`.
    #[inline]
    #[must_use]
    pub const fn top_bits(self, bits: u32) -> u64 {
        if bits == 0 { 0 } else { self.0 >> (64 - bits) }
    }

    /// A second, independent-looking digest derived from this one by a fixed
    /// bijective mix, for structures that need two hashes of an item.
    #[inline]
    #[must_use]
    pub const fn remix(self) -> Digest {
        Digest(mix64(self.0 ^ crate::mix::GOLDEN_GAMMA))
    }

    /// The probe sequence of enhanced double hashing over `0..m`.
    ///
    /// The `i`-th probe is `reduce(a + i·b + (i³ − i)/6, m)` with `a` the
    /// digest and `b` its [`remix`](Self::remix) made odd (Dillinger and
    /// Manolios' enhanced double hashing, with multiply-shift in place of `%`).
    /// Partitioned Bloom filters take probe `i` in slice `i`; the cubic term
    /// keeps probes apart when `b` happens to be small.
    #[inline]
    #[must_use]
    pub const fn probes(self, m: u64) -> Probes {
        Probes {
            hashes: self.indexed_probes().hashes_from(0),
            m,
        }
    }
}

impl Digest {
    /// Random access to the same probe sequence as [`probes`](Self::probes):
    /// probe `i` without computing the `i` before it.
    ///
    /// Age-partitioned filters tie one probe to each physical slice and visit
    /// slices out of order (the APBF query jumps back `k` slices on a miss),
    /// so they need probe `i` directly.
    #[inline]
    #[must_use]
    pub const fn indexed_probes(self) -> IndexedProbes {
        IndexedProbes {
            a: self.0,
            b: self.remix().0 | 1,
        }
    }
}

/// The probe sequence of one digest with random access; see
/// [`Digest::indexed_probes`]. `index(i, m)` equals the `i`-th item of
/// [`Digest::probes`]`(m)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexedProbes {
    a: u64,
    b: u64,
}

impl IndexedProbes {
    /// The raw 64-bit value of probe `i`, `a + i·b + (i³ − i)/6` (mod 2^64),
    /// before range reduction: a well-mixed hash for structures that derive
    /// more than an index from a probe (a block and the bits within it).
    #[inline]
    #[must_use]
    pub const fn hash(self, i: u32) -> u64 {
        let i = i as u64;
        // (i − 1)·i·(i + 1) is divisible by 6; below 2^21 it fits in 64 bits.
        let cubic = if i < 1 << 21 {
            i.saturating_sub(1) * i * (i + 1) / 6
        } else {
            let i = i as u128;
            ((i - 1) * i * (i + 1) / 6) as u64
        };
        self.a
            .wrapping_add(i.wrapping_mul(self.b))
            .wrapping_add(cubic)
    }

    /// Probe `i` reduced to `0..m` by multiply-shift.
    #[inline]
    #[must_use]
    pub const fn index(self, i: u32, m: u64) -> u64 {
        Digest(self.hash(i)).reduce(m)
    }

    /// The raw values of probes `i, i + 1, …` by the recurrence (two
    /// additions per probe instead of the cubic term), for a run of
    /// consecutive probes such as the slices an insertion sets.
    #[inline]
    #[must_use]
    pub const fn hashes_from(self, i: u32) -> ProbeHashes {
        let i64 = i as u64;
        // The step from probe i to i + 1 is b + i·(i + 1)/2.
        let tri = ((i64 as u128 * (i64 as u128 + 1)) / 2) as u64;
        ProbeHashes {
            x: self.hash(i),
            y: self.b.wrapping_add(tri),
            i: i64,
        }
    }
}

/// The raw 64-bit values of consecutive probes; see [`IndexedProbes::hashes_from`].
#[derive(Debug, Clone)]
pub struct ProbeHashes {
    x: u64,
    y: u64,
    i: u64,
}

impl Iterator for ProbeHashes {
    type Item = u64;

    #[inline]
    fn next(&mut self) -> Option<u64> {
        let out = self.x;
        self.i = self.i.wrapping_add(1);
        self.x = self.x.wrapping_add(self.y);
        self.y = self.y.wrapping_add(self.i);
        Some(out)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (usize::MAX, None)
    }
}

impl From<u64> for Digest {
    /// Same as [`Digest::new`]: the value must already be a uniform hash.
    fn from(hash: u64) -> Self {
        Digest(hash)
    }
}

/// The endless sequence of Bloom probe positions of one digest; see [`Digest::probes`].
#[derive(Debug, Clone)]
pub struct Probes {
    hashes: ProbeHashes,
    m: u64,
}

impl Iterator for Probes {
    type Item = u64;

    #[inline]
    fn next(&mut self) -> Option<u64> {
        let x = self.hashes.next().unwrap_or_default();
        Some(Digest(x).reduce(self.m))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (usize::MAX, None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reduce_covers_range_and_handles_edges() {
        assert_eq!(Digest::new(u64::MAX).reduce(10), 9);
        assert_eq!(Digest::new(0).reduce(10), 0);
        assert_eq!(Digest::new(u64::MAX).reduce(0), 0);
        assert_eq!(Digest::new(1 << 63).reduce(2), 1);
        assert_eq!(Digest::new(u64::MAX).reduce(u64::MAX), u64::MAX - 1);
    }

    #[test]
    fn split_recombines() {
        let d = Digest::new(0x0123_4567_89ab_cdef);
        for n in [1u64, 2, 3, 1000, 1 << 20, u64::MAX] {
            let (index, rest) = d.split(n);
            assert_eq!(index, d.reduce(n));
            let product = (index as u128) << 64 | rest.get() as u128;
            assert_eq!(product, d.get() as u128 * n as u128);
        }
    }

    #[test]
    fn top_bits_edges() {
        let d = Digest::new(0xf000_0000_0000_0001);
        assert_eq!(d.top_bits(0), 0);
        assert_eq!(d.top_bits(4), 0xf);
        assert_eq!(d.top_bits(64), d.get());
    }

    #[test]
    fn indexed_probes_match_the_sequence() {
        for h in [0u64, 1, u64::MAX, 0xdead_beef, 0x0123_4567_89ab_cdef] {
            let d = Digest::new(h);
            let at = d.indexed_probes();
            let mut seq = d.probes(1 << 40);
            for i in 0..200u32 {
                assert_eq!(
                    at.index(i, 1 << 40),
                    seq.next().unwrap(),
                    "h = {h:#x}, i = {i}"
                );
            }
            for start in [0u32, 1, 7, 100] {
                let run: Vec<u64> = at.hashes_from(start).take(50).collect();
                let direct: Vec<u64> = (start..start + 50).map(|i| at.hash(i)).collect();
                assert_eq!(run, direct, "h = {h:#x}, start = {start}");
            }
            // Past the 64-bit fast path the value still follows the recurrence.
            let (x, y) = (at.hash((1 << 21) - 1), at.hash(1 << 21));
            let step = d.remix().get() | 1;
            assert_eq!(
                y,
                x.wrapping_add(step)
                    .wrapping_add(((1u64 << 21) - 1) * (1 << 21) / 2)
            );
        }
    }

    #[test]
    fn probes_stay_in_range() {
        for h in [0u64, 1, u64::MAX, 0xdead_beef] {
            assert!(Digest::new(h).probes(17).take(100).all(|p| p < 17));
        }
    }
}
