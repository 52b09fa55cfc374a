//! The ring buffer of the last `w` hashes that both filters of this crate keep.

use ddf_bits::{BitArray, FieldScan};
use ddf_core::ParamError;
use ddf_core::snapshot::{DecodeError, Decoder, Encoder};
use ddf_param::checked_mul;

/// The last `w` hashes of `h` bits, packed back to back, oldest overwritten
/// first. Fills positions `0, 1, …` until full, then wraps, so the occupied
/// positions are always `0..len`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HashRing {
    bits: BitArray,
    scan: FieldScan,
    window: u64,
    /// Where the next hash goes; when the ring is full, the oldest hash.
    head: u64,
    len: u64,
}

/// The parameter rule of every ring (and so of both filters): `w` in
/// 1..=2^32 − 1, `h` in 1..=64, `w·h` bits within the state limit.
pub(crate) fn check(window: u64, hash_bits: u32) -> Result<(), ParamError> {
    ddf_param::ensure_window(window, u64::from(u32::MAX))?;
    ddf_param::ensure_range("hash_bits", hash_bits, 1..=64)?;
    ddf_param::state_words(
        "window",
        checked_mul("window", window, u64::from(hash_bits))?,
    )?;
    Ok(())
}

impl HashRing {
    /// A ring of `window` hashes of `hash_bits` bits (1..=64).
    pub(crate) fn new(window: u64, hash_bits: u32) -> Result<Self, ParamError> {
        check(window, hash_bits)?;
        let scan = FieldScan::new(hash_bits)
            .map_err(|_| ParamError::new("hash_bits", hash_bits, "1..=64"))?;
        let bits = BitArray::new(checked_mul("window", window, u64::from(hash_bits))?)
            .map_err(|e| ParamError::new("window", window, e.expected().to_string()))?;
        Ok(HashRing {
            bits,
            scan,
            window,
            head: 0,
            len: 0,
        })
    }

    pub(crate) fn window(&self) -> u64 {
        self.window
    }

    pub(crate) fn hash_bits(&self) -> u32 {
        self.scan.width()
    }

    /// The hash width's mask applied to a digest: its top `h` bits.
    #[inline]
    pub(crate) fn hash_of(&self, digest: ddf_core::Digest) -> u64 {
        digest.top_bits(self.scan.width())
    }

    /// Appends `hash`; returns the hash it overwrote once the ring is full.
    #[inline]
    pub(crate) fn push(&mut self, hash: u64) -> Option<u64> {
        let h = self.scan.width();
        let at = self.head * u64::from(h);
        let evicted = (self.len == self.window).then(|| self.bits.read_bits(at, h));
        self.bits.write_bits(at, h, hash);
        self.head += 1;
        if self.head == self.window {
            self.head = 0;
        }
        self.len = (self.len + 1).min(self.window);
        evicted
    }

    /// Whether `hash` is among the stored hashes: a linear scan, 64 bits at a time.
    #[inline]
    pub(crate) fn contains(&self, hash: u64) -> bool {
        self.scan.find(&self.bits, 0, self.len, hash).is_some()
    }

    /// The stored hashes, in position order.
    pub(crate) fn hashes(&self) -> impl Iterator<Item = u64> + '_ {
        let h = self.scan.width();
        (0..self.len).map(move |i| self.bits.read_bits(i * u64::from(h), h))
    }

    pub(crate) fn clear(&mut self) {
        self.bits.clear();
        self.head = 0;
        self.len = 0;
    }

    /// Parameters, clock and payload.
    pub(crate) fn encode(&self, out: &mut Encoder) {
        out.put_u64(self.window);
        out.put_u32(self.scan.width());
        out.put_u64(self.len);
        out.put_u64(self.head);
        out.put_words(self.bits.as_words());
    }

    /// Reads what [`encode`](Self::encode) wrote, checking the clock against
    /// the parameters and that unused positions are empty.
    /// Nothing is allocated from the stored sizes until the ring's words are
    /// known to be present in the input.
    pub(crate) fn decode(input: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        let window = input.u64("window")?;
        let hash_bits = input.u32("hash_bits")?;
        ddf_param::ensure_window(window, u64::from(u32::MAX))?;
        let scan = FieldScan::new(hash_bits)
            .map_err(|_| ParamError::new("hash_bits", hash_bits, "1..=64"))?;
        let len = input.u64("len")?;
        let head = input.u64("head")?;
        if len > window || head >= window || (len < window && head != len) {
            return Err(DecodeError::invalid(
                "ring clock",
                "length and head inconsistent with the window",
            ));
        }
        // `words` checks its count against the bytes present before allocating.
        let words = input.words("ring")?;
        let ring_bits = window * u64::from(hash_bits);
        if words.len() as u64 != ring_bits.div_ceil(64) {
            return Err(DecodeError::invalid(
                "ring",
                "word count does not match window and hash width",
            ));
        }
        let bits = BitArray::from_words(ring_bits, words)
            .map_err(|e| DecodeError::invalid("ring", e.to_string()))?;
        let ring = HashRing {
            bits,
            scan,
            window,
            head,
            len,
        };
        let h = u64::from(hash_bits);
        let unused_nonzero = (len..window).any(|i| ring.bits.read_bits(i * h, hash_bits) != 0);
        if unused_nonzero {
            return Err(DecodeError::invalid(
                "ring",
                "hashes stored beyond the ring's length",
            ));
        }
        Ok(ring)
    }
}
