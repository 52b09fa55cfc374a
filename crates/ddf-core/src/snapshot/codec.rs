//! The body codec: [`Encoder`] writes fixed-width little-endian fields, [`Decoder`] reads them back with every length checked.

use super::*;

/// Writes a snapshot body: fixed-width little-endian fields.
#[derive(Debug, Default)]
pub struct Encoder {
    pub(super) bytes: Vec<u8>,
}

impl Encoder {
    /// An empty body.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_core::snapshot::{Decoder, Encoder};
    ///
    /// let mut out = Encoder::new();
    /// out.put_u64(7);
    /// let bytes = out.into_bytes();
    /// let mut input = Decoder::new(&bytes);
    /// assert_eq!(input.u64("seven")?, 7);
    /// input.finish()?;
    /// # Ok::<(), ddf_core::DecodeError>(())
    /// ```
    pub fn new() -> Self {
        Encoder::default()
    }

    /// The bytes written so far.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }

    /// Appends one byte.
    pub fn put_u8(&mut self, v: u8) {
        self.bytes.push(v);
    }
    /// Appends a `bool` as one byte (0 or 1).
    pub fn put_bool(&mut self, v: bool) {
        self.bytes.push(u8::from(v));
    }
    /// Appends a `u16`.
    pub fn put_u16(&mut self, v: u16) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }
    /// Appends a `u32`.
    pub fn put_u32(&mut self, v: u32) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }
    /// Appends a `u64`.
    pub fn put_u64(&mut self, v: u64) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }
    /// Appends an `f64` by its bits.
    pub fn put_f64(&mut self, v: f64) {
        self.put_u64(v.to_bits());
    }
    /// Appends raw bytes (the reader must know the length).
    pub fn put_raw(&mut self, bytes: &[u8]) {
        self.bytes.extend_from_slice(bytes);
    }
    /// Appends a length-prefixed byte string.
    pub fn put_bytes(&mut self, bytes: &[u8]) {
        self.put_u64(bytes.len() as u64);
        self.put_raw(bytes);
    }
    /// Appends a length-prefixed run of `u64` words.
    pub fn put_words(&mut self, words: &[u64]) {
        self.put_u64(words.len() as u64);
        self.bytes.reserve(words.len() * 8);
        for &w in words {
            self.put_u64(w);
        }
    }
    /// Appends a filter's generator: seed, then position (two `u64`s).
    pub fn put_rng(&mut self, rng: &SeededRng) {
        self.put_u64(rng.seed());
        self.put_u64(rng.state());
    }
    /// Appends a zero-fingerprint policy as its one-byte code.
    pub fn put_zero_policy(&mut self, policy: ZeroPolicy) {
        self.put_u8(policy.code());
    }
    /// Appends another filter's kind, version and body, length-prefixed, for
    /// composite filters (the queuing construction's subfilters).
    pub fn put_nested<F: Snapshot>(&mut self, filter: &F) {
        let mut inner = Encoder::new();
        filter.encode_body(&mut inner);
        self.put_u16(filter.kind());
        self.put_u16(filter.layout_version());
        self.put_bytes(&inner.bytes);
    }
}

/// Reads a snapshot body, checking every length against the bytes present.
///
/// Cloning a decoder is cheap (a slice and a position): a composite type
/// clones one to peek ahead without consuming.
#[derive(Debug, Clone)]
pub struct Decoder<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Decoder<'a> {
    /// A decoder over `bytes`.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_core::snapshot::Decoder;
    ///
    /// // Truncated input is an error, never a panic.
    /// let mut input = Decoder::new(&[1, 2, 3]);
    /// assert!(input.u64("value").is_err());
    /// ```
    pub fn new(bytes: &'a [u8]) -> Self {
        Decoder { bytes, pos: 0 }
    }

    /// Bytes not yet read.
    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    /// Reads `n` raw bytes.
    pub fn raw(&mut self, n: usize, field: &'static str) -> Result<&'a [u8], DecodeError> {
        if n > self.remaining() {
            return Err(DecodeError::Truncated { field });
        }
        let out = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    fn array<const N: usize>(&mut self, field: &'static str) -> Result<[u8; N], DecodeError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.raw(N, field)?);
        Ok(out)
    }

    /// Reads one byte.
    pub fn u8(&mut self, field: &'static str) -> Result<u8, DecodeError> {
        Ok(self.array::<1>(field)?[0])
    }
    /// Reads a `bool`; bytes other than 0 and 1 are invalid.
    pub fn bool(&mut self, field: &'static str) -> Result<bool, DecodeError> {
        match self.u8(field)? {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(DecodeError::invalid(field, format!("{b} is not a boolean"))),
        }
    }
    /// Reads a `u16`.
    pub fn u16(&mut self, field: &'static str) -> Result<u16, DecodeError> {
        Ok(u16::from_le_bytes(self.array(field)?))
    }
    /// Reads a `u32`.
    pub fn u32(&mut self, field: &'static str) -> Result<u32, DecodeError> {
        Ok(u32::from_le_bytes(self.array(field)?))
    }
    /// Reads a `u64`.
    pub fn u64(&mut self, field: &'static str) -> Result<u64, DecodeError> {
        Ok(u64::from_le_bytes(self.array(field)?))
    }
    /// Reads an `f64`; NaN and infinities are invalid.
    pub fn f64(&mut self, field: &'static str) -> Result<f64, DecodeError> {
        let v = f64::from_bits(self.u64(field)?);
        if v.is_finite() {
            Ok(v)
        } else {
            Err(DecodeError::invalid(field, "not a finite number"))
        }
    }
    /// Reads a length-prefixed byte string.
    pub fn bytes(&mut self, field: &'static str) -> Result<&'a [u8], DecodeError> {
        let len = self.u64(field)?;
        let len = usize::try_from(len).map_err(|_| DecodeError::Truncated { field })?;
        self.raw(len, field)
    }
    /// Reads a length-prefixed run of `u64` words; the count is checked
    /// against the input before anything is allocated.
    pub fn words(&mut self, field: &'static str) -> Result<Vec<u64>, DecodeError> {
        let count = self.u64(field)?;
        if count > (self.remaining() / 8) as u64 {
            return Err(DecodeError::Truncated { field });
        }
        (0..count).map(|_| self.u64(field)).collect()
    }
    /// Reads a run of words and checks it has exactly `expected` of them.
    pub fn words_exact(
        &mut self,
        expected: usize,
        field: &'static str,
    ) -> Result<Vec<u64>, DecodeError> {
        let words = self.words(field)?;
        if words.len() != expected {
            return Err(DecodeError::invalid(
                field,
                format!(
                    "{} words where the parameters imply {expected}",
                    words.len()
                ),
            ));
        }
        Ok(words)
    }
    /// Reads a generator written by [`Encoder::put_rng`].
    pub fn rng(&mut self, field: &'static str) -> Result<SeededRng, DecodeError> {
        let seed = self.u64(field)?;
        let state = self.u64(field)?;
        Ok(SeededRng::resume(seed, state))
    }
    /// Reads a zero policy written by [`Encoder::put_zero_policy`];
    /// unknown codes are invalid.
    pub fn zero_policy(&mut self, field: &'static str) -> Result<ZeroPolicy, DecodeError> {
        let code = self.u8(field)?;
        ZeroPolicy::from_code(code)
            .ok_or_else(|| DecodeError::invalid(field, format!("unknown zero policy code {code}")))
    }
    /// Reads a filter written by [`Encoder::put_nested`].
    pub fn nested<F: Snapshot>(&mut self, field: &'static str) -> Result<F, DecodeError> {
        let kind = self.u16(field)?;
        let version = self.u16(field)?;
        F::check_kind(kind, version)?;
        let mut inner = Decoder::new(self.bytes(field)?);
        let filter = F::decode_kind(kind, version, &mut inner)?;
        inner.finish()?;
        Ok(filter)
    }
    /// Checks that every byte was read.
    pub fn finish(self) -> Result<(), DecodeError> {
        match self.remaining() {
            0 => Ok(()),
            n => Err(DecodeError::TrailingBytes { count: n as u64 }),
        }
    }
}
