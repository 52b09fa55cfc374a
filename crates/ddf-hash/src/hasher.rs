//! Item hashers: the default keyed SipHash-1-3 and an unkeyed mixer for trusted keys.

use crate::mix::{GOLDEN_GAMMA, mix64};
use siphasher::sip::SipHasher13;
use std::fmt;
use std::hash::{BuildHasher, Hasher};

/// A hasher whose identity and key can be written into a snapshot and read
/// back, so a restored filter hashes items exactly as the original did.
pub trait PortableHasher: BuildHasher + Clone {
    /// A stable number naming the hash function and its use of the key.
    const ID: u16;

    /// The key, as stored in a snapshot. A secret key is secret in the
    /// snapshot too: whoever reads it can aim items at chosen cells.
    fn key_bytes(&self) -> Vec<u8>;

    /// The hasher with a stored key, or `None` if the bytes are not a valid key.
    fn from_key_bytes(bytes: &[u8]) -> Option<Self>;
}

/// The default item hasher: SipHash-1-3 under a 128-bit key.
///
/// [`new`](Self::new) draws the key from the operating system's random
/// source, so an adversary who sees only DUPLICATE/UNSEEN answers cannot aim
/// items at chosen cells (QHT paper §7, Thm 7.2). [`with_seed`](Self::with_seed)
/// fixes the key for reproducible experiments; such a key is not secret.
///
/// `Debug` does not print the key.
#[derive(Clone, PartialEq, Eq)]
pub struct KeyedSipHasher {
    k0: u64,
    k1: u64,
}

impl KeyedSipHasher {
    /// A hasher with a fresh random key.
    ///
    /// # Panics
    ///
    /// If the operating system's random source fails, as std's `HashMap`
    /// does; [`try_new`](Self::try_new) returns the error instead.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_hash::{KeyedSipHasher, digest};
    ///
    /// // Two fresh keys hash the same item differently (with overwhelming odds).
    /// let (a, b) = (KeyedSipHasher::new(), KeyedSipHasher::new());
    /// assert_ne!(digest(&a, "item"), digest(&b, "item"));
    /// ```
    #[must_use]
    pub fn new() -> Self {
        match Self::try_new() {
            Ok(h) => h,
            Err(e) => panic!("ddf-hash: the OS random source failed: {e}"),
        }
    }

    /// A hasher with a fresh random key, or the random source's error.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_hash::KeyedSipHasher;
    ///
    /// let hasher = KeyedSipHasher::try_new()?;
    /// # drop(hasher);
    /// # Ok::<(), getrandom::Error>(())
    /// ```
    pub fn try_new() -> Result<Self, getrandom::Error> {
        let mut key = [0u8; 16];
        getrandom::fill(&mut key)?;
        Ok(Self::with_key(key))
    }

    /// A hasher whose key is derived from `seed`: reproducible, not secret.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_hash::{KeyedSipHasher, digest};
    ///
    /// let (a, b) = (KeyedSipHasher::with_seed(7), KeyedSipHasher::with_seed(7));
    /// assert_eq!(digest(&a, "item"), digest(&b, "item"));
    /// ```
    #[must_use]
    pub const fn with_seed(seed: u64) -> Self {
        KeyedSipHasher {
            k0: mix64(seed ^ 0x6464_662d_6b65_7930),
            k1: mix64(seed.wrapping_add(GOLDEN_GAMMA) ^ 0x6464_662d_6b65_7931),
        }
    }

    /// A hasher with the given 128-bit key (little-endian `k0 ‖ k1`).
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_hash::{KeyedSipHasher, digest};
    ///
    /// let a = KeyedSipHasher::with_key(*b"0123456789abcdef");
    /// let b = KeyedSipHasher::with_key(*b"0123456789abcdef");
    /// assert_eq!(digest(&a, &1u64), digest(&b, &1u64));
    /// ```
    #[must_use]
    pub const fn with_key(key: [u8; 16]) -> Self {
        let [
            a0,
            a1,
            a2,
            a3,
            a4,
            a5,
            a6,
            a7,
            b0,
            b1,
            b2,
            b3,
            b4,
            b5,
            b6,
            b7,
        ] = key;
        KeyedSipHasher {
            k0: u64::from_le_bytes([a0, a1, a2, a3, a4, a5, a6, a7]),
            k1: u64::from_le_bytes([b0, b1, b2, b3, b4, b5, b6, b7]),
        }
    }

    /// The key. Treat it as a secret when the hasher was built by [`new`](Self::new).
    #[must_use]
    pub fn key(&self) -> [u8; 16] {
        let mut key = [0u8; 16];
        key[..8].copy_from_slice(&self.k0.to_le_bytes());
        key[8..].copy_from_slice(&self.k1.to_le_bytes());
        key
    }
}

impl Default for KeyedSipHasher {
    /// Same as [`KeyedSipHasher::new`]: a random key.
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for KeyedSipHasher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("KeyedSipHasher { key: <secret> }")
    }
}

impl BuildHasher for KeyedSipHasher {
    type Hasher = SipHasher13;

    #[inline]
    fn build_hasher(&self) -> SipHasher13 {
        SipHasher13::new_with_keys(self.k0, self.k1)
    }
}

impl PortableHasher for KeyedSipHasher {
    const ID: u16 = 1;

    fn key_bytes(&self) -> Vec<u8> {
        self.key().to_vec()
    }

    fn from_key_bytes(bytes: &[u8]) -> Option<Self> {
        let key: [u8; 16] = bytes.try_into().ok()?;
        Some(Self::with_key(key))
    }
}

/// An unkeyed, fast hasher for trusted keys: ground-truth dictionaries in
/// simulations and callers' own integer identifiers. One [`mix64`] per
/// 64-bit word written.
///
/// An adversary can compute its outputs; use it only where the keys are not
/// chosen by one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MixState;

impl BuildHasher for MixState {
    type Hasher = MixHasher;

    #[inline]
    fn build_hasher(&self) -> MixHasher {
        MixHasher {
            state: GOLDEN_GAMMA,
        }
    }
}

impl PortableHasher for MixState {
    const ID: u16 = 2;

    fn key_bytes(&self) -> Vec<u8> {
        Vec::new()
    }

    fn from_key_bytes(bytes: &[u8]) -> Option<Self> {
        bytes.is_empty().then_some(MixState)
    }
}

/// The hasher of [`MixState`].
#[derive(Debug, Clone)]
pub struct MixHasher {
    state: u64,
}

impl Hasher for MixHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.state
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
        let tail = chunks.remainder();
        let mut word = [0u8; 8];
        word[..tail.len()].copy_from_slice(tail);
        // The tail length goes into the top byte so "ab" and "ab\0" differ.
        self.write_u64(u64::from_le_bytes(word) ^ ((tail.len() as u64) << 56));
    }

    #[inline]
    fn write_u64(&mut self, x: u64) {
        self.state = mix64(self.state ^ x);
    }

    #[inline]
    fn write_u32(&mut self, x: u32) {
        self.write_u64(u64::from(x));
    }

    #[inline]
    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }

    #[inline]
    fn write_u8(&mut self, x: u8) {
        self.write_u64(u64::from(x));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_keys_differ_and_debug_hides_them() {
        let a = KeyedSipHasher::new();
        let b = KeyedSipHasher::new();
        assert_ne!(a.key(), b.key());
        let shown = format!("{a:?}");
        assert!(shown.contains("secret"));
        assert!(!shown.contains(&format!("{}", a.k0)));
    }

    #[test]
    fn key_round_trips() {
        let h = KeyedSipHasher::with_seed(5);
        let back = KeyedSipHasher::from_key_bytes(&h.key_bytes()).unwrap();
        assert_eq!(h, back);
        assert_eq!(h.hash_one(42u64), back.hash_one(42u64));
        assert!(KeyedSipHasher::from_key_bytes(&[0; 15]).is_none());
        assert_eq!(MixState::from_key_bytes(&[]), Some(MixState));
        assert!(MixState::from_key_bytes(&[1]).is_none());
    }

    #[test]
    fn seeds_give_different_keys() {
        assert_ne!(
            KeyedSipHasher::with_seed(1).key(),
            KeyedSipHasher::with_seed(2).key()
        );
    }

    #[test]
    fn mix_hasher_separates_tails() {
        let s = MixState;
        assert_ne!(s.hash_one(b"ab".as_slice()), s.hash_one(b"ab\0".as_slice()));
        assert_ne!(s.hash_one(1u64), s.hash_one(2u64));
    }
}
