//! The envelope around a body: [`seal`], [`open`], [`read_sealed`],
//! [`peek_kind`] and the checksum.

use super::*;

pub(super) fn checksum(bytes: &[u8]) -> u64 {
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

/// The kind code of the snapshot `bytes` begins with, read from its header
/// after the magic and the format version are checked, before the rest is:
/// which type to decode it as (`ddf::Filter` and the state files dispatch
/// on it). The checksum and the body are left to [`open`].
///
/// ```
/// use ddf_core::snapshot::{kind, peek_kind, seal};
///
/// let bytes = seal(kind::APBF, 1, 0, &[], b"body");
/// assert_eq!(peek_kind(&bytes), Ok(kind::APBF));
/// assert!(peek_kind(b"DDF").is_err());
/// ```
pub fn peek_kind(bytes: &[u8]) -> Result<u16, DecodeError> {
    let mut d = Decoder::new(bytes);
    if d.raw(4, "magic")? != MAGIC {
        return Err(DecodeError::BadMagic);
    }
    let format = d.u16("format version")?;
    if format != FORMAT_VERSION {
        return Err(DecodeError::UnsupportedFormat { version: format });
    }
    d.u16("kind")
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
