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

mod codec;
mod envelope;
mod error;

pub use codec::{Decoder, Encoder};
pub use envelope::{Envelope, open, peek_kind, read_sealed, seal};
pub use error::DecodeError;

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
