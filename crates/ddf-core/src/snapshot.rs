//! Versioned, checksummed snapshots of filter state.
//!
//! # Format
//!
//! One little-endian layout for every filter:
//!
//! | bytes | field |
//! | --- | --- |
//! | 4 | magic `DDF\x1a` |
//! | 2 | format version ([`FORMAT_VERSION`]) |
//! | 2 | filter kind ([`kind`]) |
//! | 2 | the kind's own layout version ([`Snapshot::VERSION`]) |
//! | 2 | hasher identity ([`PortableHasher::ID`]; 0 for a bare filter over digests) |
//! | 2 | hasher key length `n` |
//! | n | hasher key |
//! | 8 | body length `b` |
//! | b | body: parameters, logical clock, payload, as the kind defines them |
//! | 8 | checksum: SipHash-1-3 under a fixed public key of all bytes before it |
//!
//! The checksum catches corruption, not tampering: its key is public.
//!
//! # Compatibility
//!
//! Two version numbers guard the bytes. [`FORMAT_VERSION`] covers the
//! envelope above (magic, field order, widths, checksum); each kind's
//! [`Snapshot::VERSION`] covers that kind's body. The promise:
//!
//! - A snapshot written by a release is read by every later release: a
//!   decoder keeps reading every older layout of its kind (bodies
//!   `1..=VERSION`), and an envelope change adds a new `FORMAT_VERSION`
//!   while the old one stays readable. This holds from the first published
//!   release on. Until then (0.1 is unpublished) a kind may drop an old
//!   layout by raising [`Snapshot::OLDEST_VERSION`]; the bytes are then
//!   refused with [`DecodeError::UnsupportedVersion`], never misread. The
//!   timed kinds (exact window, APBF, APBBF, queue, sliding Bloom) did so at
//!   layout 2, when they gained the overload and clock counters.
//! - Any change to the bytes a kind writes for the same state (a field
//!   added, reordered, widened, or a different encoding of the payload)
//!   bumps that kind's `VERSION`; any change to the envelope bumps
//!   `FORMAT_VERSION`. Nothing changes silently: `crates/ddf/tests/golden.rs`
//!   pins a hash of the bytes of every kind for a fixed seed and stream, so
//!   an unannounced change fails a test.
//! - Reading is not promised backwards: an older release refuses a newer
//!   layout with [`DecodeError::UnsupportedFormat`] or
//!   [`DecodeError::UnsupportedVersion`], never misreads it.
//! - Kind codes ([`kind`]) are never reused for another type.
//!
//! A snapshot of a [`Deduper`](crate::Deduper) carries the hasher's key. When
//! that key is secret (the default), so is the snapshot: whoever reads it can
//! craft items that collide in the filter (the QHT paper's §7 attack, which
//! `cargo xtask verify` runs as `adversary/qht-fp-known-key`). The same holds
//! for a `Deduper` serialized with feature `serde` (`serde_bytes`). A bare
//! filter's snapshot holds no key, but its digests were computed under one:
//! keep the key and the snapshot together and equally private.
//!
//! # Decoding untrusted bytes
//!
//! Decoders validate every field and return a [`DecodeError`], never panic.
//! Nothing is allocated from a length read out of the input before that length
//! is checked against the bytes actually present (and, for streams, against
//! [`MAX_SNAPSHOT_BYTES`]).

use crate::ParamError;
use ddf_hash::{PortableHasher, SeededRng, ZeroPolicy};
use std::fmt;
use std::hash::Hasher;
use std::io::{self, Read};

/// The first four bytes of every snapshot. `\x1a` stops accidental text display.
pub const MAGIC: [u8; 4] = *b"DDF\x1a";

/// The envelope layout version this crate writes and reads.
pub const FORMAT_VERSION: u16 = 1;

/// The largest body a streamed snapshot may declare: the state ceiling of
/// [`ddf_param::MAX_STATE_BITS`] in bytes, plus 1 MiB for parameters.
pub const MAX_SNAPSHOT_BYTES: u64 = ddf_param::MAX_STATE_BITS / 8 + (1 << 20);

const CHECKSUM_KEY: (u64, u64) = (0x6464_662d_736e_6170, 0x7368_6f74_2d76_3031);

/// Filter kind codes, one registry so that two types never share a code.
pub mod kind {
    /// `ddf_exact::ExactWindow`.
    pub const EXACT_WINDOW: u16 = 0x0001;
    /// `ddf_qht::Qht`.
    pub const QHT: u16 = 0x0100;
    /// `ddf_qht::Qhtd`.
    pub const QHTD: u16 = 0x0101;
    /// `ddf_qht::Qqhtd`.
    pub const QQHTD: u16 = 0x0102;
    /// `ddf_qht::Sqf`.
    pub const SQF: u16 = 0x0103;
    /// `ddf_cuckoo::StreamingCuckoo`.
    pub const CUCKOO: u16 = 0x0110;
    /// `ddf_bloom::PartitionedBloom`.
    pub const PARTITIONED_BLOOM: u16 = 0x0200;
    /// `ddf_bloom::StableBloom`.
    pub const STABLE_BLOOM: u16 = 0x0201;
    /// `ddf_bloom::A2`.
    pub const A2: u16 = 0x0202;
    /// `ddf_bloom::BlockDecayingBloom`.
    pub const BLOCK_DECAYING_BLOOM: u16 = 0x0203;
    /// `ddf_apbf::Apbf`.
    pub const APBF: u16 = 0x0300;
    /// `ddf_apbf::Apbbf`.
    pub const APBBF: u16 = 0x0301;
    /// `ddf_shf::Shf`.
    pub const SHF: u16 = 0x0400;
    /// `ddf_shf::CompactShf`.
    pub const COMPACT_SHF: u16 = 0x0401;
    /// `ddf_sliding::SlidingBloom`.
    pub const SLIDING_BLOOM: u16 = 0x0500;
    /// `ddf_queue::Queue`.
    pub const QUEUE: u16 = 0x0600;
    /// Reserved for tests of the snapshot machinery itself.
    pub const TEST: u16 = 0xfff0;
    /// Not a kind: the `KIND` of a type that holds one of several kinds
    /// (`ddf::Filter`) and writes the kind of what it holds. Never written.
    pub const ANY: u16 = 0xffff;

    /// The filter a kind stands for, in words, for error messages; `None`
    /// for a kind this build does not know.
    ///
    /// ```
    /// use ddf_core::snapshot::kind;
    /// assert_eq!(kind::name(kind::SLIDING_BLOOM), Some("sliding Bloom filter (ddf_sliding::SlidingBloom)"));
    /// assert_eq!(kind::name(0x7777), None);
    /// ```
    pub const fn name(kind: u16) -> Option<&'static str> {
        Some(match kind {
            EXACT_WINDOW => "exact window (ddf_exact::ExactWindow)",
            QHT => "QHT (ddf_qht::Qht)",
            QHTD => "QHTD (ddf_qht::Qhtd)",
            QQHTD => "QQHTD (ddf_qht::Qqhtd)",
            SQF => "SQF (ddf_qht::Sqf)",
            CUCKOO => "streaming cuckoo filter (ddf_cuckoo::StreamingCuckoo)",
            PARTITIONED_BLOOM => "partitioned Bloom filter (ddf_bloom::PartitionedBloom)",
            STABLE_BLOOM => "Stable Bloom filter (ddf_bloom::StableBloom)",
            A2 => "A2 filter (ddf_bloom::A2)",
            BLOCK_DECAYING_BLOOM => "block-decaying Bloom filter (ddf_bloom::BlockDecayingBloom)",
            APBF => "APBF (ddf_apbf::Apbf)",
            APBBF => "APBBF (ddf_apbf::Apbbf)",
            SHF => "Short Hash Filter (ddf_shf::Shf)",
            COMPACT_SHF => "Compact SHF (ddf_shf::CompactShf)",
            SLIDING_BLOOM => "sliding Bloom filter (ddf_sliding::SlidingBloom)",
            QUEUE => "queue of filters (ddf_queue::Queue)",
            TEST => "test kind",
            _ => return None,
        })
    }

    /// `name (kind 0x0500)`, with the type in the name, or
    /// `unknown filter kind 0x7777`.
    pub(crate) fn describe(kind: u16) -> String {
        match name(kind) {
            Some(n) => format!("{n}, kind {kind:#06x}"),
            None => format!("unknown filter kind {kind:#06x}"),
        }
    }
}

/// What a hasher identity in a snapshot says about the bytes.
fn hasher_words(id: u16) -> String {
    match id {
        0 => "no hasher: a filter-only snapshot, written by the filter's own `to_bytes` and read \
              by the filter type's `from_bytes`"
            .to_string(),
        1 => "hasher 1, a SipHash-1-3 key (`KeyedSipHasher`): a `Deduper` snapshot, written by \
              `Deduper::to_bytes` and read by `Deduper::from_bytes`"
            .to_string(),
        2 => {
            "hasher 2, a `MixState` key: a `Deduper` snapshot, written by `Deduper::to_bytes` and \
              read by `Deduper::from_bytes` with that hasher"
                .to_string()
        }
        other => format!("hasher {other}, unknown to this build"),
    }
}

/// Why a snapshot could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DecodeError {
    /// The input ended inside `field`.
    Truncated {
        /// The field being read.
        field: &'static str,
    },
    /// The input does not start with [`MAGIC`].
    BadMagic,
    /// The envelope version is not one this build reads.
    UnsupportedFormat {
        /// The version found.
        version: u16,
    },
    /// The snapshot holds another kind of filter.
    WrongKind {
        /// The kind asked for.
        expected: u16,
        /// The kind found.
        found: u16,
    },
    /// The kind code names no filter type this reader reads (an unknown
    /// code, or a family compiled out of this build).
    UnknownKind {
        /// The kind found.
        kind: u16,
    },
    /// The kind's layout version is not one this build reads.
    UnsupportedVersion {
        /// The kind.
        kind: u16,
        /// The version found.
        version: u16,
    },
    /// The hasher section names another hasher (0: none).
    HasherMismatch {
        /// The hasher identity asked for.
        expected: u16,
        /// The hasher identity found.
        found: u16,
    },
    /// The checksum does not match the bytes.
    BadChecksum,
    /// A field holds an impossible value.
    Invalid {
        /// The field.
        field: &'static str,
        /// Why it is impossible.
        reason: String,
    },
    /// The stored parameters are rejected by the filter's constructor.
    Param(ParamError),
    /// Bytes remain after the snapshot's end.
    TrailingBytes {
        /// How many.
        count: u64,
    },
    /// A declared length exceeds [`MAX_SNAPSHOT_BYTES`].
    TooLarge {
        /// The declared length.
        len: u64,
    },
    /// Reading from the source failed.
    Io {
        /// The I/O error's kind.
        kind: io::ErrorKind,
        /// Its message.
        message: String,
    },
}

impl DecodeError {
    /// An [`Invalid`](Self::Invalid) error for `field`.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_core::DecodeError;
    ///
    /// let e = DecodeError::invalid("rows", "zero rows");
    /// assert!(matches!(e, DecodeError::Invalid { .. }));
    /// ```
    pub fn invalid(field: &'static str, reason: impl Into<String>) -> Self {
        DecodeError::Invalid {
            field,
            reason: reason.into(),
        }
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::Truncated { field } => write!(f, "snapshot truncated in {field}"),
            DecodeError::BadMagic => f.write_str("not a ddf snapshot (bad magic)"),
            DecodeError::UnsupportedFormat { version } => {
                write!(
                    f,
                    "unsupported snapshot format version {version} (this build reads {FORMAT_VERSION})"
                )
            }
            DecodeError::WrongKind { expected, found } => {
                write!(
                    f,
                    "snapshot holds {}; expected {}",
                    kind::describe(*found),
                    kind::describe(*expected)
                )
            }
            DecodeError::UnknownKind { kind } => {
                write!(
                    f,
                    "snapshot holds filter kind {kind:#06x}, which this build does not read"
                )
            }
            DecodeError::UnsupportedVersion { kind, version } => {
                write!(
                    f,
                    "unsupported layout version {version} for the {}",
                    kind::describe(*kind)
                )
            }
            DecodeError::HasherMismatch { expected, found } => {
                write!(
                    f,
                    "these bytes carry {}; this call expects {}",
                    hasher_words(*found),
                    hasher_words(*expected)
                )
            }
            DecodeError::BadChecksum => f.write_str("snapshot checksum mismatch (corrupt bytes)"),
            DecodeError::Invalid { field, reason } => {
                write!(f, "invalid {field} in snapshot: {reason}")
            }
            DecodeError::Param(e) => write!(f, "snapshot parameters rejected: {e}"),
            DecodeError::TrailingBytes { count } => {
                write!(f, "{count} unexpected bytes after the snapshot")
            }
            DecodeError::TooLarge { len } => {
                write!(
                    f,
                    "snapshot declares {len} bytes, above the limit of {MAX_SNAPSHOT_BYTES}"
                )
            }
            DecodeError::Io { kind, message } => {
                write!(f, "reading snapshot failed ({kind:?}): {message}")
            }
        }
    }
}

impl std::error::Error for DecodeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            DecodeError::Param(e) => Some(e),
            _ => None,
        }
    }
}

impl From<ParamError> for DecodeError {
    fn from(e: ParamError) -> Self {
        DecodeError::Param(e)
    }
}

impl From<io::Error> for DecodeError {
    fn from(e: io::Error) -> Self {
        if e.kind() == io::ErrorKind::UnexpectedEof {
            DecodeError::Truncated { field: "stream" }
        } else {
            DecodeError::Io {
                kind: e.kind(),
                message: e.to_string(),
            }
        }
    }
}

/// Writes a snapshot body: fixed-width little-endian fields.
#[derive(Debug, Default)]
pub struct Encoder {
    bytes: Vec<u8>,
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

fn check_version<F: Snapshot>(version: u16) -> Result<(), DecodeError> {
    if version < F::OLDEST_VERSION.max(1) || version > F::VERSION {
        Err(DecodeError::UnsupportedVersion {
            kind: F::KIND,
            version,
        })
    } else {
        Ok(())
    }
}

fn checksum(bytes: &[u8]) -> u64 {
    let mut h = siphasher::sip::SipHasher13::new_with_keys(CHECKSUM_KEY.0, CHECKSUM_KEY.1);
    h.write(bytes);
    h.finish()
}

/// The parsed envelope of a snapshot.
#[derive(Debug)]
pub struct Envelope<'a> {
    /// The filter kind.
    pub kind: u16,
    /// The kind's layout version.
    pub version: u16,
    /// The hasher identity (0 for none).
    pub hasher_id: u16,
    /// The hasher key.
    pub hasher_key: &'a [u8],
    /// The body.
    pub body: &'a [u8],
}

/// Wraps a body into a complete snapshot.
pub fn seal(kind: u16, version: u16, hasher_id: u16, hasher_key: &[u8], body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(30 + hasher_key.len() + body.len());
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&kind.to_le_bytes());
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&hasher_id.to_le_bytes());
    // Keys are short (16 bytes for SipHash); a longer one is a bug of the hasher.
    let key_len = u16::try_from(hasher_key.len()).unwrap_or(u16::MAX);
    out.extend_from_slice(&key_len.to_le_bytes());
    out.extend_from_slice(&hasher_key[..usize::from(key_len)]);
    out.extend_from_slice(&(body.len() as u64).to_le_bytes());
    out.extend_from_slice(body);
    let sum = checksum(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// Checks magic, format version and checksum and splits a snapshot into its parts.
pub fn open(bytes: &[u8]) -> Result<Envelope<'_>, DecodeError> {
    let mut d = Decoder::new(bytes);
    if d.raw(4, "magic")? != MAGIC {
        return Err(DecodeError::BadMagic);
    }
    let format = d.u16("format version")?;
    if format != FORMAT_VERSION {
        return Err(DecodeError::UnsupportedFormat { version: format });
    }
    let kind = d.u16("kind")?;
    let version = d.u16("kind version")?;
    let hasher_id = d.u16("hasher id")?;
    let key_len = d.u16("hasher key length")?;
    let hasher_key = d.raw(usize::from(key_len), "hasher key")?;
    let body = d.bytes("body")?;
    let covered = bytes.len() - d.remaining();
    let stored = d.u64("checksum")?;
    d.finish()?;
    if checksum(&bytes[..covered]) != stored {
        return Err(DecodeError::BadChecksum);
    }
    Ok(Envelope {
        kind,
        version,
        hasher_id,
        hasher_key,
        body,
    })
}

/// Reads one snapshot from `reader` into memory, header first: the magic
/// and format version are checked before anything else is read (so a source
/// of zeros or text is refused after 14 bytes), the declared body length
/// against [`MAX_SNAPSHOT_BYTES`] before the body is read, and nothing
/// beyond the declared end is consumed, even from an endless reader.
pub fn read_sealed<R: io::Read>(mut reader: R) -> Result<Vec<u8>, DecodeError> {
    let mut head = [0u8; 14];
    reader.read_exact(&mut head)?;
    if head[..4] != MAGIC {
        return Err(DecodeError::BadMagic);
    }
    let format = u16::from_le_bytes([head[4], head[5]]);
    if format != FORMAT_VERSION {
        return Err(DecodeError::UnsupportedFormat { version: format });
    }
    let key_len = usize::from(u16::from_le_bytes([head[12], head[13]]));
    let mut out = head.to_vec();
    let mut rest = vec![0u8; key_len + 8];
    reader.read_exact(&mut rest)?;
    out.extend_from_slice(&rest);
    let mut len = [0u8; 8];
    len.copy_from_slice(&rest[key_len..]);
    let body_len = u64::from_le_bytes(len);
    if body_len > MAX_SNAPSHOT_BYTES {
        return Err(DecodeError::TooLarge { len: body_len });
    }
    // `take` + `read_to_end` grows the buffer with the bytes actually read,
    // so a lying length cannot make us allocate more than the stream holds.
    let want = body_len + 8;
    let got = reader.take(want).read_to_end(&mut out)? as u64;
    if got != want {
        return Err(DecodeError::Truncated { field: "body" });
    }
    Ok(out)
}

/// A filter whose state can be written to bytes and read back.
///
/// Implement [`encode_body`](Self::encode_body) and
/// [`decode_body`](Self::decode_body); the envelope (magic, versions,
/// checksum) and the `std::io` plumbing come for free. A restored filter
/// answers exactly as the original on any continued stream: parameters,
/// logical clock, generator state and payload all go into the body.
pub trait Snapshot: Sized {
    /// The kind code, from [`kind`].
    const KIND: u16;
    /// The layout version of the body this build writes. Bump it when the
    /// body changes, and keep reading older versions where possible.
    const VERSION: u16 = 1;
    /// The oldest layout version this build reads. It stays 1 once a release
    /// is published; before that (ddf 0.1 is unpublished) a kind may drop a
    /// layout by raising it, and such bytes are refused with
    /// [`DecodeError::UnsupportedVersion`], never misread.
    const OLDEST_VERSION: u16 = 1;

    /// Writes parameters, clock and payload.
    fn encode_body(&self, out: &mut Encoder);

    /// Reads a body of layout `version` (1..=[`VERSION`](Self::VERSION)),
    /// validating every field, typically by rebuilding through the checked
    /// constructor and then checking the payload against it.
    fn decode_body(input: &mut Decoder<'_>, version: u16) -> Result<Self, DecodeError>;

    /// The kind code this value writes into its envelope. Every filter type
    /// keeps the default, [`KIND`](Self::KIND); a type that holds one of
    /// several kinds (`ddf::Filter`) returns the kind of what it holds.
    fn kind(&self) -> u16 {
        Self::KIND
    }

    /// The layout version this value writes; the default is
    /// [`VERSION`](Self::VERSION), and `ddf::Filter` returns its variant's.
    fn layout_version(&self) -> u16 {
        Self::VERSION
    }

    /// Whether this type reads bodies of kind `kind` at layout `version`;
    /// the default accepts [`KIND`](Self::KIND) at versions
    /// 1..=[`VERSION`](Self::VERSION).
    fn check_kind(kind: u16, version: u16) -> Result<(), DecodeError> {
        if kind != Self::KIND {
            return Err(DecodeError::WrongKind {
                expected: Self::KIND,
                found: kind,
            });
        }
        check_version::<Self>(version)
    }

    /// Reads a body of a kind [`check_kind`](Self::check_kind) accepted.
    /// The default is [`decode_body`](Self::decode_body); a type holding
    /// several kinds dispatches on `kind`.
    fn decode_kind(kind: u16, version: u16, input: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        let _ = kind;
        Self::decode_body(input, version)
    }

    /// The snapshot as bytes.
    fn to_bytes(&self) -> Vec<u8> {
        let mut body = Encoder::new();
        self.encode_body(&mut body);
        seal(self.kind(), self.layout_version(), 0, &[], &body.bytes)
    }

    /// A filter from snapshot bytes.
    fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        let env = open(bytes)?;
        decode_envelope(&env, 0)
    }

    /// Writes the snapshot to `writer`.
    fn write_to<W: io::Write>(&self, mut writer: W) -> io::Result<()> {
        writer.write_all(&self.to_bytes())
    }

    /// Reads one snapshot from `reader`, leaving any later bytes unread.
    fn read_from<R: io::Read>(reader: R) -> Result<Self, DecodeError> {
        Self::from_bytes(&read_sealed(reader)?)
    }
}

/// Decodes the filter in an opened envelope, expecting hasher `hasher_id`.
pub fn decode_envelope<F: Snapshot>(env: &Envelope<'_>, hasher_id: u16) -> Result<F, DecodeError> {
    F::check_kind(env.kind, env.version)?;
    if env.hasher_id != hasher_id {
        return Err(DecodeError::HasherMismatch {
            expected: hasher_id,
            found: env.hasher_id,
        });
    }
    let mut d = Decoder::new(env.body);
    let filter = F::decode_kind(env.kind, env.version, &mut d)?;
    d.finish()?;
    Ok(filter)
}

/// Seals `filter` together with `hasher`'s identity and key.
pub fn seal_with_hasher<F: Snapshot, S: PortableHasher>(filter: &F, hasher: &S) -> Vec<u8> {
    let mut body = Encoder::new();
    filter.encode_body(&mut body);
    seal(
        filter.kind(),
        filter.layout_version(),
        S::ID,
        &hasher.key_bytes(),
        &body.bytes,
    )
}

/// Opens a snapshot written by [`seal_with_hasher`].
pub fn open_with_hasher<F: Snapshot, S: PortableHasher>(
    bytes: &[u8],
) -> Result<(F, S), DecodeError> {
    let env = open(bytes)?;
    let filter = decode_envelope::<F>(&env, S::ID)?;
    let hasher = S::from_key_bytes(env.hasher_key)
        .ok_or_else(|| DecodeError::invalid("hasher key", "not a valid key for this hasher"))?;
    Ok((filter, hasher))
}

/// serde support: a filter serializes as its snapshot bytes and
/// deserializes through its validating decoder (feature `serde`).
///
/// A filter crate opts in with one line per type,
/// `ddf_core::impl_serde_via_snapshot!(MyFilter);` behind its own `serde`
/// feature; a field of a user's struct can also use
/// `#[serde(with = "ddf_core::snapshot::serde_bytes")]` for any
/// [`Snapshot`] type. The bytes are the whole snapshot (envelope, checksum,
/// body), so corrupt or hostile input is rejected exactly as by
/// [`Snapshot::from_bytes`]. Formats without a byte type (JSON) see an
/// array of numbers.
///
/// As any snapshot of a [`Deduper`](crate::Deduper), a serialized
/// `Deduper` carries the secret hash key (see the [module docs](self)).
#[cfg(feature = "serde")]
pub mod serde_bytes {
    use super::{MAX_SNAPSHOT_BYTES, Snapshot};
    use std::fmt;

    /// The `serde` crate the derived impls name, so filter crates need no
    /// direct dependency on it.
    pub use serde;
    use serde::de::{self, Deserializer, SeqAccess, Visitor};
    use serde::ser::Serializer;

    /// Serializes `value` as its snapshot bytes.
    pub fn serialize<T: Snapshot, S: Serializer>(
        value: &T,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(&value.to_bytes())
    }

    /// Deserializes a filter from snapshot bytes through its validating decoder.
    pub fn deserialize<'de, T: Snapshot, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<T, D::Error> {
        let bytes = deserialize_bytes(deserializer)?;
        T::from_bytes(&bytes).map_err(de::Error::custom)
    }

    /// The snapshot bytes, from a byte string or a sequence of bytes.
    pub fn deserialize_bytes<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Vec<u8>, D::Error> {
        deserializer.deserialize_byte_buf(BytesVisitor)
    }

    struct BytesVisitor;

    impl<'de> Visitor<'de> for BytesVisitor {
        type Value = Vec<u8>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("the bytes of a ddf snapshot")
        }

        fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Vec<u8>, E> {
            Ok(v.to_vec())
        }

        fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<Vec<u8>, E> {
            Ok(v)
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u8>, A::Error> {
            // The size hint comes from the input: capped, never trusted.
            let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 16));
            while let Some(b) = seq.next_element::<u8>()? {
                if out.len() as u64 >= MAX_SNAPSHOT_BYTES {
                    return Err(de::Error::custom("snapshot longer than MAX_SNAPSHOT_BYTES"));
                }
                out.push(b);
            }
            Ok(out)
        }
    }
}

/// Implements `serde::Serialize` and `serde::Deserialize` for filter types
/// through their snapshots ([`serde_bytes`]; feature `serde` of `ddf-core`).
///
/// ```text
/// #[cfg(feature = "serde")]
/// ddf_core::impl_serde_via_snapshot!(Sqf, StreamingCuckoo);
/// #[cfg(feature = "serde")]
/// ddf_core::impl_serde_via_snapshot!(impl<F: DuplicateFilter> for Queue<F>);
/// ```
#[cfg(feature = "serde")]
#[macro_export]
macro_rules! impl_serde_via_snapshot {
    (impl<$($g:ident $(: $bound:path)?),+> for $ty:ty) => {
        impl<$($g $(: $bound)?),+> $crate::snapshot::serde_bytes::serde::Serialize for $ty
        where
            $ty: $crate::snapshot::Snapshot,
        {
            fn serialize<S>(&self, serializer: S) -> ::core::result::Result<S::Ok, S::Error>
            where
                S: $crate::snapshot::serde_bytes::serde::Serializer,
            {
                $crate::snapshot::serde_bytes::serialize(self, serializer)
            }
        }
        impl<'de, $($g $(: $bound)?),+> $crate::snapshot::serde_bytes::serde::Deserialize<'de> for $ty
        where
            $ty: $crate::snapshot::Snapshot,
        {
            fn deserialize<D>(deserializer: D) -> ::core::result::Result<Self, D::Error>
            where
                D: $crate::snapshot::serde_bytes::serde::Deserializer<'de>,
            {
                $crate::snapshot::serde_bytes::deserialize(deserializer)
            }
        }
    };
    ($($ty:ty),+ $(,)?) => {
        $(
            impl $crate::snapshot::serde_bytes::serde::Serialize for $ty {
                fn serialize<S>(&self, serializer: S) -> ::core::result::Result<S::Ok, S::Error>
                where
                    S: $crate::snapshot::serde_bytes::serde::Serializer,
                {
                    $crate::snapshot::serde_bytes::serialize(self, serializer)
                }
            }
            impl<'de> $crate::snapshot::serde_bytes::serde::Deserialize<'de> for $ty {
                fn deserialize<D>(deserializer: D) -> ::core::result::Result<Self, D::Error>
                where
                    D: $crate::snapshot::serde_bytes::serde::Deserializer<'de>,
                {
                    $crate::snapshot::serde_bytes::deserialize(deserializer)
                }
            }
        )+
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_the_kinds_and_the_calls() {
        let wrong = DecodeError::WrongKind {
            expected: kind::APBF,
            found: kind::SLIDING_BLOOM,
        };
        assert_eq!(
            wrong.to_string(),
            "snapshot holds sliding Bloom filter (ddf_sliding::SlidingBloom), kind 0x0500; \
             expected APBF (ddf_apbf::Apbf), kind 0x0300"
        );
        let filter_only = DecodeError::HasherMismatch {
            expected: 1,
            found: 0,
        }
        .to_string();
        assert!(
            filter_only.contains("filter-only snapshot"),
            "{filter_only}"
        );
        assert!(filter_only.contains("Deduper::from_bytes"), "{filter_only}");
        assert!(
            DecodeError::WrongKind {
                expected: 1,
                found: 0x7777
            }
            .to_string()
            .contains("unknown filter kind 0x7777")
        );
        // Every registered kind has a name.
        for k in [
            kind::EXACT_WINDOW,
            kind::QHT,
            kind::QHTD,
            kind::QQHTD,
            kind::SQF,
            kind::CUCKOO,
            kind::PARTITIONED_BLOOM,
            kind::STABLE_BLOOM,
            kind::A2,
            kind::BLOCK_DECAYING_BLOOM,
            kind::APBF,
            kind::APBBF,
            kind::SHF,
            kind::COMPACT_SHF,
            kind::SLIDING_BLOOM,
            kind::QUEUE,
        ] {
            assert!(kind::name(k).is_some(), "{k:#06x}");
        }
    }

    #[derive(Debug, PartialEq)]
    struct Toy {
        clock: u64,
        words: Vec<u64>,
    }

    impl Snapshot for Toy {
        const KIND: u16 = kind::TEST;
        fn encode_body(&self, out: &mut Encoder) {
            out.put_u64(self.clock);
            out.put_words(&self.words);
        }
        fn decode_body(input: &mut Decoder<'_>, _version: u16) -> Result<Self, DecodeError> {
            let clock = input.u64("clock")?;
            let words = input.words("words")?;
            Ok(Toy { clock, words })
        }
    }

    fn toy() -> Toy {
        Toy {
            clock: 7,
            words: vec![1, 2, u64::MAX],
        }
    }

    #[test]
    fn round_trip_bytes_and_io() {
        let t = toy();
        let bytes = t.to_bytes();
        assert_eq!(Toy::from_bytes(&bytes).unwrap(), t);
        let mut stream = Vec::new();
        t.write_to(&mut stream).unwrap();
        stream.extend_from_slice(b"next");
        let mut reader = stream.as_slice();
        assert_eq!(Toy::read_from(&mut reader).unwrap(), t);
        assert_eq!(reader, b"next");
    }

    #[test]
    fn every_single_byte_flip_is_rejected() {
        let bytes = toy().to_bytes();
        for i in 0..bytes.len() {
            for bit in 0..8 {
                let mut bad = bytes.clone();
                bad[i] ^= 1 << bit;
                assert!(
                    Toy::from_bytes(&bad).is_err(),
                    "flip at byte {i} bit {bit} accepted"
                );
            }
        }
    }

    #[test]
    fn every_truncation_is_rejected() {
        let bytes = toy().to_bytes();
        for len in 0..bytes.len() {
            assert!(Toy::from_bytes(&bytes[..len]).is_err());
            assert!(Toy::read_from(&bytes[..len]).is_err());
        }
        let mut long = bytes.clone();
        long.push(0);
        assert!(matches!(
            Toy::from_bytes(&long),
            Err(DecodeError::TrailingBytes { count: 1 })
        ));
    }

    #[test]
    fn lying_word_count_is_truncation_not_allocation() {
        let mut body = Encoder::new();
        body.put_u64(0);
        body.put_u64(u64::MAX); // claims 2^64 - 1 words
        let bytes = seal(kind::TEST, 1, 0, &[], &body.into_bytes());
        assert_eq!(
            Toy::from_bytes(&bytes),
            Err(DecodeError::Truncated { field: "words" })
        );
    }

    #[test]
    fn huge_declared_body_in_a_stream_is_refused() {
        let mut bytes = seal(kind::TEST, 1, 0, &[], &[]);
        bytes[14..22].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(matches!(
            Toy::read_from(bytes.as_slice()),
            Err(DecodeError::TooLarge { .. })
        ));
    }

    /// Counts the bytes taken from an inner reader.
    struct Counted<R> {
        inner: R,
        taken: u64,
    }

    impl<R: io::Read> io::Read for Counted<R> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.inner.read(buf)?;
            self.taken += n as u64;
            Ok(n)
        }
    }

    #[test]
    fn an_endless_reader_is_read_no_further_than_its_header_declares() {
        // Zeros for ever (`/dev/zero`): refused at the magic, 14 bytes in.
        let mut zeros = Counted {
            inner: io::repeat(0),
            taken: 0,
        };
        assert_eq!(Toy::read_from(&mut zeros), Err(DecodeError::BadMagic));
        assert_eq!(zeros.taken, 14);
        // A valid header declaring more than any filter's state, then zeros
        // for ever: refused before the body is read.
        let header = |len: u64| {
            let mut h = seal(kind::TEST, 1, 0, &[], &[]);
            h.truncate(22);
            h[14..22].copy_from_slice(&len.to_le_bytes());
            h
        };
        let huge_header = header(MAX_SNAPSHOT_BYTES + 1);
        let mut huge = Counted {
            inner: io::Read::chain(huge_header.as_slice(), io::repeat(0)),
            taken: 0,
        };
        assert_eq!(
            Toy::read_from(&mut huge),
            Err(DecodeError::TooLarge {
                len: MAX_SNAPSHOT_BYTES + 1
            })
        );
        assert_eq!(huge.taken, 22);
        // A header declaring 1 MiB, then zeros for ever: exactly the body and
        // its checksum are read, and the checksum refuses them.
        let mib_header = header(1 << 20);
        let mut declared = Counted {
            inner: io::Read::chain(mib_header.as_slice(), io::repeat(0)),
            taken: 0,
        };
        assert_eq!(Toy::read_from(&mut declared), Err(DecodeError::BadChecksum));
        assert_eq!(declared.taken, 22 + (1 << 20) + 8);
    }

    #[test]
    fn kind_version_and_hasher_are_checked() {
        let body = {
            let mut e = Encoder::new();
            toy().encode_body(&mut e);
            e.into_bytes()
        };
        let other = seal(kind::QHT, 1, 0, &[], &body);
        assert_eq!(
            Toy::from_bytes(&other),
            Err(DecodeError::WrongKind {
                expected: kind::TEST,
                found: kind::QHT
            })
        );
        let future = seal(kind::TEST, 2, 0, &[], &body);
        assert_eq!(
            Toy::from_bytes(&future),
            Err(DecodeError::UnsupportedVersion {
                kind: kind::TEST,
                version: 2
            })
        );
        let keyed = seal(kind::TEST, 1, 1, &[0; 16], &body);
        assert_eq!(
            Toy::from_bytes(&keyed),
            Err(DecodeError::HasherMismatch {
                expected: 0,
                found: 1
            })
        );
    }

    #[test]
    fn generator_and_policy_fields() {
        let mut rng = SeededRng::new(3);
        rng.next_u64();
        let mut e = Encoder::new();
        e.put_rng(&rng);
        e.put_zero_policy(ZeroPolicy::MapToOne);
        e.put_u8(9);
        let bytes = e.into_bytes();
        let mut d = Decoder::new(&bytes);
        assert_eq!(d.rng("rng").unwrap(), rng);
        assert_eq!(d.zero_policy("policy").unwrap(), ZeroPolicy::MapToOne);
        assert!(d.zero_policy("policy").is_err());
    }

    #[test]
    fn nested_round_trip() {
        let mut e = Encoder::new();
        e.put_nested(&toy());
        let bytes = e.into_bytes();
        let mut d = Decoder::new(&bytes);
        assert_eq!(d.nested::<Toy>("sub").unwrap(), toy());
        d.finish().unwrap();
    }
}
