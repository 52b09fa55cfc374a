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
        let evicted = if self.len == self.window {
            Some(self.bits.read_bits(at, h))
        } else {
            self.len += 1;
            None
        };
        self.bits.write_bits(at, h, hash);
        self.head += 1;
        if self.head == self.window {
            self.head = 0;
        }
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

/// The SHF's ring: the same positions, head and length as a [`HashRing`],
/// with each hash in a word of its own, so a push is one load and one store
/// instead of two unaligned field accesses (a third of the SHF's work per
/// item when packed). Snapshots and equality go through the packed form, so
/// the encoded layout is the [`HashRing`]'s.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct WordRing {
    slots: Vec<u64>,
    hash_bits: u32,
    /// Where the next hash goes; when the ring is full, the oldest hash.
    head: usize,
    len: usize,
}

impl WordRing {
    /// A ring of `window` hashes of `hash_bits` bits, parameters checked
    /// by [`check`].
    pub(crate) fn new(window: u64, hash_bits: u32) -> Result<Self, ParamError> {
        check(window, hash_bits)?;
        // One word per hash, within the state limit as the packed ring is.
        ddf_param::state_words("window", checked_mul("window", window, 64)?)?;
        Ok(WordRing {
            slots: vec![0; window as usize],
            hash_bits,
            head: 0,
            len: 0,
        })
    }

    pub(crate) fn window(&self) -> u64 {
        self.slots.len() as u64
    }

    pub(crate) fn hash_bits(&self) -> u32 {
        self.hash_bits
    }

    /// The digest's top `h` bits.
    #[inline]
    pub(crate) fn hash_of(&self, digest: ddf_core::Digest) -> u64 {
        digest.top_bits(self.hash_bits)
    }

    /// Appends `hash`; returns the hash it overwrote once the ring is full.
    #[inline]
    pub(crate) fn push(&mut self, hash: u64) -> Option<u64> {
        let full = self.len == self.slots.len();
        let old = std::mem::replace(&mut self.slots[self.head], hash);
        self.head += 1;
        if self.head == self.slots.len() {
            self.head = 0;
        }
        if full {
            Some(old)
        } else {
            self.len += 1;
            None
        }
    }

    /// The hash that the push `ahead` pushes from now will overwrite, if the
    /// ring is full and `ahead` is less than the window (for prefetching).
    #[inline]
    pub(crate) fn oldest_after(&self, ahead: usize) -> Option<u64> {
        let w = self.slots.len();
        if self.len < w || ahead >= w {
            return None;
        }
        let mut at = self.head + ahead;
        if at >= w {
            at -= w;
        }
        Some(self.slots[at])
    }

    /// The stored hashes, in position order.
    pub(crate) fn hashes(&self) -> impl Iterator<Item = u64> + '_ {
        self.slots[..self.len].iter().copied()
    }

    pub(crate) fn clear(&mut self) {
        self.slots.fill(0);
        self.head = 0;
        self.len = 0;
    }

    /// Writes the bytes [`HashRing::encode`] writes for a ring of the same
    /// contents: the snapshot layout stays the packed one.
    pub(crate) fn encode_packed(&self, out: &mut Encoder) {
        out.put_u64(self.window());
        out.put_u32(self.hash_bits);
        out.put_u64(self.len as u64);
        out.put_u64(self.head as u64);
        out.put_words(&BitArray::packed_words(
            self.window() as usize,
            self.hash_bits,
            self.hashes(),
        ));
    }

    /// The ring of a decoded packed ring.
    pub(crate) fn from_packed(ring: &HashRing) -> Result<Self, ParamError> {
        let mut out = WordRing::new(ring.window, ring.hash_bits())?;
        for (slot, hash) in out.slots.iter_mut().zip(ring.hashes()) {
            *slot = hash;
        }
        // Positions and clock fit `usize`: the slots were allocated.
        out.head = ring.head as usize;
        out.len = ring.len as usize;
        Ok(out)
    }
}
