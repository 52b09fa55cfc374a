//! Key streams: u64 keys or 40-byte strings, with or without recent repeats.

use ddf_hash::{SplitMix64, mix64};
use std::hash::{Hash, Hasher};

/// A 40-byte ASCII key, hashed exactly as a `&str` of the same bytes is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Str40(pub [u8; 40]);

impl Hash for Str40 {
    #[inline]
    fn hash<H: Hasher>(&self, state: &mut H) {
        // `str`'s Hash: the bytes, then a 0xff terminator.
        state.write(&self.0);
        state.write_u8(0xff);
    }
}

/// Whether a stream repeats items.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StreamKind {
    /// Every item is new.
    Distinct,
    /// Past the first [`MAX_GAP`] positions of a pass, each item
    /// repeats, with probability ½, the item `1..=MAX_GAP` positions back.
    Duplicates,
}

impl StreamKind {
    /// The name in reports: `distinct` or `dup50`.
    pub fn name(self) -> &'static str {
        match self {
            StreamKind::Distinct => "distinct",
            StreamKind::Duplicates => "dup50",
        }
    }
}

/// A pre-generated pass of keys, replayed with a fresh salt each time round.
#[derive(Debug, Clone)]
pub struct KeyStream<K> {
    keys: Vec<K>,
    pos: usize,
    pass: u64,
}

/// The furthest back a repeat reaches: within every window and capacity of
/// the 1 Mbit filters, so repeats are true duplicates.
pub const MAX_GAP: usize = 1 << 12;

impl<K: Clone> KeyStream<K> {
    fn from_fresh(mut fresh: impl FnMut() -> K, len: usize, kind: StreamKind, seed: u64) -> Self {
        let mut rng = SplitMix64::new(seed ^ 0x5eed);
        let mut keys: Vec<K> = Vec::with_capacity(len);
        for i in 0..len {
            let repeat = kind == StreamKind::Duplicates && i >= MAX_GAP && rng.below(2) == 0;
            let key = if repeat {
                keys[i - 1 - rng.below(MAX_GAP as u64) as usize].clone()
            } else {
                fresh()
            };
            keys.push(key);
        }
        KeyStream {
            keys,
            pos: 0,
            pass: 0,
        }
    }
}

impl<K> KeyStream<K> {
    /// The next `n` keys and the salt of their pass. `n` must divide the
    /// stream's length (all lengths and block sizes here are powers of two).
    #[inline]
    pub fn block(&mut self, n: usize) -> (&[K], u64) {
        if self.pos + n > self.keys.len() {
            self.pos = 0;
            self.pass += 1;
        }
        let start = self.pos;
        self.pos += n;
        let salt = if self.pass == 0 { 0 } else { mix64(self.pass) };
        (&self.keys[start..start + n], salt)
    }

    /// Keys per pass.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether the stream is empty.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}

impl KeyStream<u64> {
    /// `len` random u64 keys.
    pub fn u64_keys(len: usize, kind: StreamKind, seed: u64) -> Self {
        let mut rng = SplitMix64::new(seed);
        Self::from_fresh(|| rng.next_u64(), len, kind, seed)
    }
}

impl KeyStream<Str40> {
    /// `len` random 40-byte keys shaped like event ids: a fixed prefix, a
    /// hex number and random letters.
    pub fn str_keys(len: usize, kind: StreamKind, seed: u64) -> Self {
        const LETTERS: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut rng = SplitMix64::new(seed);
        let fresh = || {
            let mut key = *b"event:0000000000000000/xxxxxxxxxxxxxxxxx";
            let id = rng.next_u64();
            for (i, b) in key[6..22].iter_mut().enumerate() {
                *b = HEX[((id >> (60 - 4 * i)) & 15) as usize];
            }
            let mut letters = rng.next_u64();
            for b in &mut key[23..] {
                *b = LETTERS[(letters & 31) as usize];
                letters = letters.rotate_right(5);
            }
            Str40(key)
        };
        Self::from_fresh(fresh, len, kind, seed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_keys_are_forty_ascii_bytes_and_hash_as_str() {
        use std::hash::BuildHasher;
        let mut s = KeyStream::str_keys(64, StreamKind::Distinct, 1);
        let (block, salt) = s.block(64);
        assert_eq!(salt, 0);
        let text = std::str::from_utf8(&block[0].0).expect("ascii");
        assert!(text.starts_with("event:"));
        let h = ddf_hash::KeyedSipHasher::with_seed(1);
        assert_eq!(h.hash_one(block[0]), h.hash_one(text));
    }

    #[test]
    fn passes_change_the_salt() {
        let mut s = KeyStream::u64_keys(8, StreamKind::Distinct, 1);
        let (a, s0) = s.block(8);
        let a = a.to_vec();
        let (b, s1) = s.block(8);
        assert_eq!(a, b);
        assert_ne!(s0, s1);
    }
}
